package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_qp_attr}, for {@code ibv_modify_qp} and {@code ibv_query_qp}.
 */
public final class IbvQpAttr
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_qp_attr",
        U32.withName("qp_state"), U32.withName("cur_qp_state"), U32.withName("path_mtu"),
        U32.withName("path_mig_state"), U32.withName("qkey"), U32.withName("rq_psn"), U32.withName("sq_psn"),
        U32.withName("dest_qp_num"), U32.withName("qp_access_flags"), IbvQpCap.LAYOUT.withName("cap"),
        IbvAhAttr.LAYOUT.withName("ah_attr"), IbvAhAttr.LAYOUT.withName("alt_ah_attr"), U16.withName("pkey_index"),
        U16.withName("alt_pkey_index"), U8.withName("en_sqd_async_notify"), U8.withName("sq_draining"),
        U8.withName("max_rd_atomic"), U8.withName("max_dest_rd_atomic"), U8.withName("min_rnr_timer"),
        U8.withName("port_num"), U8.withName("timeout"), U8.withName("retry_cnt"), U8.withName("rnr_retry"),
        U8.withName("alt_port_num"), U8.withName("alt_timeout"), U32.withName("rate_limit"));

    private IbvQpAttr()
    {
    }
}
