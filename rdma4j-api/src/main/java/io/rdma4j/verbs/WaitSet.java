package io.rdma4j.verbs;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One wait for many channels: completion channels of any devices and the connection manager's event channels,
 * as a program over rdma-core puts {@code comp_channel->fd} and the event channel's descriptor in one
 * {@code poll(2)} or {@code epoll} set. A server with many connections, or an event loop, sleeps in one call with
 * no thread per channel.
 * <p>
 * {@link #await} returns the channels that are ready; the caller then takes their events without waiting
 * ({@code getCqEvent(0, ...)}, {@code getEvent(0, ...)}), as after {@code epoll_wait}. Where a channel's device
 * lets the waiting thread do its work ({@link Waitable#waitDriver}: the software device), the thread in
 * {@code await} does it: a datagram for that device wakes it once, and a channel of another device or the
 * connection manager wakes it out of that wait. A channel whose readiness only the kernel knows (the native
 * provider's: {@link Waitable#descriptor}) puts the thread in {@code poll(2)} over every such channel's descriptor
 * and an eventfd that the other channels' watchers write, as an epoll loop sleeps; the software devices in such a
 * set are then driven by their own progress. Otherwise it sleeps until a channel says it may be ready. Nothing
 * spins and nothing parks on a timer: the only timed sleep is the caller's own timeout.
 * <p>
 * One thread waits at a time (as an event loop does); {@link #add}, {@link #remove} and {@link #wakeup} may be
 * called from any thread. Allocates nothing per wait.
 */
public final class WaitSet implements AutoCloseable
{
    private final Object lock = new Object();
    /** Copied on change, read without the lock by the waiting thread. */
    private volatile Waitable[] members = new Waitable[0];
    private volatile Thread waiter;
    /** The driver the waiter is inside now, so that a watcher wakes it out of the device's wait. */
    private volatile WaitDriver driving;
    /** A member may have become ready since the waiter last looked. */
    private volatile boolean signalled;
    /** A {@link #wakeup()} not yet consumed by an {@link #await}. */
    private volatile boolean woken;
    /** The driver offered its work back to this set's waiter. */
    private volatile boolean roleOffered;
    private volatile boolean closed;
    private final Runnable watcher = this::memberMayBeReady;
    private final WaitDriver.Wait driverWait = new WaitDriver.Wait()
    {
        @Override
        public boolean satisfied()
        {
            return signalled || woken || closed;
        }

        @Override
        public void roleOffered()
        {
            roleOffered = true;
            final Thread thread = waiter;
            if (thread != null)
            {
                LockSupport.unpark(thread);
            }
        }

        @Override
        public Waitable[] waitables()
        {
            return members;
        }
    };

    /**
     * @return an empty set.
     */
    public static WaitSet create()
    {
        return new WaitSet();
    }

    private WaitSet()
    {
    }

    /**
     * Wait on a channel from now on.
     *
     * @param channel a completion channel or an event channel.
     * @throws RdmaException EINVAL if it is in the set already or the set is closed; EOPNOTSUPP if its provider
     *                       cannot be waited on in a set; EBUSY if another set has it.
     */
    public void add(final Waitable channel)
    {
        RdmaException.check(channel != null, Errno.EINVAL, "WaitSet.add: the channel is null");
        synchronized (lock)
        {
            RdmaException.check(!closed, Errno.EINVAL, "WaitSet.add: the set is closed");
            final Waitable[] current = members;
            for (final Waitable member : current)
            {
                RdmaException.check(member != channel, Errno.EINVAL, "WaitSet.add: the channel is in the set already");
            }
            channel.watch(watcher);
            final Waitable[] grown = Arrays.copyOf(current, current.length + 1);
            grown[current.length] = channel;
            members = grown;
        }
        memberMayBeReady();
    }

    /**
     * Stop waiting on a channel; one not in the set is ignored, so that a channel's close may remove it either way.
     *
     * @param channel the channel.
     */
    public void remove(final Waitable channel)
    {
        synchronized (lock)
        {
            final Waitable[] current = members;
            for (int i = 0; i < current.length; i++)
            {
                if (current[i] == channel)
                {
                    final Waitable[] shrunk = new Waitable[current.length - 1];
                    System.arraycopy(current, 0, shrunk, 0, i);
                    System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                    members = shrunk;
                    channel.watch(null);
                    return;
                }
            }
        }
    }

    /**
     * @return the channels in the set, in the order they were added.
     */
    public Waitable[] channels()
    {
        return members.clone();
    }

    /**
     * Wait until a channel is ready, {@link #wakeup()} is called, or the timeout passes.
     *
     * @param ready   filled from index 0 with the ready channels, at most its length.
     * @param timeout how long to wait; 0 only looks, negative waits for ever.
     * @param unit    the timeout's unit.
     * @return how many channels were written to {@code ready}; 0 after the timeout or a wake-up.
     * @throws InterruptedException if interrupted while waiting.
     * @throws RdmaException        EINVAL if the set is closed, {@code ready} is empty, or another thread waits in it.
     */
    public int await(final Waitable[] ready, final long timeout, final TimeUnit unit) throws InterruptedException
    {
        RdmaException.check(ready != null && ready.length > 0, Errno.EINVAL, "WaitSet.await: no room for a channel");
        final Thread self = Thread.currentThread();
        synchronized (lock)
        {
            RdmaException.check(!closed, Errno.EINVAL, "WaitSet.await: the set is closed");
            // the sentence built only when it is thrown: an event loop calls this every turn
            if (waiter != null)
            {
                throw new RdmaException(Errno.EINVAL, "WaitSet.await: thread " + waiter.getName() +
                    " waits in this set already; one thread waits at a time");
            }
            waiter = self;
        }
        final boolean forever = timeout < 0;
        final long deadline = forever ? 0 : System.nanoTime() + unit.toNanos(timeout);
        WaitDriver seeking = null;
        try
        {
            while (true)
            {
                // cleared before the look: a member that turns ready after it sets the flag again, which the wait
                // below sees
                signalled = false;
                final int found = collect(ready);
                if (found > 0)
                {
                    return found;
                }
                if (woken)
                {
                    woken = false;
                    return 0;
                }
                RdmaException.check(!closed, Errno.EINVAL, "WaitSet.await: the set was closed");
                if (Thread.interrupted())
                {
                    throw new InterruptedException("interrupted while waiting in a WaitSet");
                }
                final long left = forever ? -1 : deadline - System.nanoTime();
                if (!forever && left <= 0)
                {
                    return 0;
                }
                if (signalled)
                {
                    continue;
                }
                final WaitDriver driver = driver();
                int outcome = WaitDriver.ROLE_BUSY;
                if (driver != null)
                {
                    roleOffered = false;
                    driving = driver;
                    try
                    {
                        outcome = driver.await(driverWait, left);
                    }
                    finally
                    {
                        driving = null;
                    }
                    seeking = outcome == WaitDriver.ROLE_BUSY ? driver : null;
                }
                if (outcome == WaitDriver.ROLE_BUSY && !roleOffered && !driverWait.satisfied())
                {
                    if (forever)
                    {
                        LockSupport.park(this);
                    }
                    else
                    {
                        LockSupport.parkNanos(this, left);
                    }
                }
            }
        }
        finally
        {
            if (seeking != null)
            {
                seeking.stopSeeking(driverWait);
            }
            waiter = null;
        }
    }

    private int collect(final Waitable[] ready)
    {
        int found = 0;
        final Waitable[] current = members;
        for (int i = 0; i < current.length && found < ready.length; i++)
        {
            if (current[i].isReady())
            {
                ready[found++] = current[i];
            }
        }
        return found;
    }

    /**
     * The driver this set's thread waits in: that of the first member whose readiness only the kernel knows (its
     * {@link Waitable#descriptor}), since only a thread in {@code poll(2)} sees it and the other members' watchers
     * can still end that wait; otherwise the first member's device that lets its waiter work.
     */
    private WaitDriver driver()
    {
        WaitDriver first = null;
        for (final Waitable member : members)
        {
            final WaitDriver driver = member.waitDriver();
            if (driver != null)
            {
                if (member.descriptor() >= 0)
                {
                    return driver;
                }
                if (first == null)
                {
                    first = driver;
                }
            }
        }
        return first;
    }

    /**
     * Make the {@link #await} in progress return 0 now; with none in progress, the next one does. Safe from any
     * thread: an event loop's wake-up for work queued from elsewhere.
     */
    public void wakeup()
    {
        woken = true;
        memberMayBeReady();
    }

    private void memberMayBeReady()
    {
        signalled = true;
        final Thread thread = waiter;
        if (thread == null || thread == Thread.currentThread())
        {
            return;
        }
        final WaitDriver driver = driving;
        if (driver != null)
        {
            driver.wakeReceiver(thread);
        }
        LockSupport.unpark(thread);
    }

    /**
     * Close the set: its channels are no longer watched, and a waiting {@link #await} fails with EINVAL. Closing
     * again does nothing. The channels themselves stay open.
     */
    @Override
    public void close()
    {
        synchronized (lock)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            for (final Waitable member : members)
            {
                member.watch(null);
            }
            members = new Waitable[0];
        }
        memberMayBeReady();
    }
}
