package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_srq_init_attr}, for {@code ibv_create_srq}.
 */
public final class IbvSrqInitAttr
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_srq_init_attr", POINTER.withName("srq_context"), IbvSrqAttr.LAYOUT.withName("attr"));

    private IbvSrqInitAttr()
    {
    }
}
