package io.rdma4j.rmcast;

/**
 * What happens to a subscription's sessions besides their messages; called on the thread that polls.
 */
public interface SubscriptionListener
{
    /** A listener that ignores everything. */
    SubscriptionListener NONE = new SubscriptionListener()
    {
    };

    /**
     * A publisher session's repair connection is up: delivery begins.
     *
     * @param sessionId     the session.
     * @param startSequence the first fragment this subscription delivers from it.
     */
    default void onImageAvailable(final int sessionId, final long startSequence)
    {
    }

    /**
     * Fragments that can no longer be delivered: they left the publisher's window before they were repaired,
     * or the publisher went away with them unsent to this member. The messages they belonged to are not
     * delivered; delivery goes on after them.
     *
     * @param sessionId     the session.
     * @param fromSequence  the first fragment lost.
     * @param toSequence    one past the last fragment lost.
     */
    default void onUnrecoverableLoss(final int sessionId, final long fromSequence, final long toSequence)
    {
    }

    /**
     * A session is gone: its publisher closed, died (no heartbeat within the timeout) or its repair connection
     * failed.
     *
     * @param sessionId the session.
     * @param position  the sequence delivery had reached.
     */
    default void onImageUnavailable(final int sessionId, final long position)
    {
    }
}
