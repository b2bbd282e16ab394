package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_cq}: Java reads its {@code context} (for the ops table) and {@code cqe}.
 */
public final class IbvCq
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_cq",
        POINTER.withName("context"), POINTER.withName("channel"), POINTER.withName("cq_context"),
        U32.withName("handle"), U32.withName("cqe"), opaque("mutex", Pthread.MUTEX_SIZE, 8),
        opaque("cond", Pthread.COND_SIZE, 8), U32.withName("comp_events_completed"),
        U32.withName("async_events_completed"));

    /** The offset of {@code context}. */
    public static final long CONTEXT = offset(LAYOUT, "context");

    /** The offset of {@code cqe}. */
    public static final long CQE = offset(LAYOUT, "cqe");

    private IbvCq()
    {
    }
}
