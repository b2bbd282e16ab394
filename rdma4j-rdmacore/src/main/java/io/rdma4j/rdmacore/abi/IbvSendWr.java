package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_send_wr}: a send work request, with its opcode-specific unions.
 */
public final class IbvSendWr
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_send_wr",
        U64.withName("wr_id"), POINTER.withName("next"), POINTER.withName("sg_list"), U32.withName("num_sge"),
        U32.withName("opcode"), U32.withName("send_flags"),
        union(null, U32.withName("imm_data"), U32.withName("invalidate_rkey")),
        union("wr",
            struct(null, U64.withName("remote_addr"), U32.withName("rkey")).withName("rdma"),
            struct(null, U64.withName("remote_addr"), U64.withName("compare_add"), U64.withName("swap"),
                U32.withName("rkey")).withName("atomic"),
            struct(null, POINTER.withName("ah"), U32.withName("remote_qpn"), U32.withName("remote_qkey"))
                .withName("ud")),
        union("qp_type", struct(null, U32.withName("remote_srqn")).withName("xrc")),
        union(null,
            struct(null, POINTER.withName("mw"), U32.withName("rkey"), IbvMwBindInfo.LAYOUT.withName("bind_info"))
                .withName("bind_mw"),
            struct(null, POINTER.withName("hdr"), U16.withName("hdr_sz"), U16.withName("mss")).withName("tso")));

    /** Its size in bytes, the stride of an array of it. */
    public static final long SIZE = LAYOUT.byteSize();

    /** The offset of {@code wr_id}. */
    public static final long WR_ID = offset(LAYOUT, "wr_id");

    /** The offset of {@code next}. */
    public static final long NEXT = offset(LAYOUT, "next");

    /** The offset of {@code sg_list}. */
    public static final long SG_LIST = offset(LAYOUT, "sg_list");

    /** The offset of {@code num_sge}. */
    public static final long NUM_SGE = offset(LAYOUT, "num_sge");

    /** The offset of {@code opcode}. */
    public static final long OPCODE = offset(LAYOUT, "opcode");

    /** The offset of {@code send_flags}. */
    public static final long SEND_FLAGS = offset(LAYOUT, "send_flags");

    /** The offset of {@code imm_data}. */
    public static final long IMM_DATA = offset(LAYOUT, "imm_data");

    /** The offset of {@code invalidate_rkey}. */
    public static final long INVALIDATE_RKEY = offset(LAYOUT, "invalidate_rkey");

    /** The offset of {@code wr.rdma.remote_addr}. */
    public static final long WR_RDMA_REMOTE_ADDR = offset(LAYOUT, "wr", "rdma", "remote_addr");

    /** The offset of {@code wr.rdma.rkey}. */
    public static final long WR_RDMA_RKEY = offset(LAYOUT, "wr", "rdma", "rkey");

    /** The offset of {@code wr.atomic.remote_addr}. */
    public static final long WR_ATOMIC_REMOTE_ADDR = offset(LAYOUT, "wr", "atomic", "remote_addr");

    /** The offset of {@code wr.atomic.compare_add}. */
    public static final long WR_ATOMIC_COMPARE_ADD = offset(LAYOUT, "wr", "atomic", "compare_add");

    /** The offset of {@code wr.atomic.swap}. */
    public static final long WR_ATOMIC_SWAP = offset(LAYOUT, "wr", "atomic", "swap");

    /** The offset of {@code wr.atomic.rkey}. */
    public static final long WR_ATOMIC_RKEY = offset(LAYOUT, "wr", "atomic", "rkey");

    /** The offset of {@code wr.ud.ah}. */
    public static final long WR_UD_AH = offset(LAYOUT, "wr", "ud", "ah");

    /** The offset of {@code wr.ud.remote_qpn}. */
    public static final long WR_UD_REMOTE_QPN = offset(LAYOUT, "wr", "ud", "remote_qpn");

    /** The offset of {@code wr.ud.remote_qkey}. */
    public static final long WR_UD_REMOTE_QKEY = offset(LAYOUT, "wr", "ud", "remote_qkey");

    private IbvSendWr()
    {
    }
}
