package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_mw_bind_info}, inside a send work request's {@code bind_mw}.
 */
public final class IbvMwBindInfo
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_mw_bind_info",
        POINTER.withName("mr"), U64.withName("addr"), U64.withName("length"), U32.withName("mw_access_flags"));

    private IbvMwBindInfo()
    {
    }
}
