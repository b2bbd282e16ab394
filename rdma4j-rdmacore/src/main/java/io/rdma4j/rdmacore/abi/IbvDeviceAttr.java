package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_device_attr}, filled by {@code ibv_query_device}.
 */
public final class IbvDeviceAttr
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_device_attr",
        chars("fw_ver", 64), U64.withName("node_guid"), U64.withName("sys_image_guid"), U64.withName("max_mr_size"),
        U64.withName("page_size_cap"), U32.withName("vendor_id"), U32.withName("vendor_part_id"),
        U32.withName("hw_ver"), U32.withName("max_qp"), U32.withName("max_qp_wr"), U32.withName("device_cap_flags"),
        U32.withName("max_sge"), U32.withName("max_sge_rd"), U32.withName("max_cq"), U32.withName("max_cqe"),
        U32.withName("max_mr"), U32.withName("max_pd"), U32.withName("max_qp_rd_atom"),
        U32.withName("max_ee_rd_atom"), U32.withName("max_res_rd_atom"), U32.withName("max_qp_init_rd_atom"),
        U32.withName("max_ee_init_rd_atom"), U32.withName("atomic_cap"), U32.withName("max_ee"),
        U32.withName("max_rdd"), U32.withName("max_mw"), U32.withName("max_raw_ipv6_qp"),
        U32.withName("max_raw_ethy_qp"), U32.withName("max_mcast_grp"), U32.withName("max_mcast_qp_attach"),
        U32.withName("max_total_mcast_qp_attach"), U32.withName("max_ah"), U32.withName("max_fmr"),
        U32.withName("max_map_per_fmr"), U32.withName("max_srq"), U32.withName("max_srq_wr"),
        U32.withName("max_srq_sge"), U16.withName("max_pkeys"), U8.withName("local_ca_ack_delay"),
        U8.withName("phys_port_cnt"));

    private IbvDeviceAttr()
    {
    }
}
