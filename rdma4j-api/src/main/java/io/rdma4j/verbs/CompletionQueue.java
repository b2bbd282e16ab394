package io.rdma4j.verbs;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A completion queue ({@code struct ibv_cq}). Thread-safe: any thread may poll, post or arm.
 */
public interface CompletionQueue extends AutoCloseable
{
    /** Polls without a channel that yield before {@link #poll(WorkCompletion[], long, TimeUnit)} parks. */
    int YIELDS_BEFORE_PARKING = 8;
    /** How long that poll parks between polls once it has yielded enough. */
    long IDLE_PARK_NS = 50_000;

    /**
     * @return the context it belongs to.
     */
    Context context();

    /**
     * @return the channel it reports to, or null.
     */
    CompletionChannel channel();

    /**
     * @return its number of entries.
     */
    int capacity();

    /**
     * Take up to {@code wcs.length} completions ({@code ibv_poll_cq}). Allocates nothing.
     *
     * @param wcs where to write them.
     * @return how many were written, 0 if none.
     */
    int poll(WorkCompletion[] wcs);

    /**
     * Take up to {@code max} completions into the start of {@code wcs}.
     *
     * @param wcs where to write them.
     * @param max at most this many (≤ wcs.length).
     * @return how many were written.
     */
    int poll(WorkCompletion[] wcs, int max);

    /**
     * Take completions, waiting up to a timeout for the first: the arm, re-poll, wait, acknowledge
     * sequence of a completion channel in one call. With a channel, the thread sleeps on it between
     * completions and costs nothing while it waits; the channel must serve this CQ alone, because an
     * event of another CQ taken here would be lost to that CQ's waiter (it is refused with EINVAL, and
     * acknowledged). Without a channel, it polls, yielding a few times and then parking 50 µs between
     * polls. Allocates nothing.
     *
     * @param wcs     where to write them.
     * @param timeout how long to wait for the first; 0 polls once, a negative value waits for ever.
     * @param unit    the timeout's unit.
     * @return how many were written, 0 if the time ran out.
     * @throws InterruptedException if interrupted while waiting.
     * @throws RdmaException        EINVAL if the channel announced another CQ.
     */
    default int poll(final WorkCompletion[] wcs, final long timeout, final TimeUnit unit) throws InterruptedException
    {
        int n = poll(wcs);
        if (n > 0 || timeout == 0)
        {
            return n;
        }
        final long deadline = timeout < 0 ? Long.MAX_VALUE : System.nanoTime() + unit.toNanos(timeout);
        final CompletionChannel channel = channel();
        int idlePolls = 0;
        while (true)
        {
            if (Thread.interrupted())
            {
                throw new InterruptedException("interrupted while waiting for a completion");
            }
            if (channel != null)
            {
                // arm first, then look again: a completion that came before the arm is seen now, one
                // after it puts an event on the channel
                requestNotify(false);
                n = poll(wcs);
                if (n > 0)
                {
                    return n;
                }
                final long left = deadline == Long.MAX_VALUE ? -1 : deadline - System.nanoTime();
                if (left == 0 || left < -1)
                {
                    return 0;
                }
                final CompletionQueue announced = channel.getCqEvent(left, TimeUnit.NANOSECONDS);
                if (announced == null)
                {
                    return 0;
                }
                announced.ackEvents(1);
                RdmaException.check(announced == this, Errno.EINVAL, "the completion channel announced another " +
                    "CQ: poll with a timeout needs a channel that serves this CQ alone");
            }
            else
            {
                if (System.nanoTime() >= deadline)
                {
                    return 0;
                }
                // a few yields catch a completion that is on its way; then sleep, lightly
                if (idlePolls++ < YIELDS_BEFORE_PARKING)
                {
                    Thread.yield();
                }
                else
                {
                    LockSupport.parkNanos(IDLE_PARK_NS);
                }
            }
            n = poll(wcs);
            if (n > 0)
            {
                return n;
            }
        }
    }

    /**
     * Arm the CQ ({@code ibv_req_notify_cq}): the next completion (or the next solicited one)
     * puts one event on the channel.
     *
     * @param solicitedOnly true to fire only for solicited receives and for errors.
     * @throws RdmaException EINVAL if the CQ has no channel.
     */
    void requestNotify(boolean solicitedOnly);

    /**
     * Acknowledge events taken from the channel ({@code ibv_ack_cq_events}).
     *
     * @param count how many.
     */
    void ackEvents(int count);

    /**
     * @return completions lost because the CQ was full (an overrun puts the CQ in error).
     */
    long overruns();

    /**
     * Destroy the CQ ({@code ibv_destroy_cq}).
     *
     * @throws RdmaException EBUSY while QPs use it or events taken from the channel are not
     *                       acknowledged.
     */
    @Override
    void close();
}
