package io.rdma4j.soft.verbs;

import io.rdma4j.spi.Counted;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A completion channel: a queue of CQ events and a condition to sleep on. An armed CQ puts at
 * most one event here before it must be armed again, so the queue never grows past the number
 * of CQs and offering allocates nothing once it has grown.
 */
public final class SoftCompChannel implements CompletionChannel
{
    private final SoftContext context;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final ArrayDeque<SoftCq> events = new ArrayDeque<>(16);
    private int cqs;
    private boolean closed;
    /** A {@link #wakeup()} not yet consumed by a {@link #getCqEvent}; guarded by {@code lock}. */
    private boolean woken;

    SoftCompChannel(final SoftContext context)
    {
        this.context = context;
    }

    @Override
    public Context context()
    {
        return context;
    }

    void notify(final SoftCq cq)
    {
        lock.lock();
        try
        {
            events.addLast(cq);
            notEmpty.signal();
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
        long nanos = unit.toNanos(timeout);
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
                if (forever)
                {
                    notEmpty.await();
                    continue;
                }
                if (nanos <= 0)
                {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            final SoftCq cq = events.pollFirst();
            cq.eventDelivered();
            return cq;
        }
        finally
        {
            lock.unlock();
        }
    }

    @Override
    public void wakeup()
    {
        lock.lock();
        try
        {
            woken = true;
            notEmpty.signal();
        }
        finally
        {
            lock.unlock();
        }
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
        lock.lock();
        try
        {
            notEmpty.signalAll();
        }
        finally
        {
            lock.unlock();
        }
        context.release(this);
    }
}
