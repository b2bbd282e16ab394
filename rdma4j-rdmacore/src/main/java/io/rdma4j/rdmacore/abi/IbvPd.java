package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_pd}.
 */
public final class IbvPd
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_pd", POINTER.withName("context"), U32.withName("handle"));

    private IbvPd()
    {
    }
}
