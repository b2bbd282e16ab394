package io.rdma4j.cm;

import java.util.concurrent.TimeUnit;

/**
 * A connection-manager event channel ({@code struct rdma_event_channel}): where the events of
 * its ids arrive, in order.
 */
public interface EventChannel extends AutoCloseable
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
     * @param timeout how long; 0 does not wait.
     * @param unit    the timeout's unit.
     * @return the event, or null on timeout.
     * @throws InterruptedException if interrupted while waiting.
     */
    CmEvent getEvent(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Destroy the channel ({@code rdma_destroy_event_channel}).
     *
     * @throws io.rdma4j.verbs.RdmaException EBUSY while ids use it.
     */
    @Override
    void close();
}
