package io.rdma4j.verbs;

import java.util.concurrent.TimeUnit;

/**
 * A completion channel ({@code struct ibv_comp_channel}): where armed CQs announce new
 * completions, so a thread can sleep until there is work.
 */
public interface CompletionChannel extends AutoCloseable, Waitable
{
    /**
     * @return the context it belongs to.
     */
    Context context();

    /**
     * Wait for a CQ event ({@code ibv_get_cq_event}). Each event must be acknowledged with
     * {@link CompletionQueue#ackEvents(int)}, and the CQ re-armed to get another.
     *
     * @param timeout how long to wait; 0 does not wait, a negative value waits for ever (as the
     *                event channel's {@code getEvent} does).
     * @param unit    the timeout's unit.
     * @return the CQ that had a completion, or null on timeout or after {@link #wakeup()}.
     * @throws InterruptedException if interrupted while waiting.
     */
    CompletionQueue getCqEvent(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Make a {@link #getCqEvent} waiting now return null at once; with none waiting, the next one does, however
     * many wake-ups came before it. Safe from any thread: it lets an event loop sleep on this channel and still
     * be woken for work that comes from elsewhere (libibverbs has no such call; the native provider writes an
     * eventfd that its wait polls beside the channel's descriptor).
     */
    void wakeup();

    /**
     * Destroy the channel ({@code ibv_destroy_comp_channel}).
     *
     * @throws RdmaException EBUSY while CQs still use it.
     */
    @Override
    void close();
}
