package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.verbs.WaitWatcher;
import io.rdma4j.spi.Counted;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The soft connection manager's event channel ({@code struct rdma_event_channel}): an ordered
 * queue of the events of its ids.
 * <p>
 * Asynchronous completions (address and route resolution, multicast joins) are queued by the
 * thread of the channel's {@link ConnectionManager}, as the kernel's rdma_cm completes them from
 * work items, so an event never arrives inside the call that caused it and events are queued in
 * the order of the calls. Every state change of the channel's ids happens under the channel's
 * lock, which also counts events retrieved and acknowledged per id and per multicast join, so
 * that destroy and leave can wait for the acknowledgements as librdmacm does.
 */
public final class SoftEventChannel implements EventChannel
{
    /** The connection manager whose thread completes this channel's work and runs its ids' connections. */
    final ConnectionManager cm;
    /** How long destroy or leave waits for acknowledgements before it says so. */
    static final long FIRST_ACK_WARNING_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How often it says so again while it waits. */
    static final long ACK_WARNING_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final System.Logger LOG = System.getLogger(SoftEventChannel.class.getName());

    /** Guards the queue, the ids and every id of this channel. */
    final ReentrantLock lock = new ReentrantLock();
    private final Condition eventQueued = lock.newCondition();
    private final Condition eventAcked = lock.newCondition();
    private final ArrayDeque<SoftCmEvent> queue = new ArrayDeque<>();
    /** {@code !queue.isEmpty()}, written with the lock held, for {@link #isReady}. */
    private volatile boolean hasEvents;
    /** A WaitSet's watcher: told when an event is queued or the channel closes. */
    private final WaitWatcher watcher = new WaitWatcher("event channel");
    private final Set<SoftCmId> ids = new HashSet<>();
    /** Events retrieved and not acknowledged yet, oldest first: what a waiting destroy names. */
    private final List<SoftCmEvent> unacked = new ArrayList<>();
    private int ackWaiters;
    private boolean closed;

    private SoftEventChannel(final ConnectionManager cm)
    {
        this.cm = cm;
    }

    /**
     * @param cm the connection manager its ids use.
     * @return a new channel on that connection manager.
     */
    public static EventChannel create(final ConnectionManager cm)
    {
        return new SoftEventChannel(cm);
    }

