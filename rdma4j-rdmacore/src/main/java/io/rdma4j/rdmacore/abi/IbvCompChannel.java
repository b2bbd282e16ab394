package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct ibv_comp_channel}: Java reads its {@code fd} to wait on it.
 */
public final class IbvCompChannel
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("ibv_comp_channel", POINTER.withName("context"), U32.withName("fd"), U32.withName("refcnt"));

    /** The offset of {@code fd}. */
    public static final long FD = offset(LAYOUT, "fd");

    private IbvCompChannel()
    {
    }
}
