package io.rdma4j.verbs;

/**
 * A completion queue ({@code struct ibv_cq}). Thread-safe: any thread may poll, post or arm.
 */
public interface CompletionQueue extends AutoCloseable
{
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
