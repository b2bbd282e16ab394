package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_wc}: one work completion, as {@code poll_cq} writes it.
 */
public final class IbvWc
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_wc",
        U64.withName("wr_id"), U32.withName("status"), U32.withName("opcode"), U32.withName("vendor_err"),
        U32.withName("byte_len"), union(null, U32.withName("imm_data"), U32.withName("invalidated_rkey")),
        U32.withName("qp_num"), U32.withName("src_qp"), U32.withName("wc_flags"), U16.withName("pkey_index"),
        U16.withName("slid"), U8.withName("sl"), U8.withName("dlid_path_bits"));

    /** Its size in bytes, the stride of an array of it. */
    public static final long SIZE = LAYOUT.byteSize();

    /** The offset of {@code wr_id}. */
    public static final long WR_ID = offset(LAYOUT, "wr_id");

    /** The offset of {@code status}. */
    public static final long STATUS = offset(LAYOUT, "status");

    /** The offset of {@code opcode}. */
    public static final long OPCODE = offset(LAYOUT, "opcode");

    /** The offset of {@code vendor_err}. */
    public static final long VENDOR_ERR = offset(LAYOUT, "vendor_err");

    /** The offset of {@code byte_len}. */
    public static final long BYTE_LEN = offset(LAYOUT, "byte_len");

    /** The offset of {@code imm_data}. */
    public static final long IMM_DATA = offset(LAYOUT, "imm_data");

    /** The offset of {@code qp_num}. */
    public static final long QP_NUM = offset(LAYOUT, "qp_num");

    /** The offset of {@code src_qp}. */
    public static final long SRC_QP = offset(LAYOUT, "src_qp");

    /** The offset of {@code wc_flags}. */
    public static final long WC_FLAGS = offset(LAYOUT, "wc_flags");

    /** The offset of {@code pkey_index}. */
    public static final long PKEY_INDEX = offset(LAYOUT, "pkey_index");

    /** The offset of {@code slid}. */
    public static final long SLID = offset(LAYOUT, "slid");

    /** The offset of {@code sl}. */
    public static final long SL = offset(LAYOUT, "sl");

    /** The offset of {@code dlid_path_bits}. */
    public static final long DLID_PATH_BITS = offset(LAYOUT, "dlid_path_bits");

    private IbvWc()
    {
    }
}
