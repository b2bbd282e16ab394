package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_port_attr}, filled by {@code ibv_query_port}.
 */
public final class IbvPortAttr
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_port_attr",
        U32.withName("state"), U32.withName("max_mtu"), U32.withName("active_mtu"), U32.withName("gid_tbl_len"),
        U32.withName("port_cap_flags"), U32.withName("max_msg_sz"), U32.withName("bad_pkey_cntr"),
        U32.withName("qkey_viol_cntr"), U16.withName("pkey_tbl_len"), U16.withName("lid"), U16.withName("sm_lid"),
        U8.withName("lmc"), U8.withName("max_vl_num"), U8.withName("sm_sl"), U8.withName("subnet_timeout"),
        U8.withName("init_type_reply"), U8.withName("active_width"), U8.withName("active_speed"),
        U8.withName("phys_state"), U8.withName("link_layer"), U8.withName("flags"),
        U16.withName("port_cap_flags2"));

    private IbvPortAttr()
    {
    }
}
