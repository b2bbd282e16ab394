package io.rdma4j.soft.verbs;

import io.rdma4j.spi.Counted;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WaitDriver;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A completion channel: a queue of CQ events and a condition to sleep on. An armed CQ puts at
 * most one event here before it must be armed again, so the queue never grows past the number
 * of CQs and offering allocates nothing once it has grown.
 * <p>
 * A thread that waits in {@link #getCqEvent} receives for the device itself while no other thread does
 * ({@link WaitDriver#await}, in polling and waiting modes): it sleeps in the link's wait, and the
 * datagram that completes its CQ wakes it, once, with no progress thread between. One thread of a channel does so
 * at a time; others sleep on the condition, as every waiter does where the role is taken or waiters never take it.
 */
public final class SoftCompChannel implements CompletionChannel, WaitDriver.Wait
{
    private final SoftContext context;
    private final VerbsDevice device;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final ArrayDeque<SoftCq> events = new ArrayDeque<>(16);
    private int cqs;
    /** Written under {@code lock}; read without it by {@link #satisfied}, the receiving waiter's look. */
    private volatile boolean closed;
    /** A {@link #wakeup()} not yet consumed by a {@link #getCqEvent}; written under {@code lock}. */
    private volatile boolean woken;
    /** {@code !events.isEmpty()}, written under {@code lock}, for {@link #satisfied}. */
    private volatile boolean hasEvents;
    /** The thread of this channel in {@link WaitDriver#await}, or null; guarded by {@code lock}. */
    private Thread receiver;
    /** The device offered the role to a waiter of this channel that found it taken; guarded by {@code lock}. */
    private boolean roleOffered;
    /** Threads in {@link #getCqEvent} asleep on the condition; guarded by {@code lock}. */
    private int sleepers;
    /** A WaitSet's watcher: told after an event is queued, a wake-up or the close. */
    private final WaitWatcher watcher = new WaitWatcher("completion channel");

    SoftCompChannel(final SoftContext context)
    {
        this.context = context;
        this.device = context.engine();
    }

    @Override
    public Context context()
    {
        return context;
    }

    void notify(final SoftCq cq)
    {
        final Thread waiting;
        lock.lock();
        try
        {
            events.addLast(cq);
            hasEvents = true;
            notEmpty.signal();
            waiting = receiver;
        }
        finally
        {
            lock.unlock();
        }
        wakeWaiters(waiting);
    }

    /**
     * After a change a waiter must see (an event, a wake-up, the close), made under the lock: end the link's wait
     * of this channel's receiving thread, unless the caller is that thread (the usual case for an event: its own
     * receive made the completion), and tell a WaitSet watching the channel.
     */
    private void wakeWaiters(final Thread waiting)
    {
        if (waiting != null)
        {
            device.wakeReceiver(waiting);
        }
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

    /**
     * The device: a WaitSet's thread receives for it while it waits, as {@link #getCqEvent}'s does.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public WaitDriver waitDriver()
    {
        return device;
    }

    @Override
    public boolean satisfied()
    {
        return hasEvents || woken || closed;
    }

    @Override
    public void roleOffered()
    {
        lock.lock();
        try
        {
            roleOffered = true;
            notEmpty.signalAll();
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public CompletionQueue getCqEvent(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        final boolean forever = timeout < 0;
        final long deadline = forever ? 0 : System.nanoTime() + unit.toNanos(timeout);
        boolean seeking = false;
        lock.lockInterruptibly();
        try
        {
            while (events.isEmpty())
            {
                if (closed)
                {
                    throw new RdmaException(Errno.EINVAL, "the completion channel is destroyed");
                }
                if (woken)
                {
                    woken = false;
                    return null;
                }
                final long nanos = forever ? -1 : deadline - System.nanoTime();
                if (!forever && nanos <= 0)
                {
                    return null;
                }
                if (receiver == null)
                {
                    if (receiveWhileWaiting(nanos))
                    {
                        // satisfied or timed out, or offered the role as it returned: the loop's looks say which
                        continue;
                    }
                    seeking = true;
                }
                sleepers++;
                try
                {
                    if (forever)
                    {
                        notEmpty.await();
                    }
                    else
                    {
                        notEmpty.awaitNanos(nanos);
                    }
                }
                finally
                {
                    sleepers--;
                }
            }
            final SoftCq cq = events.pollFirst();
            hasEvents = !events.isEmpty();
            cq.eventDelivered();
            return cq;
        }
        finally
        {
            if (seeking)
            {
                device.stopSeeking(this);
            }
            if (sleepers > 0 && receiver == null)
            {
                // another thread of this channel sleeps on the condition with nobody receiving for it: it may
                // take the role now
                notEmpty.signal();
            }
            lock.unlock();
        }
    }

    /**
     * Lock held: receive for the device until this channel's wait is satisfied, the time runs out, or the role
     * turns out to be taken. The lock is released meanwhile.
     *
     * @return false if the role was taken and not offered back meanwhile: sleep on the condition.
     */
    private boolean receiveWhileWaiting(final long nanos)
    {
        receiver = Thread.currentThread();
        roleOffered = false;
        lock.unlock();
        final int outcome;
        try
        {
            outcome = device.await(this, nanos);
        }
        finally
        {
            lock.lock();
            receiver = null;
        }
        return outcome != WaitDriver.ROLE_BUSY || roleOffered;
    }

    @Override
    public void wakeup()
    {
        final Thread waiting;
        lock.lock();
        try
        {
            woken = true;
            notEmpty.signal();
            waiting = receiver;
        }
        finally
        {
            lock.unlock();
        }
        wakeWaiters(waiting);
    }

    synchronized void addCq()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the completion channel is destroyed");
        }
        cqs++;
    }

    synchronized void removeCq(final SoftCq cq)
    {
        cqs--;
        lock.lock();
        try
        {
            events.removeIf(e -> e == cq);
            hasEvents = !events.isEmpty();
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, "the completion channel is already destroyed");
            }
            if (cqs > 0)
            {
                throw new RdmaException(Errno.EBUSY, "the completion channel still serves " + Counted.of(cqs, "CQ"));
            }
            closed = true;
        }
        final Thread waiting;
        lock.lock();
        try
        {
            notEmpty.signalAll();
            waiting = receiver;
        }
        finally
        {
            lock.unlock();
        }
        wakeWaiters(waiting);
        context.release(this);
    }
}
