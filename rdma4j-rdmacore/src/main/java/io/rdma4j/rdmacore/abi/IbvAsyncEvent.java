package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_async_event}, filled by {@code ibv_get_async_event}.
 */
public final class IbvAsyncEvent
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_async_event",
        union("element", POINTER.withName("cq"), POINTER.withName("qp"), POINTER.withName("srq"),
            POINTER.withName("wq"), U32.withName("port_num")),
        U32.withName("event_type"));

    private IbvAsyncEvent()
    {
    }
}
