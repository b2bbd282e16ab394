package io.rdma4j.rdmacore;

import io.rdma4j.verbs.WaitDriver;
import io.rdma4j.verbs.Waitable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * How a {@link io.rdma4j.verbs.WaitSet} sleeps on the native provider's channels, as an epoll loop does on rdma-core's
 * descriptors: {@code poll(2)} over the descriptor of every member that has one ({@code comp_channel->fd}, the event
 * channel's) and an eventfd of its own, which the set's other members (their watchers, through
 * {@link #wakeReceiver}), its {@code wakeup()} and a change of its members write. One per native channel, made when
 * the channel first joins a set; a channel is in one set at most, so one thread at a time waits in it. Allocates
 * nothing per wait: the {@code pollfd} array grows with the set and is kept.
 * <p>
 * The device works on its own, so the waiting thread has no receive role to take: {@link #await} never answers
 * {@link #ROLE_BUSY}. A descriptor readable is reported as satisfied; the set then asks each member
 * {@link Waitable#isReady()}, which for a native channel is a {@code poll} with no wait on its descriptor.
 */
public final class DescriptorWait implements WaitDriver
{
    private final Arena arena = Arena.ofShared();
    private final int wakeFd = Libc.eventfd();
    /** The waiter's: its pollfds, grown when the set is. */
    private MemorySegment pollfds;
    private int capacity;
    private final MemorySegment waitCapture = Libc.captureState(arena);
    private final MemorySegment drained = arena.allocate(ValueLayout.JAVA_LONG);
    /** The wakers': guarded by {@code this}. */
    private final MemorySegment one = arena.allocate(ValueLayout.JAVA_LONG);
    private final MemorySegment wakeCapture = Libc.captureState(arena);
    /** {@link #isReadable}'s: guarded by {@code readyLock}. */
    private final Object readyLock = new Object();
    private final MemorySegment readyFd = Libc.pollFds(arena, 1);
    private final MemorySegment readyCapture = Libc.captureState(arena);
    /** A thread is in {@link #await}; guarded by {@code this}. */
    private boolean waiting;
    /** Written under {@code this}; the eventfd and the memory go when it is set and nobody waits. */
    private volatile boolean closed;

    /** A wait with its own eventfd. */
    public DescriptorWait()
    {
        one.set(ValueLayout.JAVA_LONG, 0, 1L);
        capacity = 4;
        pollfds = Libc.pollFds(arena, capacity);
    }

    @Override
    public int await(final Wait wait, final long timeoutNs)
    {
        synchronized (this)
        {
            if (closed)
            {
                // its channel is gone: the set looks at its members again, and this one no longer names this driver
                return SATISFIED;
            }
            waiting = true;
        }
        try
        {
            final boolean forever = timeoutNs < 0;
            final long deadline = forever ? 0 : System.nanoTime() + timeoutNs;
            while (!wait.satisfied() && !closed)
            {
                final int count = fill(wait.waitables());
                final long left = forever ? -1 : deadline - System.nanoTime();
                if (!forever && left <= 0)
                {
                    return TIMED_OUT;
                }
                // rounded up: a wait that returns before its deadline would only come back to wait again
                final int millis = forever ? -1 : (int)Math.min(Integer.MAX_VALUE, (left + 999_999) / 1_000_000);
                if (Libc.poll(waitCapture, pollfds, count, millis) > 0)
                {
                    if (Libc.revents(pollfds, count - 1) != 0)
                    {
                        Libc.drain(wakeFd, drained, waitCapture);
                    }
                    for (int i = 0; i < count - 1; i++)
                    {
                        if (Libc.revents(pollfds, i) != 0)
                        {
                            return SATISFIED;
                        }
                    }
                }
            }
            return SATISFIED;
        }
        finally
        {
            synchronized (this)
            {
                waiting = false;
                if (closed)
                {
                    release();
                }
            }
        }
    }

    /** The members' descriptors, then the eventfd; returns how many. */
    private int fill(final Waitable[] members)
    {
        int count = 0;
        for (final Waitable member : members)
        {
            if (member.descriptor() >= 0)
            {
                count++;
            }
        }
        if (count + 1 > capacity)
        {
            capacity = Math.max(capacity * 2, count + 1);
            pollfds = Libc.pollFds(arena, capacity);
        }
        int index = 0;
        for (final Waitable member : members)
        {
            final int fd = member.descriptor();
            // read again: one closed since the count above is left out, and the spare slot stays for the eventfd
            if (fd >= 0 && index < count)
            {
                Libc.setPollFd(pollfds, index++, fd);
            }
        }
        Libc.setPollFd(pollfds, index++, wakeFd);
        return index;
    }

    @Override
    public void stopSeeking(final Wait wait)
    {
        // never answers ROLE_BUSY, so no wait is left seeking
    }

    @Override
    public synchronized void wakeReceiver(final Thread receiver)
    {
        if (!closed)
        {
            Libc.signal(wakeFd, one, wakeCapture);
        }
    }

    /**
     * @param fd a channel's descriptor.
     * @return whether {@code poll} with no wait finds it readable; for {@link Waitable#isReady()}, allocating nothing.
     */
    public boolean isReadable(final int fd)
    {
        synchronized (readyLock)
        {
            synchronized (this)
            {
                if (closed)
                {
                    return false;
                }
            }
            Libc.setPollFd(readyFd, 0, fd);
            // POLLIN alone: a descriptor closed under the look (POLLNVAL) has no event to take
            return Libc.poll(readyCapture, readyFd, 1, 0) > 0 && (Libc.revents(readyFd, 0) & Libc.POLL_IN) != 0;
        }
    }

    /**
     * The channel is being destroyed: a wait in progress ends, and the eventfd goes once it has.
     */
    public void close()
    {
        synchronized (readyLock)
        {
            synchronized (this)
            {
                if (closed)
                {
                    return;
                }
                closed = true;
                if (waiting)
                {
                    Libc.signal(wakeFd, one, wakeCapture);
                }
                else
                {
                    release();
                }
            }
        }
    }

    /**
     * @return whether a thread is in {@link #await} now; for tests that must know a waiter sleeps before they wake it.
     */
    synchronized boolean waitingForTest()
    {
        return waiting;
    }

    private void release()
    {
        Libc.close(wakeFd);
        arena.close();
    }
}