    @Override
    public CmId createId(final Object context, final PortSpace portSpace)
    {
        RdmaException.check(portSpace != null, Errno.EINVAL, "createId: the port space is null");
        lock.lock();
        try
        {
            RdmaException.check(!closed, Errno.EINVAL, "createId: the event channel is closed");
            final SoftCmId id = new SoftCmId(this, context, portSpace);
            ids.add(id);
            cm.shared.stat().track(id);
            return id;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * A MULTICAST_JOIN for an id that has a QP, joined as a full member, attaches that QP to the
     * group here, as librdmacm does in {@code rdma_get_cm_event}; if the attach fails the event
     * is returned as MULTICAST_ERROR with the negative errno as status. A negative timeout waits
     * without limit.
     */
    @Override
    public CmEvent getEvent(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        RdmaException.check(unit != null, Errno.EINVAL, "getEvent: the time unit is null");
        long remaining = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try
        {
            while (queue.isEmpty())
            {
                RdmaException.check(!closed, Errno.EINVAL, "getEvent: the event channel is closed");
                if (timeout < 0)
                {
                    eventQueued.await();
                }
                else if (remaining <= 0)
                {
                    return null;
                }
                else
                {
                    remaining = eventQueued.awaitNanos(remaining);
                }
            }
            final SoftCmEvent event = queue.poll();
            hasEvents = !queue.isEmpty();
            retrieve(event);
            return event;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Destroy the channel ({@code rdma_destroy_event_channel}). Closing it again does nothing.
     *
     * @throws RdmaException EBUSY while ids made on it are not destroyed.
     */
    @Override
    public void close()
    {
        lock.lock();
        try
        {
            if (!ids.isEmpty())
            {
                throw new RdmaException(Errno.EBUSY, "the event channel still has " +
                    Counted.of(ids.size(), "id") + ": destroy them first");
            }
            closed = true;
            // a thread blocked in getEvent learns that nothing more will come
            eventQueued.signalAll();
            watcher.tell();
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @return threads blocked until events are acknowledged (destroy or leave); for tests that
     *         must know a waiter is parked without sleeping.
     */
    int ackWaiters()
    {
        lock.lock();
        try
        {
            return ackWaiters;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Run a completion on the connection-manager thread, after every completion submitted before.
     */
    void later(final Runnable completion)
    {
        cm.later(completion);
    }

    /** Queue an event; called with the lock held. */
    void post(final SoftCmEvent event)
    {
        queue.add(event);
        hasEvents = true;
        eventQueued.signal();
        watcher.tell();
    }

    @Override
    public boolean isReady()
    {
        return hasEvents;
    }

    @Override
    public void watch(final Runnable setWatcher)
    {
        watcher.set(setWatcher);
    }

    /** Drop queued (not yet retrieved) events, as the kernel drops them on leave and destroy. */
    void removeQueued(final Predicate<SoftCmEvent> which)
    {
        queue.removeIf(which);
        hasEvents = !queue.isEmpty();
    }

    /**
     * @return events waiting to be retrieved (for tests that must not take them).
     */
    int queued()
    {
        lock.lock();
        try
        {
            return queue.size();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Lock held: remove the queued events that match and return them. */
    List<SoftCmEvent> takeQueued(final Predicate<SoftCmEvent> which)
    {
        final List<SoftCmEvent> taken = new ArrayList<>();
        for (final Iterator<SoftCmEvent> it = queue.iterator(); it.hasNext(); )
        {
            final SoftCmEvent event = it.next();
            if (which.test(event))
            {
                taken.add(event);
                it.remove();
            }
        }
        hasEvents = !queue.isEmpty();
        return taken;
    }

    /**
     * Wait, with the lock held, until {@code done} holds; acknowledgements signal the wait. This is
     * librdmacm's rule and it can wait for ever on an event the application forgot, so after
     * {@link #FIRST_ACK_WARNING_NANOS} it logs a warning naming the events and the id, and again
     * every {@link #ACK_WARNING_INTERVAL_NANOS} while it waits.
     *
     * @param done    the condition.
     * @param verb    what waits, for the messages.
     * @param waiter  the id (and group) that waits, for the warning.
     * @param pending which unacknowledged events it waits for.
     * @throws RdmaException EINTR if interrupted; the interrupt flag is set again.
     */
    void awaitAcks(final BooleanSupplier done, final String verb, final Object waiter,
        final Predicate<SoftCmEvent> pending)
    {
        ackWaiters++;
        try
        {
            long untilWarning = FIRST_ACK_WARNING_NANOS;
            long waited = 0;
            while (!done.getAsBoolean())
            {
                final long left = eventAcked.awaitNanos(untilWarning);
                if (left > 0)
                {
                    waited += untilWarning - left;
                    untilWarning = left;
                    continue;
                }
                waited += untilWarning;
                untilWarning = ACK_WARNING_INTERVAL_NANOS;
                if (!done.getAsBoolean())
                {
                    warnUnacked(verb, waiter, pending, waited);
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new RdmaException(Errno.EINTR, verb + ": interrupted while waiting for events to be acknowledged",
                ex);
        }
        finally
        {
            ackWaiters--;
        }
    }

    private void warnUnacked(final String verb, final Object waiter, final Predicate<SoftCmEvent> pending,
        final long waitedNanos)
    {
        final StringBuilder events = new StringBuilder();
        for (final SoftCmEvent event : unacked)
        {
            if (pending.test(event))
            {
                events.append(events.isEmpty() ? "" : ", ").append(event.typeLocked().description());
            }
        }
        LOG.log(System.Logger.Level.WARNING, () -> verb + " of " + waiter + " has waited " +
            TimeUnit.NANOSECONDS.toSeconds(waitedNanos) + " s for its events to be acknowledged: " + events +
            " (retrieved with getEvent, never acked: call CmEvent.ack or close, or take events in try-with-resources)");
    }

    /** A new id made by the connection manager for a connection request; lock held. */
    void adopt(final SoftCmId id)
    {
        ids.add(id);
        cm.shared.stat().track(id);
    }

    /** Forget a destroyed id; called with the lock held. */
    void forget(final SoftCmId id)
    {
        ids.remove(id);
        cm.shared.stat().untrack(id);
    }

    /**
     * @param event the event.
     * @param once  true for ack (twice is an error), false for close (twice does nothing).
     */
    void acknowledge(final SoftCmEvent event, final boolean once)
    {
        lock.lock();
        try
        {
            if (!event.markAcked())
            {
                if (!once)
                {
                    return;
                }
                throw new RdmaException(Errno.EINVAL, "ack: " + event + " is already acknowledged");
            }
            unacked.remove(event);
            event.softId().acked++;
            final MulticastJoin join = event.join();
            if (join != null)
            {
                join.acked++;
            }
            eventAcked.signalAll();
        }
        finally
        {
            lock.unlock();
        }
    }

    private void retrieve(final SoftCmEvent event)
    {
        final SoftCmId id = event.softId();
        id.reported++;
        unacked.add(event);
        final MulticastJoin join = event.join();
        if (join == null)
        {
            return;
        }
        join.reported++;
        CmMulticastJoins.attachOnRetrieve(event, join, id.qpLocked());
    }
}
