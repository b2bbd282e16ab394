package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvContext;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A device context's data-path functions, read once from {@code ctx->ops} when the context is opened: what
 * verbs.h's {@code static inline} {@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_post_srq_recv},
 * {@code ibv_poll_cq} and {@code ibv_req_notify_cq} call. One downcall handle per C signature serves every
 * context: each takes the provider's function pointer as its first argument, so the handles are constants the
 * JIT inlines, and a call passes only segments the QP or CQ already holds (nothing allocated per call).
 */
public final class OpsTable
{
    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)}. */
    static final MethodHandle POLL_CQ = Linker.nativeLinker().downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), Linker.Option.critical(false));

    /** {@code int (*req_notify_cq)(struct ibv_cq *, int solicited_only)}. */
    static final MethodHandle REQ_NOTIFY_CQ = Linker.nativeLinker().downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));

    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)}, and the same
     * shape for {@code post_recv} and {@code post_srq_recv}. */
    static final MethodHandle POST = Linker.nativeLinker().downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    final MemorySegment pollCq;
    final MemorySegment reqNotifyCq;
    final MemorySegment postSend;
    final MemorySegment postRecv;
    final MemorySegment postSrqRecv;

    /**
     * @param context a {@code struct ibv_context *}, sized to its layout.
     */
    OpsTable(final MemorySegment context)
    {
        pollCq = context.get(ADDRESS, IbvContext.OPS_POLL_CQ);
        reqNotifyCq = context.get(ADDRESS, IbvContext.OPS_REQ_NOTIFY_CQ);
        postSend = context.get(ADDRESS, IbvContext.OPS_POST_SEND);
        postRecv = context.get(ADDRESS, IbvContext.OPS_POST_RECV);
        postSrqRecv = context.get(ADDRESS, IbvContext.OPS_POST_SRQ_RECV);
    }
}
