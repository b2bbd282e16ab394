package io.rdma4j.cm.ep;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.verbs.RdmaException;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The event channel behind a listener and the endpoints it accepted, or behind one active endpoint: what
 * librdmacm's private channel of a synchronous id is. The ids of a listener's requests stay on the listener's
 * channel (the API has no {@code rdma_migrate_id}), so each id's events are sorted into a queue of its own, and
 * a thread waiting for one id's event files the others' for their owners. The channel closes with its last user.
 */
final class SyncChannel
{
    /** The longest one thread holds the channel while others may wait for their own ids' events. */
    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final EventChannel channel;
    private final ReentrantLock lock = new ReentrantLock(true);
    private final Map<CmId, ArrayDeque<CmEvent>> pending = new HashMap<>();
    private int users = 1;

    SyncChannel(final EventChannel channel)
    {
        this.channel = channel;
    }

    EventChannel channel()
    {
        return channel;
    }

    /**
     * Another endpoint shares the channel.
     */
    void retain()
    {
        lock.lock();
        try
        {
            users++;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * An endpoint is done with the channel: the last one closes it.
     */
    void release()
    {
        lock.lock();
        try
        {
            if (--users == 0)
            {
                channel.close();
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * The next event of an id: a connection request for a listener, any other event for the id it concerns.
     *
     * @param id        the id.
     * @param timeoutNs how long to wait; negative waits for ever, 0 takes only what has come.
     * @return the event, the caller's to acknowledge, or null on timeout.
     * @throws InterruptedException if interrupted while waiting.
     */
    CmEvent next(final CmId id, final long timeoutNs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeoutNs;
        lock.lockInterruptibly();
        try
        {
            while (true)
            {
                final ArrayDeque<CmEvent> queue = pending.get(id);
                if (queue != null && !queue.isEmpty())
                {
                    return queue.poll();
                }
                final long left = timeoutNs < 0 ? SLICE_NANOS : Math.min(SLICE_NANOS, deadline - System.nanoTime());
                final CmEvent event = channel.getEvent(Math.max(0, left), TimeUnit.NANOSECONDS);
                if (event != null)
                {
                    final CmId owner = owner(event);
                    if (owner == id)
                    {
                        return event;
                    }
                    pending.computeIfAbsent(owner, k -> new ArrayDeque<>()).add(event);
                }
                else if (timeoutNs >= 0 && deadline - System.nanoTime() <= 0)
                {
                    return null;
                }
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    private static CmId owner(final CmEvent event)
    {
        return event.type() == CmEventType.CONNECT_REQUEST && event.listenId() != null ? event.listenId() : event.id();
    }

    /**
     * Acknowledge what is filed for an id about to be destroyed; a listener's requests nobody took are rejected
     * and their ids destroyed, as closing a listener does with those still on the channel.
     *
     * @param id the id.
     */
    void forget(final CmId id)
    {
        lock.lock();
        try
        {
            final ArrayDeque<CmEvent> queue = pending.remove(id);
            if (queue == null)
            {
                return;
            }
            for (final CmEvent event : queue)
            {
                final CmId requester = event.type() == CmEventType.CONNECT_REQUEST && event.id() != id ? event.id() :
                    null;
                event.ack();
                if (requester != null)
                {
                    refuse(requester);
                }
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    private void refuse(final CmId requester)
    {
        try
        {
            requester.reject(null);
        }
        catch (final RdmaException ex)
        {
            // the peer may have given up already; destroying the id is what matters
        }
        forget(requester);
        requester.close();
    }
}
