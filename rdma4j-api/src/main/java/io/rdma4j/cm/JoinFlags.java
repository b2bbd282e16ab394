package io.rdma4j.cm;

/**
 * Multicast join types ({@code enum rdma_cm_join_mc_attr_mask} flags).
 */
public enum JoinFlags
{
    /** Create the group if needed, send to it and receive from it; on RoCE an IGMP join. */
    FULLMEMBER,
    /** Create the group if needed and send to it; never receive; no IGMP join, no attach. */
    SENDONLY_FULLMEMBER
}
