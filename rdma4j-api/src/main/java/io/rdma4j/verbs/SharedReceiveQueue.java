package io.rdma4j.verbs;

/**
 * A shared receive queue ({@code struct ibv_srq}): one pool of receives for many QPs.
 */
public interface SharedReceiveQueue extends AutoCloseable
{
    /**
     * @return the PD it was made in.
     */
    ProtectionDomain pd();

    /**
     * Post a chain of receives ({@code ibv_post_srq_recv}).
     *
     * @param wr the first request.
     */
    void postRecv(RecvWr wr);

    /**
     * Change the limit ({@code ibv_modify_srq} with IBV_SRQ_LIMIT) to arm the limit event.
     *
     * @param srqLimit fire SRQ_LIMIT_REACHED once when fewer receives remain; 0 disarms.
     */
    void modifyLimit(int srqLimit);

    /**
     * @return current sizes and limit ({@code ibv_query_srq}).
     */
    SrqAttr query();

    /**
     * Destroy it ({@code ibv_destroy_srq}).
     *
     * @throws RdmaException EBUSY while QPs use it.
     */
    @Override
    void close();
}
