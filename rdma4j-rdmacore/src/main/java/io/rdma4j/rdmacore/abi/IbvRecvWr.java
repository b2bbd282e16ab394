package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_recv_wr}: a receive work request.
 */
public final class IbvRecvWr
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_recv_wr",
        U64.withName("wr_id"), POINTER.withName("next"), POINTER.withName("sg_list"), U32.withName("num_sge"));

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

    private IbvRecvWr()
    {
    }
}
