package io.rdma4j.soft.verbs;

import io.rdma4j.soft.transport.CompletionSink;
import io.rdma4j.soft.transport.CompletionWriter;
import io.rdma4j.spi.Counted;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.AsyncEventType;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WaitDriver;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;

import java.util.concurrent.TimeUnit;

/**
 * A completion queue: a ring of preallocated completions guarded by the CQ's monitor. Producers
 * are the device's progress thread and posting threads; consumers poll by copying into the
 * caller's array, so neither side allocates. A CQ without a channel is waited for by {@link #poll(WorkCompletion[],
 * long, TimeUnit)}: the waiting thread receives for the device itself while no other thread does, or sleeps on the
 * CQ's monitor until a completion comes; it never parks on a timer.
 */
public final class SoftCq implements CompletionQueue, CompletionSink, WaitDriver.Wait
{
    private final SoftContext context;
    private final VerbsDevice engine;
    private final SoftCompChannel channel;
    private final WorkCompletion[] ring;
    private final int capacity;
    /** Written under the CQ's lock; read without it by {@link #take}, to tell an empty CQ without the lock. */
    private volatile long head;
    private long tail;
    /** Written under the CQ's lock; read without it by {@link #poll}, to tell an event consumer's poll. */
    private volatile boolean armed;
    private boolean solicitedOnly;
    private long overruns;
    private long eventsDelivered;
    private long eventsAcked;
    private int users;
    private boolean closed;
    /** The thread waiting in {@link #poll(WorkCompletion[], long, TimeUnit)} as the device's receiver, or null. */
    private volatile Thread receiver;
    /** Threads asleep on the monitor in that wait; guarded by the monitor. */
    private int sleepers;
    /** The device offered the role to a sleeping waiter; guarded by the monitor. */
    private boolean roleOffered;

    SoftCq(final SoftContext context, final int cqe, final SoftCompChannel channel)
    {
        this.context = context;
        this.engine = context.engine();
        this.channel = channel;
        this.capacity = cqe;
        this.ring = WorkCompletion.array(cqe);
    }

    @Override
    public Context context()
    {
        return context;
    }

    @Override
    public CompletionChannel channel()
    {
        return channel;
    }

    @Override
    public int capacity()
    {
        return capacity;
    }

    /**
     * The one place the ring is written, for the transports' {@link CompletionWriter}s and flushes.
     */
    @Override
    public boolean add(
        final long wrId, final WcStatus status, final WcOpcode opcode, final int byteLen, final int imm,
        final int qpNum, final int srcQp, final int flags, final boolean solicited)
    {
        final boolean notify;
        synchronized (this)
        {
            if (closed)
            {
                return false;
            }
            if (head - tail >= capacity)
            {
                overruns++;
                context.engine().postAsyncEvent(new AsyncEvent(AsyncEventType.CQ_ERR, null, this, null, 0));
                return false;
            }
            ring[(int)(head % capacity)].set(wrId, status, opcode, byteLen, imm, qpNum, srcQp, flags, 0);
            head++;
            notify = armed && (!solicitedOnly || solicited || status != WcStatus.SUCCESS);
            if (notify)
            {
                armed = false;
            }
            if (sleepers > 0)
            {
                notifyAll();
            }
        }
        if (notify && channel != null)
        {
            channel.notify(this);
        }
        final Thread waiting = receiver;
        if (waiting != null)
        {
            engine.wakeReceiver(waiting);
        }
        return true;
    }

