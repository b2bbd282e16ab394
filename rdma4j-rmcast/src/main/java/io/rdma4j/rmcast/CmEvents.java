package io.rdma4j.rmcast;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.EventChannel;

import java.util.concurrent.TimeUnit;

/**
 * The publication's and the subscription's look at their connection manager's channel from their duty cycles:
 * never waits, and an interrupt is kept for the caller's loop rather than thrown from a cycle.
 */
final class CmEvents
{
    private CmEvents()
    {
    }

    /**
     * @param channel the event channel.
     * @return the next event, unacknowledged, or null if none is there (or the thread was interrupted).
     */
    static CmEvent next(final EventChannel channel)
    {
        try
        {
            return channel.getEvent(0, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
