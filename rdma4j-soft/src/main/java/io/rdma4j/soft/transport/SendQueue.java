package io.rdma4j.soft.transport;

import io.rdma4j.verbs.SendWr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A ring of send WQEs. {@code head} is where the next post goes; {@code tail} is the oldest
 * not completed; {@code next} is the next the requester will start. tail ≤ next ≤ head. Guarded
 * by the owning QP's lock.
 */
public final class SendQueue
{
    private final SendWqe[] ring;
    private final int capacity;
    private long head;
    private long next;
    private long tail;

    /**
     * @param capacity      max_send_wr.
     * @param maxSge        max_send_sge.
     * @param maxInlineData max_inline_data.
     * @param arena         where inline room is allocated.
     */
    public SendQueue(final int capacity, final int maxSge, final int maxInlineData, final Arena arena)
    {
        this.capacity = capacity;
        ring = new SendWqe[capacity];
        final MemorySegment room = maxInlineData > 0 ?
            arena.allocate((long)maxInlineData * capacity, 8) : MemorySegment.NULL;
        for (int i = 0; i < capacity; i++)
        {
            ring[i] = new SendWqe(maxSge, maxInlineData > 0 ?
                room.asSlice((long)i * maxInlineData, maxInlineData) : MemorySegment.NULL);
        }
    }

    /**
     * @return true if no slot is free.
     */
    public boolean isFull()
    {
        return head - tail >= capacity;
    }

    /**
     * Copy a request into the next slot.
     *
     * @param wr        the request.
     * @param signalAll sq_sig_all.
     * @return the slot, for the caller to copy inline data into.
     */
    public SendWqe add(final SendWr wr, final boolean signalAll)
    {
        final SendWqe wqe = ring[(int)(head % capacity)];
        wqe.copyFrom(wr, signalAll);
        head++;
        return wqe;
    }

    /**
     * @return the next WQE for the requester, or null if all are started.
     */
    public SendWqe peekNext()
    {
        return next < head ? ring[(int)(next % capacity)] : null;
    }

    /**
     * The requester has started (UD/UC: finished) the WQE from {@link #peekNext}.
     */
    public void advanceNext()
    {
        next++;
    }

    /**
     * Move the requester back to the oldest outstanding WQE (go-back-N).
     */
    public void rewindNextToTail()
    {
        next = tail;
    }

    /**
     * @param index how far past the tail, from 0.
     * @return the outstanding WQE at that position, or null.
     */
    public SendWqe outstanding(final int index)
    {
        return tail + index < head ? ring[(int)((tail + index) % capacity)] : null;
    }

    /**
     * @return the oldest WQE not completed, or null.
     */
    public SendWqe peekTail()
    {
        return tail < head ? ring[(int)(tail % capacity)] : null;
    }

    /**
     * The oldest WQE is completed.
     */
    public void advanceTail()
    {
        tail++;
        if (next < tail)
        {
            next = tail;
        }
    }

    /**
     * @return WQEs posted and not completed.
     */
    public int size()
    {
        return (int)(head - tail);
    }

    /**
     * @return WQEs started by the requester and not completed.
     */
    public int inFlight()
    {
        return (int)(next - tail);
    }

    /**
     * @return max_send_wr.
     */
    public int capacity()
    {
        return capacity;
    }

    /**
     * Forget every WQE, as moving to RESET does.
     */
    public void clear()
    {
        tail = head;
        next = head;
    }
}
