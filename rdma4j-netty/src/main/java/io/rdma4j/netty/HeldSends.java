package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;

/**
 * The buffers whose own bytes SENDs in flight read: each holds a reference, taken when its SEND is posted and
 * given back when the SEND completes, however it completes, or when the QP is gone. A SEND's work request id
 * carries its entry's index. Used on the event loop's thread alone.
 */
final class HeldSends
{
    private final ByteBuf[] held;
    private final int[] free;
    private int freeCount;

    /**
     * @param capacity SENDs of held buffers in flight at most.
     */
    HeldSends(final int capacity)
    {
        held = new ByteBuf[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++)
        {
            free[i] = capacity - 1 - i;
        }
        freeCount = capacity;
    }

    /**
     * Take a reference on a buffer for a SEND about to be posted; only when {@link #inUse()} is below the
     * capacity.
     *
     * @param buf the buffer the SEND reads.
     * @return its entry.
     */
    int hold(final ByteBuf buf)
    {
        final int entry = free[--freeCount];
        held[entry] = buf.retain();
        return entry;
    }

    /**
     * @param entry an entry whose SEND completed or was never posted: its reference goes.
     */
    void release(final int entry)
    {
        final ByteBuf buf = held[entry];
        held[entry] = null;
        free[freeCount++] = entry;
        buf.release();
    }

    /** The QP is gone: every reference goes. */
    void releaseAll()
    {
        for (int entry = 0; entry < held.length; entry++)
        {
            if (held[entry] != null)
            {
                release(entry);
            }
        }
    }

    /**
     * @return SENDs of held buffers in flight.
     */
    int inUse()
    {
        return held.length - freeCount;
    }
}
