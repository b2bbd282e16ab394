package io.rdma4j.netty;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * Direct buffers in memory that the transport registers with the device, so that an {@link RdmaChannel} sends
 * them without a copy: a SEND reads the buffer's own bytes, and the channel holds a reference to the buffer until
 * the SEND completes. It is the default {@code ALLOCATOR} of {@link RdmaChannel}s, so the buffers a channel reads
 * into, and those a handler takes from {@code ctx.alloc()}, are all of it; buffers of any other allocator still
 * go out, copied into the channel's send buffers.
 * <p>
 * Buffers come in power-of-two classes from 64 bytes to 4 MiB, carved from chunks of native memory that are never
 * freed (a pool keeps them for the next buffers, and a device may read them while any SEND is in flight); each
 * event loop registers a chunk with a device the first time it sends from it, once. Past {@code maxBytes} of
 * chunks, or above 4 MiB, buffers are plain direct memory of Netty's pooled allocator, and go out by copy.
 * {@link #buffer()} is direct, like {@link #ioBuffer()}: a handler that asks for a buffer gets one it can send
 * without a copy. Heap buffers are Netty's pooled ones.
 * <p>
 * A write's promise completes when its SENDs are posted, as for a copied write, but the device reads such a buffer
 * until the SENDs complete: code that keeps a reference to a buffer it wrote must not change its bytes until the
 * channel has released it (a socket would have copied them by then). Buffers the channel alone holds, the usual
 * case, go back to the pool only after their SENDs.
 * <p>
 * Any thread may allocate and release; each size class takes a lock of its own.
 */
public final class RdmaByteBufAllocator extends AbstractByteBufAllocator
{
    /** Registered memory of {@link #DEFAULT} at most. */
    public static final long DEFAULT_MAX_BYTES = 256L << 20;
    /** The allocator channels use unless told otherwise. */
    public static final RdmaByteBufAllocator DEFAULT = new RdmaByteBufAllocator(DEFAULT_MAX_BYTES);

    private final SlabPool pool;

    /**
     * @param maxBytes chunk memory it may make; beyond it buffers are plain direct memory.
     */
    public RdmaByteBufAllocator(final long maxBytes)
    {
        super(true);
        if (maxBytes < 0)
        {
            throw new IllegalArgumentException("maxBytes is " + maxBytes + ": it must not be negative");
        }
        this.pool = new SlabPool(maxBytes);
    }

    @Override
    protected ByteBuf newDirectBuffer(final int initialCapacity, final int maxCapacity)
    {
        final Slot slot = pool.allocate(initialCapacity);
        if (slot == null)
        {
            return PooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
        }
        return toLeakAwareBuffer(new RegisteredByteBuf(this, pool, slot, maxCapacity));
    }

    @Override
    protected ByteBuf newHeapBuffer(final int initialCapacity, final int maxCapacity)
    {
        return PooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf buffer()
    {
        return directBuffer();
    }

    @Override
    public ByteBuf buffer(final int initialCapacity)
    {
        return directBuffer(initialCapacity);
    }

    @Override
    public ByteBuf buffer(final int initialCapacity, final int maxCapacity)
    {
        return directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled()
    {
        return true;
    }

    /**
     * @return buffers of registered memory handed out and not yet released.
     */
    public long buffersInUse()
    {
        return pool.slotsInUse();
    }

    /**
     * @return bytes of those buffers, each counted as its whole size class.
     */
    public long usedBytes()
    {
        return pool.usedBytes();
    }

    /**
     * @return chunk memory made so far: it only grows.
     */
    public long reservedBytes()
    {
        return pool.reservedBytes();
    }

    @Override
    public String toString()
    {
        return "RdmaByteBufAllocator[buffers " + buffersInUse() + ", used " + usedBytes() + " of " +
            reservedBytes() + " bytes]";
    }
}
