package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_srq_attr}.
 */
public final class IbvSrqAttr
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_srq_attr", U32.withName("max_wr"), U32.withName("max_sge"), U32.withName("srq_limit"));

    private IbvSrqAttr()
    {
    }
}
