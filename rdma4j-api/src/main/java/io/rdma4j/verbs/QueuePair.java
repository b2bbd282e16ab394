package io.rdma4j.verbs;

import java.util.Map;
import java.util.Set;

/**
 * A queue pair ({@code struct ibv_qp}). Thread-safe as in libibverbs: several threads may post
 * to it and modify it.
 */
public interface QueuePair extends AutoCloseable
{
    /**
     * @return the QP number.
     */
    int qpNum();

    /**
     * @return RC, UC or UD.
     */
    QpType type();

    /**
     * @return the current state.
     */
    QpState state();

    /**
     * @return the PD it was made in.
     */
    ProtectionDomain pd();

    /**
     * @return the CQ for sends.
     */
    CompletionQueue sendCq();

    /**
     * @return the CQ for receives.
     */
    CompletionQueue recvCq();

    /**
     * @return the SRQ it draws receives from, or null.
     */
    SharedReceiveQueue srq();

    /**
     * @return the capabilities it got (at least those asked for).
     */
    QpCap cap();

    /**
     * Modify the attributes that {@code attr} has set ({@code ibv_modify_qp}).
     *
     * @param attr the attributes; its mask says which apply.
     * @throws RdmaException EINVAL for an illegal transition, a missing required attribute or one
     *                       not allowed for the transition (the message names it).
     */
    void modify(QpAttr attr);

    /**
     * Modify the attributes named by {@code mask}.
     *
     * @param attr the values.
     * @param mask which apply.
     */
    void modify(QpAttr attr, Set<QpAttrMask> mask);

    /**
     * @return the current attributes ({@code ibv_query_qp}), all fields filled.
     */
    QpAttr query();

    /**
     * Post a chain of send work requests ({@code ibv_post_send}). Allocates nothing.
     *
     * @param wr the first request.
     * @throws PostException naming the first refused request and why; those before it were
     *                       posted.
     */
    void postSend(SendWr wr);

    /**
     * Post a chain of receive work requests ({@code ibv_post_recv}). Allocates nothing.
     *
     * @param wr the first request.
     * @throws PostException naming the first refused request; those before it were posted.
     */
    void postRecv(RecvWr wr);

    /**
     * Attach to a multicast group ({@code ibv_attach_mcast}): the QP receives a copy of every
     * message for the group that reaches the device. Local only: the fabric join is the
     * connection manager's. Attaching twice is a no-op. Legal in any state.
     *
     * @param gid the multicast GID.
     * @param lid the multicast LID (unused on RoCE: 0).
     * @throws RdmaException EINVAL if the QP is not UD or the GID not multicast; ENOSYS if the
     *                       device has no multicast; ENOMEM beyond a multicast limit.
     */
    void attachMulticast(Gid gid, int lid);

    /**
     * Detach from a multicast group ({@code ibv_detach_mcast}).
     *
     * @param gid the GID given to attach.
     * @param lid the LID given to attach.
     * @throws RdmaException EINVAL if the QP is not attached to that group.
     */
    void detachMulticast(Gid gid, int lid);

    /**
     * @return the QP's counters by name.
     */
    Map<String, Long> counters();

    /**
     * Destroy the QP ({@code ibv_destroy_qp}); it leaves its multicast groups. Work requests still
     * outstanding complete no more. Its CQs, PD, SRQ and memory regions stay the application's to
     * close afterwards; a QP made on a connection-manager id is destroyed with
     * {@link io.rdma4j.cm.CmId#destroyQp()} instead.
     */
    @Override
    void close();
}
