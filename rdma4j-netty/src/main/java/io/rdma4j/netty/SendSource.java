package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;

import java.lang.foreign.MemorySegment;

/**
 * Where the next SEND of an outbound buffer reads from: its own bytes, when they lie in a {@link RegisteredChunk}
 * (a buffer of an {@link RdmaByteBufAllocator}, a slice or duplicate of one, a leak-aware wrapper of one), or a
 * send slot they are copied into. A composite buffer is taken component by component: a registered component goes
 * out on its own, and the runs of other components between them are copied together, as are registered
 * components under {@value #SMALL} bytes, which would cost the peer a whole receive buffer each for bytes a copy
 * moves in nanoseconds. One per endpoint, reused for every SEND.
 */
final class SendSource
{
    /** Registered components of a composite below this go out copied with their neighbours. */
    static final int SMALL = 1024;

    private RegisteredChunk chunk;
    private long offset;

    /**
     * Find the next SEND's bytes.
     *
     * @param buf    an outbound buffer.
     * @param index  the first byte to send.
     * @param length the most bytes one SEND may carry, at most the buffer's readable bytes from {@code index}.
     * @return the bytes the SEND carries, from {@code index}: registered ones if {@link #chunk()} is not null
     *         now, else bytes to copy.
     */
    int find(final ByteBuf buf, final int index, final int length)
    {
        if (buf instanceof CompositeByteBuf composite)
        {
            return findInComposite(composite, index, length);
        }
        if (!locate(buf, index, length))
        {
            chunk = null;
        }
        return length;
    }

    /**
     * @return the chunk of the bytes {@link #find} found, or null if they are to be copied.
     */
    RegisteredChunk chunk()
    {
        return chunk;
    }

    /**
     * @return where in {@link #chunk()} they start.
     */
    long offset()
    {
        return offset;
    }

    private int findInComposite(final CompositeByteBuf composite, final int index, final int length)
    {
        final int end = index + length;
        int at = index;
        while (at < end)
        {
            final int component = composite.toComponentIndex(at);
            final int start = composite.toByteIndex(component);
            final ByteBuf bytes = composite.internalComponent(component);
            final int within = at - start;
            final int run = Math.min(end - at, bytes.capacity() - within);
            if (run >= SMALL && locate(bytes, within, run))
            {
                if (at == index)
                {
                    return run;
                }
                // copy what comes before it; it goes out by itself next
                chunk = null;
                return at - index;
            }
            at += run;
        }
        chunk = null;
        return length;
    }

    /**
     * @return whether the bytes lie in one registered chunk; if so {@link #chunk} and {@link #offset} say where.
     */
    private boolean locate(final ByteBuf buf, final int index, final int length)
    {
        if (buf instanceof RegisteredByteBuf registered)
        {
            final Slot slot = registered.slot();
            if (slot == null)
            {
                return false;
            }
            chunk = slot.chunk();
            offset = slot.offset() + (long)index;
            return true;
        }
        if (!buf.isDirect() || buf.nioBufferCount() != 1)
        {
            return false;
        }
        // a view (slice, duplicate, leak-aware wrapper) shows its own bytes through its NIO buffer
        final long address = MemorySegment.ofBuffer(buf.internalNioBuffer(index, length)).address();
        final RegisteredChunk found = RegisteredChunk.at(address);
        if (found == null || address - found.address() + length > found.size())
        {
            return false;
        }
        chunk = found;
        offset = address - found.address();
        return true;
    }
}
