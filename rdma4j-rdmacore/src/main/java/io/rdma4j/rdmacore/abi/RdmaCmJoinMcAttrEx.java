package io.rdma4j.rdmacore.abi;

import java.lang.foreign.StructLayout;

import static io.rdma4j.rdmacore.abi.CLayout.*;

/**
 * {@code struct rdma_cm_join_mc_attr_ex}: the group and the join type of {@code rdma_join_multicast_ex}.
 */
public final class RdmaCmJoinMcAttrEx
{
    /** The layout, member names as in rdma-core's headers. */
    public static final StructLayout LAYOUT = struct("rdma_cm_join_mc_attr_ex",
        U32.withName("comp_mask"), U32.withName("join_flags"), POINTER.withName("addr"));

    /** The offset of {@code comp_mask}. */
    public static final long COMP_MASK = offset(LAYOUT, "comp_mask");
    /** The offset of {@code join_flags}. */
    public static final long JOIN_FLAGS = offset(LAYOUT, "join_flags");
    /** The offset of {@code addr}. */
    public static final long ADDR = offset(LAYOUT, "addr");

    /** {@code RDMA_CM_JOIN_MC_ATTR_ADDRESS}: {@code addr} is set. */
    public static final int ATTR_ADDRESS = 1;
    /** {@code RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS}: {@code join_flags} is set. */
    public static final int ATTR_JOIN_FLAGS = 1 << 1;
    /** {@code RDMA_MC_JOIN_FLAG_FULLMEMBER}. */
    public static final int FLAG_FULLMEMBER = 0;
    /** {@code RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER}. */
    public static final int FLAG_SENDONLY_FULLMEMBER = 1;

    private RdmaCmJoinMcAttrEx()
    {
    }
}
