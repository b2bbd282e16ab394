package io.rdma4j.soft.transport;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.RecvWr;

/**
 * A ring of receive WQEs: a QP's receive queue or an SRQ's pool. Users post from any thread;
 * the transport takes the oldest. Guarded by the queue's monitor; nothing is allocated after
 * construction.
 */
public final class RecvQueue
{
    private final RecvWqe[] ring;
    private final int capacity;
    private final int maxSge;
    private long head;
    private long tail;

    /**
     * @param capacity max_recv_wr.
     * @param maxSge   max_recv_sge.
     */
    public RecvQueue(final int capacity, final int maxSge)
    {
        this.capacity = capacity;
        this.maxSge = maxSge;
        ring = new RecvWqe[capacity];
        for (int i = 0; i < capacity; i++)
        {
            ring[i] = new RecvWqe(maxSge);
        }
    }

    /**
     * Post a chain.
     *
     * @param first the first request.
     * @param what  "QP 0x11" or "SRQ", for messages.
     * @return the number posted.
     * @throws PostException ENOMEM when full, EINVAL for too many SGEs; earlier ones stay posted.
     */
    public synchronized int post(final RecvWr first, final String what)
    {
        int index = 0;
        for (RecvWr wr = first; wr != null; wr = wr.next(), index++)
        {
            if (wr.sgList().numSge() > maxSge)
            {
                throw new PostException(Errno.EINVAL, "receive has " + wr.sgList().numSge() + " SGEs, " + what +
                    " allows max_recv_sge " + maxSge, index);
            }
            if (head - tail >= capacity)
            {
                throw new PostException(Errno.ENOMEM, what + " receive queue is full: max_recv_wr is " + capacity,
                    index);
            }
            ring[(int)(head % capacity)].copyFrom(wr);
            head++;
        }
        return index;
    }

    /**
     * Take the oldest WQE.
     *
     * @param into where to copy it.
     * @return false if the queue is empty.
     */
    public synchronized boolean take(final RecvWqe into)
    {
        if (tail == head)
        {
            return false;
        }
        into.copyFrom(ring[(int)(tail % capacity)]);
        tail++;
        return true;
    }

    /** {@link #takeIfFits} took a WQE. */
    public static final int TAKEN = 0;
    /** {@link #takeIfFits} found the queue empty. */
    public static final int EMPTY = 1;
    /** {@link #takeIfFits} found the oldest WQE too small; it stays posted. */
    public static final int TOO_SMALL = 2;

    /**
     * Take the oldest WQE if its buffers hold {@code needed} bytes, in one step, so that two
     * threads delivering to one queue never take the same WQE.
     *
     * @param needed bytes the message needs.
     * @param into   where to copy the WQE.
     * @return {@link #TAKEN}, {@link #EMPTY} or {@link #TOO_SMALL}.
     */
    public synchronized int takeIfFits(final long needed, final RecvWqe into)
    {
        if (tail == head)
        {
            return EMPTY;
        }
        final RecvWqe oldest = ring[(int)(tail % capacity)];
        if (oldest.totalLength < needed)
        {
            return TOO_SMALL;
        }
        into.copyFrom(oldest);
        tail++;
        return TAKEN;
    }

    /**
     * @param into where to copy the oldest WQE, left in the queue.
     * @return false if the queue is empty.
     */
    public synchronized boolean peek(final RecvWqe into)
    {
        if (tail == head)
        {
            return false;
        }
        into.copyFrom(ring[(int)(tail % capacity)]);
        return true;
    }

    /**
     * Drop the oldest WQE after {@link #peek}.
     */
    public synchronized void advance()
    {
        if (tail < head)
        {
            tail++;
        }
    }

    /**
     * @return WQEs posted and not taken.
     */
    public synchronized int size()
    {
        return (int)(head - tail);
    }

    /**
     * @return max_recv_wr.
     */
    public int capacity()
    {
        return capacity;
    }

    /**
     * @return max_recv_sge.
     */
    public int maxSge()
    {
        return maxSge;
    }

    /**
     * Take every WQE, oldest first, as moving to ERR does to flush them.
     *
     * @param sink receives each WQE's wr_id.
     * @return how many were taken.
     */
    public synchronized int drain(final java.util.function.LongConsumer sink)
    {
        int n = 0;
        while (tail < head)
        {
            sink.accept(ring[(int)(tail % capacity)].wrId);
            tail++;
            n++;
        }
        return n;
    }

    /**
     * Forget every WQE, as moving to RESET does.
     */
    public synchronized void clear()
    {
        tail = head;
    }
}
