package io.rdma4j.rdmacore.abi;

import java.lang.foreign.GroupLayout;
import java.util.List;

/**
 * Every C struct the Java side declares, for {@link LayoutTest}: add a new layout here and the test checks
 * each of its named members against the C compiler. The headers are the ones the C program includes.
 */
final class AbiLayouts
{
    /** The headers of rdma-core the layouts come from (libibverbs-dev, librdmacm-dev). */
    static final List<String> HEADERS = List.of("infiniband/verbs.h", "rdma/rdma_cma.h");

    /** The layouts, each named with its C tag. */
    static final List<GroupLayout> LAYOUTS = List.of(
        // libibverbs (infiniband/verbs.h)
        IbvGid.LAYOUT, IbvDeviceAttr.LAYOUT, IbvPortAttr.LAYOUT, IbvGlobalRoute.LAYOUT, IbvAhAttr.LAYOUT,
        IbvQpCap.LAYOUT, IbvQpInitAttr.LAYOUT, IbvQpAttr.LAYOUT, IbvSge.LAYOUT, IbvRecvWr.LAYOUT,
        IbvMwBindInfo.LAYOUT, IbvSendWr.LAYOUT, IbvWc.LAYOUT, IbvSrqAttr.LAYOUT, IbvSrqInitAttr.LAYOUT,
        IbvAsyncEvent.LAYOUT, IbvPd.LAYOUT, IbvMr.LAYOUT, IbvAh.LAYOUT, IbvCompChannel.LAYOUT, IbvCq.LAYOUT,
        IbvQp.LAYOUT, IbvSrq.LAYOUT, IbvContext.OPS_LAYOUT, IbvContext.LAYOUT,
        // librdmacm (rdma/rdma_cma.h)
        RdmaConnParam.LAYOUT, RdmaUdParam.LAYOUT, RdmaCmEvent.LAYOUT, RdmaCmJoinMcAttrEx.LAYOUT,
        RdmaCmId.IB_ADDR_LAYOUT, RdmaCmId.ADDR_LAYOUT, RdmaCmId.ROUTE_LAYOUT, RdmaCmId.LAYOUT
    );

    private AbiLayouts()
    {
    }
}
