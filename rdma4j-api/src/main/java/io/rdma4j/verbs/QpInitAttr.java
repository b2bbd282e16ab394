package io.rdma4j.verbs;

import java.util.Objects;

/**
 * What a queue pair is created with ({@code struct ibv_qp_init_attr}).
 *
 * @param type    RC, UC or UD.
 * @param sendCq  where send completions go.
 * @param recvCq  where receive completions go.
 * @param srq     a shared receive queue to draw receives from, or null.
 * @param cap     queue sizes.
 * @param sqSigAll true to complete every send, whatever its SIGNALED flag.
 */
public record QpInitAttr(
    QpType type, CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq, QpCap cap, boolean sqSigAll)
{
    /**
     * Checks the parts that are always required.
     */
    public QpInitAttr
    {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(cap, "cap");
    }

    /**
     * @param type QP type.
     * @param cq   the CQ for both sends and receives.
     * @param cap  queue sizes.
     * @return the attributes, no SRQ, sends signaled per work request.
     */
    public static QpInitAttr of(final QpType type, final CompletionQueue cq, final QpCap cap)
    {
        return new QpInitAttr(type, cq, cq, null, cap, false);
    }

    /**
     * @param sharedReceiveQueue the SRQ to draw receives from.
     * @return a copy with that SRQ.
     */
    public QpInitAttr withSrq(final SharedReceiveQueue sharedReceiveQueue)
    {
        return new QpInitAttr(type, sendCq, recvCq, sharedReceiveQueue, cap, sqSigAll);
    }

    /**
     * @param receiveCq the CQ for receive completions.
     * @return a copy with that receive CQ.
     */
    public QpInitAttr withRecvCq(final CompletionQueue receiveCq)
    {
        return new QpInitAttr(type, sendCq, receiveCq, srq, cap, sqSigAll);
    }

    /**
     * @param signalAll true to complete every send.
     * @return a copy with that setting.
     */
    public QpInitAttr withSqSigAll(final boolean signalAll)
    {
        return new QpInitAttr(type, sendCq, recvCq, srq, cap, signalAll);
    }
}
