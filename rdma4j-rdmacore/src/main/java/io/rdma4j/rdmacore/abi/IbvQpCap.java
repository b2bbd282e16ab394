package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_qp_cap}: a QP's queue sizes.
 */
public final class IbvQpCap
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_qp_cap",
        U32.withName("max_send_wr"), U32.withName("max_recv_wr"), U32.withName("max_send_sge"),
        U32.withName("max_recv_sge"), U32.withName("max_inline_data"));

    private IbvQpCap()
    {
    }
}
