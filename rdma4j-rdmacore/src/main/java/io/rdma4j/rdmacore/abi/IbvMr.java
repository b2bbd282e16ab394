package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_mr}: what {@code ibv_reg_mr} returns; Java reads the keys from it.
 */
public final class IbvMr
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_mr",
        POINTER.withName("context"), POINTER.withName("pd"), POINTER.withName("addr"), U64.withName("length"),
        U32.withName("handle"), U32.withName("lkey"), U32.withName("rkey"));

    /** The offset of {@code lkey}. */
    public static final long LKEY = offset(LAYOUT, "lkey");

    /** The offset of {@code rkey}. */
    public static final long RKEY = offset(LAYOUT, "rkey");

    private IbvMr()
    {
    }
}
