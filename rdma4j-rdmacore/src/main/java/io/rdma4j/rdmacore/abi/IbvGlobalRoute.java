package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_global_route}: the GRH half of an address vector.
 */
public final class IbvGlobalRoute
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_global_route",
        IbvGid.LAYOUT.withName("dgid"), U32.withName("flow_label"), U8.withName("sgid_index"),
        U8.withName("hop_limit"), U8.withName("traffic_class"));

    private IbvGlobalRoute()
    {
    }
}
