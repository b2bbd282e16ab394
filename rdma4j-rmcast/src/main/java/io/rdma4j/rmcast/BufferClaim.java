package io.rdma4j.rmcast;

import java.lang.foreign.MemorySegment;

/**
 * A region of the publisher's retransmit window lent by {@link Publication#tryClaim}: write the message at
 * {@link #offset()} in {@link #buffer()}, then {@link #commit()} sends it from there, with no copy. Reusable:
 * one instance serves every claim.
 */
public final class BufferClaim
{
    private Publication publication;
    private MemorySegment buffer;
    private long offset;
    private int length;

    /** An empty claim, filled by {@link Publication#tryClaim}. */
    public BufferClaim()
    {
    }

    void wrap(final Publication owner, final MemorySegment window, final long payloadOffset, final int payloadLength)
    {
        publication = owner;
        buffer = window;
        offset = payloadOffset;
        length = payloadLength;
    }

    /** @return the window: write only within [offset, offset + length). */
    public MemorySegment buffer()
    {
        return buffer;
    }

    /** @return where the message goes in {@link #buffer()}. */
    public long offset()
    {
        return offset;
    }

    /** @return the length claimed. */
    public int length()
    {
        return length;
    }

    /** Send the message written. */
    public void commit()
    {
        final Publication owner = publication;
        publication = null;
        if (owner != null)
        {
            owner.commitClaim(length);
        }
    }

    /** Give the region back unsent: the sequence it would have taken stays free. */
    public void abort()
    {
        final Publication owner = publication;
        publication = null;
        if (owner != null)
        {
            owner.abortClaim();
        }
    }
}
