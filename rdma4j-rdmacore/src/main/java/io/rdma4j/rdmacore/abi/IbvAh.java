package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_ah}.
 */
public final class IbvAh
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_ah", POINTER.withName("context"), POINTER.withName("pd"), U32.withName("handle"));

    private IbvAh()
    {
    }
}
