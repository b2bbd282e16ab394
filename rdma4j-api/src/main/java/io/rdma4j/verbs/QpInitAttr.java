package io.rdma4j.verbs;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What a queue pair is created with ({@code struct ibv_qp_init_attr}).
 *
 * @param type    RC, UC or UD.
 * @param sendCq  where send completions go.
 * @param recvCq  where receive completions go.
 * @param srq     a shared receive queue to draw receives from, or null.
 * @param cap     queue sizes.
 * @param sqSigAll true to complete every send, whatever its SIGNALED flag.
 * @param createFlags {@code create_flags}: how the QP behaves beyond its type; none by default.
 */
public record QpInitAttr(
    QpType type, CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq, QpCap cap, boolean sqSigAll,
    Set<QpCreateFlag> createFlags)
{
    /**
     * Checks the parts that are always required; the flags are kept as an unmodifiable copy.
     */
    public QpInitAttr
    {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(cap, "cap");
        createFlags = createFlags == null || createFlags.isEmpty() ? Set.of() : Collections.unmodifiableSet(
            EnumSet.copyOf(createFlags));
    }

    /**
     * Attributes without create flags, as {@code ibv_qp_init_attr} has none.
     *
     * @param type     RC, UC or UD.
     * @param sendCq   where send completions go.
     * @param recvCq   where receive completions go.
     * @param srq      a shared receive queue to draw receives from, or null.
     * @param cap      queue sizes.
     * @param sqSigAll true to complete every send, whatever its SIGNALED flag.
     */
    public QpInitAttr(
        final QpType type, final CompletionQueue sendCq, final CompletionQueue recvCq, final SharedReceiveQueue srq,
        final QpCap cap, final boolean sqSigAll)
    {
        this(type, sendCq, recvCq, srq, cap, sqSigAll, Set.of());
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
        return new QpInitAttr(type, sendCq, recvCq, sharedReceiveQueue, cap, sqSigAll, createFlags);
    }

    /**
     * @param receiveCq the CQ for receive completions.
     * @return a copy with that receive CQ.
     */
    public QpInitAttr withRecvCq(final CompletionQueue receiveCq)
    {
        return new QpInitAttr(type, sendCq, receiveCq, srq, cap, sqSigAll, createFlags);
    }

    /**
     * @param signalAll true to complete every send.
     * @return a copy with that setting.
     */
    public QpInitAttr withSqSigAll(final boolean signalAll)
    {
        return new QpInitAttr(type, sendCq, recvCq, srq, cap, signalAll, createFlags);
    }

    /**
     * @param flags the create flags, replacing any there were.
     * @return a copy with those flags.
     */
    public QpInitAttr withCreateFlags(final QpCreateFlag... flags)
    {
        return new QpInitAttr(type, sendCq, recvCq, srq, cap, sqSigAll, Set.copyOf(Arrays.asList(flags)));
    }

    /**
     * @param flag a create flag.
     * @return true if the QP is created with it.
     */
    public boolean has(final QpCreateFlag flag)
    {
        return createFlags.contains(flag);
    }
}
