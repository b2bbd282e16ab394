package io.rdma4j.verbs;

/**
 * Flags a queue pair is created with ({@code ibv_qp_create_flags}), those rdma4j knows.
 */
public enum QpCreateFlag
{
    /**
     * {@code IBV_QP_CREATE_BLOCK_SELF_MCAST_LB}: a multicast message this QP sends is not looped back
     * to this QP itself, though other QPs attached to the group on the same device, and other
     * devices, still get it. UD only: creating any other QP type with it fails with EINVAL.
     */
    BLOCK_SELF_MCAST_LB
}
