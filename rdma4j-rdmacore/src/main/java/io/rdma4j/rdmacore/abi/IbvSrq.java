package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_srq}.
 */
public final class IbvSrq
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_srq",
        POINTER.withName("context"), POINTER.withName("srq_context"), POINTER.withName("pd"), U32.withName("handle"),
        opaque("mutex", Pthread.MUTEX_SIZE, 8), opaque("cond", Pthread.COND_SIZE, 8),
        U32.withName("events_completed"));

    /** The offset of {@code context}. */
    public static final long CONTEXT = offset(LAYOUT, "context");

    private IbvSrq()
    {
    }
}
