package io.rdma4j.cm;

import io.rdma4j.verbs.Errno;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A connection-manager event channel ({@code struct rdma_event_channel}): where the events of
 * its ids arrive, in order.
 */
public interface EventChannel extends AutoCloseable, io.rdma4j.verbs.Waitable
{
    /**
     * Create an id ({@code rdma_create_id}).
     *
     * @param context   a user object read back from the id in every event.
     * @param portSpace TCP (RC) or UDP (UD).
     * @return the id, in the idle state.
     */
    CmId createId(Object context, PortSpace portSpace);

    /**
     * Wait for the next event ({@code rdma_get_cm_event}).
     *
     * @param timeout how long; 0 does not wait, and a negative value waits for ever (until an event comes or the
     *                thread is interrupted).
     * @param unit    the timeout's unit.
     * @return the event, or null on timeout (never, when the timeout is negative).
     * @throws io.rdma4j.verbs.RdmaException EINVAL if the channel is closed.
     * @throws InterruptedException if interrupted while waiting.
     */
    CmEvent getEvent(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Wait for the next event and insist on its type: the get, check and ack that every step of a
     * connection-manager flow repeats. The event returned is the caller's to acknowledge.
     *
     * @param type    the event the flow expects next.
     * @param timeout how long; negative waits for ever.
     * @param unit    the timeout's unit.
     * @return the event, not yet acknowledged.
     * @throws CmEventException ETIMEDOUT if no event came in time; if another event came, the errno
     *                          its status stands for (ECONNREFUSED for REJECTED), with the event's type,
     *                          status, decoded status and private data. That event is acknowledged.
     * @throws InterruptedException if interrupted while waiting.
     */
    default CmEvent expect(final CmEventType type, final long timeout, final TimeUnit unit) throws InterruptedException
    {
        final CmEvent event = getEvent(timeout, unit);
        if (event == null)
        {
            throw new CmEventException(Errno.ETIMEDOUT, "no " + type.description() + " within " + timeout + " " +
                unit.name().toLowerCase(Locale.ROOT), type, null, 0, null);
        }
        if (event.type() == type)
        {
            return event;
        }
        final CmEventException failure = CmEventException.unexpected(type, event);
        event.ack();
        throw failure;
    }

    /**
     * Destroy the channel ({@code rdma_destroy_event_channel}).
     *
     * @throws io.rdma4j.verbs.RdmaException EBUSY while ids use it.
     */
    @Override
    void close();
}
