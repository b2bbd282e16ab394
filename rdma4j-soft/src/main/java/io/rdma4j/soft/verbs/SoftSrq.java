package io.rdma4j.soft.verbs;

import io.rdma4j.soft.transport.RecvQueue;
import io.rdma4j.soft.transport.SharedRecvPool;
import io.rdma4j.spi.Counted;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.AsyncEventType;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SharedReceiveQueue;
import io.rdma4j.verbs.SrqAttr;

/**
 * A shared receive queue: one {@link RecvQueue} many QPs draw from, with the limit event armed
 * by srq_limit and fired once when the queue runs below it.
 */
public final class SoftSrq implements SharedReceiveQueue, SharedRecvPool
{
    private final SoftPd pd;
    private final RecvQueue queue;
    private final int maxSge;
    private volatile int limit;
    private int users;
    private boolean closed;

    SoftSrq(final SoftPd pd, final SrqAttr attr)
    {
        this.pd = pd;
        this.maxSge = attr.maxSge();
        this.queue = new RecvQueue(attr.maxWr(), attr.maxSge());
        this.limit = attr.srqLimit();
    }

    @Override
    public ProtectionDomain pd()
    {
        return pd;
    }

    @Override
    public RecvQueue queue()
    {
        return queue;
    }

    @Override
    public void postRecv(final RecvWr wr)
    {
        checkOpen();
        queue.post(wr, "SRQ");
    }

    @Override
    public void afterTake()
    {
        final int armed = limit;
        if (armed > 0 && queue.size() < armed)
        {
            synchronized (this)
            {
                if (limit > 0 && queue.size() < limit)
                {
                    // the event disarms the limit, as the IB spec says; the user re-arms with modify
                    limit = 0;
                    pd.engine().postAsyncEvent(new AsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, null, null, this, 0));
                }
            }
        }
    }

    @Override
    public void modifyLimit(final int srqLimit)
    {
        checkOpen();
        if (srqLimit < 0 || srqLimit > queue.capacity())
        {
            throw new RdmaException(Errno.EINVAL, "srq_limit " + srqLimit + " is outside 0..max_wr " + queue.capacity());
        }
        limit = srqLimit;
    }

    @Override
    public SrqAttr query()
    {
        checkOpen();
        return new SrqAttr(queue.capacity(), maxSge, limit);
    }

    synchronized void addUser()
    {
        checkOpen();
        users++;
    }

    synchronized void removeUser()
    {
        users--;
    }

    private synchronized void checkOpen()
    {
        if (closed)
        {
            throw new RdmaException(Errno.EINVAL, "the SRQ is destroyed");
        }
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                throw new RdmaException(Errno.EINVAL, "the SRQ is already destroyed");
            }
            if (users > 0)
            {
                throw new RdmaException(Errno.EBUSY, "the SRQ is still used by " + Counted.of(users, "QP"));
            }
            closed = true;
        }
        pd.release(this);
    }
}
