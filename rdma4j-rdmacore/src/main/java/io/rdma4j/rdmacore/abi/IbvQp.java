package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_qp}: Java reads its number, type and state from it.
 */
public final class IbvQp
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_qp",
        POINTER.withName("context"), POINTER.withName("qp_context"), POINTER.withName("pd"),
        POINTER.withName("send_cq"), POINTER.withName("recv_cq"), POINTER.withName("srq"), U32.withName("handle"),
        U32.withName("qp_num"), U32.withName("state"), U32.withName("qp_type"),
        opaque("mutex", Pthread.MUTEX_SIZE, 8), opaque("cond", Pthread.COND_SIZE, 8),
        U32.withName("events_completed"));

    /** The offset of {@code context}. */
    public static final long CONTEXT = offset(LAYOUT, "context");

    /** The offset of {@code pd}. */
    public static final long PD = offset(LAYOUT, "pd");

    /** The offset of {@code send_cq}. */
    public static final long SEND_CQ = offset(LAYOUT, "send_cq");

    /** The offset of {@code recv_cq}. */
    public static final long RECV_CQ = offset(LAYOUT, "recv_cq");

    /** The offset of {@code srq}. */
    public static final long SRQ = offset(LAYOUT, "srq");

    /** The offset of {@code qp_num}. */
    public static final long QP_NUM = offset(LAYOUT, "qp_num");

    /** The offset of {@code state}. */
    public static final long STATE = offset(LAYOUT, "state");

    /** The offset of {@code qp_type}. */
    public static final long QP_TYPE = offset(LAYOUT, "qp_type");

    private IbvQp()
    {
    }
}
