package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_sge}: one gather/scatter element.
 */
public final class IbvSge
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_sge", U64.withName("addr"), U32.withName("length"), U32.withName("lkey"));

    /** Its size in bytes, the stride of an array of it. */
    public static final long SIZE = LAYOUT.byteSize();

    /** The offset of {@code addr}. */
    public static final long ADDR = offset(LAYOUT, "addr");

    /** The offset of {@code length}. */
    public static final long LENGTH = offset(LAYOUT, "length");

    /** The offset of {@code lkey}. */
    public static final long LKEY = offset(LAYOUT, "lkey");

    private IbvSge()
    {
    }
}