    /**
     * Without a channel, wait as a channel's waiter does: receive for the device while no other thread does
     * ({@link WaitDriver#await}), else sleep on this CQ's monitor until a completion comes or the role is
     * offered. With a channel, the interface's arm, poll and {@code getCqEvent} sequence, whose wait is the same.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public int poll(final WorkCompletion[] wcs, final long timeout, final TimeUnit unit) throws InterruptedException
    {
        if (channel != null)
        {
            return CompletionQueue.super.poll(wcs, timeout, unit);
        }
        int n = poll(wcs);
        if (n > 0 || timeout == 0)
        {
            return n;
        }
        final boolean forever = timeout < 0;
        final long deadline = forever ? 0 : System.nanoTime() + unit.toNanos(timeout);
        try
        {
            while (true)
            {
                if (Thread.interrupted())
                {
                    throw new InterruptedException("interrupted while waiting for a completion");
                }
                final long left = forever ? -1 : deadline - System.nanoTime();
                if (!forever && left <= 0)
                {
                    return 0;
                }
                if (!receiveWhileWaiting(left))
                {
                    sleepUntilCompletion(forever, left);
                }
                n = poll(wcs);
                if (n > 0)
                {
                    return n;
                }
            }
        }
        finally
        {
            engine.stopSeeking(this);
        }
    }

    private boolean receiveWhileWaiting(final long nanos)
    {
        synchronized (this)
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, "the completion queue was destroyed while a poll waited on it");
            }
            if (receiver != null)
            {
                // another thread waits on this CQ as the receiver: sleep, it wakes the monitor
                return false;
            }
            receiver = Thread.currentThread();
            roleOffered = false;
        }
        final int outcome;
        try
        {
            outcome = engine.await(this, nanos);
        }
        finally
        {
            receiver = null;
        }
        synchronized (this)
        {
            return outcome != WaitDriver.ROLE_BUSY || roleOffered;
        }
    }

    private synchronized void sleepUntilCompletion(final boolean forever, final long nanos) throws InterruptedException
    {
        if (tail != head || roleOffered || closed)
        {
            return;
        }
        sleepers++;
        try
        {
            if (forever)
            {
                wait();
            }
            else
            {
                TimeUnit.NANOSECONDS.timedWait(this, nanos);
            }
        }
        finally
        {
            sleepers--;
        }
    }

    @Override
    public boolean satisfied()
    {
        return tail != head;
    }

    @Override
    public synchronized void roleOffered()
    {
        roleOffered = true;
        if (sleepers > 0)
        {
            notifyAll();
        }
    }

    @Override
    public int poll(final WorkCompletion[] wcs)
    {
        return poll(wcs, wcs.length);
    }

    @Override
    public int poll(final WorkCompletion[] wcs, final int max)
    {
        if (armed)
        {
            // an event consumer's poll (after ibv_req_notify_cq): it waits on the channel next, not here
            engine.pollerWaits();
        }
        else
        {
            engine.pollBegins();
        }
        final int limit = Math.min(max, wcs.length);
        final int n = take(wcs, limit);
        if (n > 0 || !engine.pollsInline() || engine.progressInline() == 0)
        {
            return n;
        }
        return take(wcs, limit);
    }

    private int take(final WorkCompletion[] wcs, final int limit)
    {
        // tail only grows, up to head: a tail read without the lock that equals head is the true one, so an empty
        // CQ, a busy poller's usual case, costs no lock
        if (tail == head)
        {
            return 0;
        }
        return takeLocked(wcs, limit);
    }

    private synchronized int takeLocked(final WorkCompletion[] wcs, final int limit)
    {
        int n = 0;
        while (n < limit && tail < head)
        {
            wcs[n++].copyFrom(ring[(int)(tail % capacity)]);
            tail++;
        }
        return n;
    }

    /**
     * @return completions waiting to be polled.
     */
    public synchronized int pending()
    {
        return (int)(head - tail);
    }

    @Override
    public void requestNotify(final boolean solicited)
    {
        if (channel == null)
        {
            throw new RdmaException(Errno.EINVAL, "the CQ was created without a completion channel");
        }
        synchronized (this)
        {
            // as with ibv_req_notify_cq, a plain arm widens an earlier solicited-only one
            solicitedOnly = armed ? solicitedOnly && solicited : solicited;
            armed = true;
        }
    }

    synchronized void eventDelivered()
    {
        eventsDelivered++;
    }

    @Override
    public void ackEvents(final int count)
    {
        synchronized (this)
        {
            if (count < 0 || eventsAcked + count > eventsDelivered)
            {
                throw new RdmaException(Errno.EINVAL, "cannot acknowledge " + count + " CQ events: " +
                    (eventsDelivered - eventsAcked) + " are unacknowledged");
            }
            eventsAcked += count;
        }
    }

    @Override
    public synchronized long overruns()
    {
        return overruns;
    }

    synchronized void addUser()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the completion queue is destroyed");
        }
        users++;
    }

    synchronized void removeUser()
    {
        users--;
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, "the completion queue is already destroyed");
            }
            if (users > 0)
            {
                throw new RdmaException(Errno.EBUSY, "the completion queue is still used by " +
                    Counted.of(users, "QP"));
            }
            if (eventsAcked != eventsDelivered)
            {
                throw new RdmaException(Errno.EBUSY, "the completion queue has " +
                    Counted.of(eventsDelivered - eventsAcked, "event") +
                    " taken from its channel and not acknowledged (ibv_ack_cq_events)");
            }
            closed = true;
        }
        if (channel != null)
        {
            channel.removeCq(this);
        }
        context.release(this);
    }
}
