package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_context_ops} and {@code struct ibv_context}. The data path calls through the ops table as
 * verbs.h's {@code static inline} functions do: {@code ibv_post_send} is {@code qp->context->ops.post_send}, and
 * so on. The {@code _compat_} slots are placeholders kept for the ABI; only the named data-path slots are read.
 */
public final class IbvContext
{
    /** The layout of the ops table, one function pointer per slot. */
    public static final StructLayout OPS_LAYOUT = struct("ibv_context_ops",
        POINTER.withName("_compat_query_device"), POINTER.withName("_compat_query_port"),
        POINTER.withName("_compat_alloc_pd"), POINTER.withName("_compat_dealloc_pd"),
        POINTER.withName("_compat_reg_mr"), POINTER.withName("_compat_rereg_mr"),
        POINTER.withName("_compat_dereg_mr"), POINTER.withName("alloc_mw"), POINTER.withName("bind_mw"),
        POINTER.withName("dealloc_mw"), POINTER.withName("_compat_create_cq"), POINTER.withName("poll_cq"),
        POINTER.withName("req_notify_cq"), POINTER.withName("_compat_cq_event"),
        POINTER.withName("_compat_resize_cq"), POINTER.withName("_compat_destroy_cq"),
        POINTER.withName("_compat_create_srq"), POINTER.withName("_compat_modify_srq"),
        POINTER.withName("_compat_query_srq"), POINTER.withName("_compat_destroy_srq"),
        POINTER.withName("post_srq_recv"), POINTER.withName("_compat_create_qp"),
        POINTER.withName("_compat_query_qp"), POINTER.withName("_compat_modify_qp"),
        POINTER.withName("_compat_destroy_qp"), POINTER.withName("post_send"), POINTER.withName("post_recv"),
        POINTER.withName("_compat_create_ah"), POINTER.withName("_compat_destroy_ah"),
        POINTER.withName("_compat_attach_mcast"), POINTER.withName("_compat_detach_mcast"),
        POINTER.withName("_compat_async_event"));

    /** The layout of the context. */
    public static final StructLayout LAYOUT = struct("ibv_context",
        POINTER.withName("device"), OPS_LAYOUT.withName("ops"), U32.withName("cmd_fd"), U32.withName("async_fd"),
        U32.withName("num_comp_vectors"), opaque("mutex", Pthread.MUTEX_SIZE, 8), POINTER.withName("abi_compat"));

    /** The offset of {@code ops.poll_cq}. */
    public static final long OPS_POLL_CQ = offset(LAYOUT, "ops", "poll_cq");

    /** The offset of {@code ops.req_notify_cq}. */
    public static final long OPS_REQ_NOTIFY_CQ = offset(LAYOUT, "ops", "req_notify_cq");

    /** The offset of {@code ops.post_send}. */
    public static final long OPS_POST_SEND = offset(LAYOUT, "ops", "post_send");

    /** The offset of {@code ops.post_recv}. */
    public static final long OPS_POST_RECV = offset(LAYOUT, "ops", "post_recv");

    /** The offset of {@code ops.post_srq_recv}. */
    public static final long OPS_POST_SRQ_RECV = offset(LAYOUT, "ops", "post_srq_recv");

    /** The offset of {@code async_fd}. */
    public static final long ASYNC_FD = offset(LAYOUT, "async_fd");

    /** The offset of {@code num_comp_vectors}. */
    public static final long NUM_COMP_VECTORS = offset(LAYOUT, "num_comp_vectors");

    private IbvContext()
    {
    }
}
