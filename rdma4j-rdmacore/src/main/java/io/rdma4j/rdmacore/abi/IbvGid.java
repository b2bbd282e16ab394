package io.rdma4j.rdmacore.abi;

import java.lang.foreign.UnionLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code union ibv_gid}: 16 raw bytes, in network order as on the wire.
 */
public final class IbvGid
{
    /** The layout, member names as in rdma-core's headers. */
    public static final UnionLayout LAYOUT = union("ibv_gid",
        chars("raw", 16),
        struct(null, U64.withName("subnet_prefix"), U64.withName("interface_id")).withName("global"));

    /** Its size in bytes, the stride of an array of it. */
    public static final long SIZE = LAYOUT.byteSize();

    private IbvGid()
    {
    }
}
