package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_ah_attr}: an address vector, for {@code ibv_create_ah} and a connected QP's path.
 */
public final class IbvAhAttr
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_ah_attr",
        IbvGlobalRoute.LAYOUT.withName("grh"), U16.withName("dlid"), U8.withName("sl"), U8.withName("src_path_bits"),
        U8.withName("static_rate"), U8.withName("is_global"), U8.withName("port_num"));

    /** Its size in bytes, the stride of an array of it. */
    public static final long SIZE = LAYOUT.byteSize();

    private IbvAhAttr()
    {
    }
}
