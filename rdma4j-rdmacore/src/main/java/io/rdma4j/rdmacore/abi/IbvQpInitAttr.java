package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_qp_init_attr}, for {@code ibv_create_qp}; the provider writes the sizes it granted back
 * into {@code cap}.
 */
public final class IbvQpInitAttr
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_qp_init_attr",
        POINTER.withName("qp_context"), POINTER.withName("send_cq"), POINTER.withName("recv_cq"),
        POINTER.withName("srq"), IbvQpCap.LAYOUT.withName("cap"), U32.withName("qp_type"), U32.withName("sq_sig_all"));

    private IbvQpInitAttr()
    {
    }
}
