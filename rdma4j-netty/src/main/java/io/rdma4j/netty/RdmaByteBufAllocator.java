package io.rdma4j.netty;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;

import java.util.concurrent.TimeUnit;

/**
 * Direct buffers in memory that the transport registers with the device, so that an {@link RdmaChannel} sends
 * them without a copy: a SEND reads the buffer's own bytes, and the channel holds a reference to the buffer until
 * the SEND completes. It is the default {@code ALLOCATOR} of {@link RdmaChannel}s, so the buffers a channel reads
 * into, and those a handler takes from {@code ctx.alloc()}, are all of it; buffers of any other allocator still
 * go out, copied into the channel's send buffers.
 * <p>
 * Buffers come in power-of-two classes from 64 bytes to 4 MiB, carved from chunks of native memory that the pool
 * keeps for the next buffers; each event loop registers a chunk with a device the first time it sends from it,
 * once. A chunk none of whose buffers has been in use for {@code idleMillis} is given back while more than
 * {@code floorBytes} are reserved: every loop's pool tick (each {@value PoolTrimmer#TICK_MILLIS} ms, on the loop)
 * retires it, each loop deregisters it, and its memory is freed after the last. So a burst, or a peer that made
 * a server hold much, leaves no more than the floor behind. Past {@code maxBytes} of
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
public final class RdmaByteBufAllocator extends AbstractByteBufAllocator implements ByteBufAllocatorMetricProvider
{
    /** Registered memory of {@link #DEFAULT} at most. */
    public static final long DEFAULT_MAX_BYTES = 256L << 20;
    /** Registered memory kept however idle, by default. */
    public static final long DEFAULT_FLOOR_BYTES = 16L << 20;
    /** How long a chunk is unused before it is given back, by default. */
    public static final long DEFAULT_IDLE_MILLIS = 10_000;
    /** The allocator channels use unless told otherwise. */
    public static final RdmaByteBufAllocator DEFAULT = new RdmaByteBufAllocator(DEFAULT_MAX_BYTES);

    private final SlabPool pool;
    private final ByteBufAllocatorMetric metric = new ByteBufAllocatorMetric()
    {
        @Override
        public long usedHeapMemory()
        {
            // heap buffers are Netty's pooled allocator's, not this pool's
            return -1;
        }

        @Override
        public long usedDirectMemory()
        {
            return reservedBytes();
        }

        @Override
        public String toString()
        {
            return RdmaByteBufAllocator.this.toString();
        }
    };

    /**
     * An allocator that keeps {@value #DEFAULT_FLOOR_BYTES} bytes and gives back chunks idle for
     * {@value #DEFAULT_IDLE_MILLIS} ms.
     *
     * @param maxBytes chunk memory it may make; beyond it buffers are plain direct memory.
     */
    public RdmaByteBufAllocator(final long maxBytes)
    {
        this(maxBytes, Math.min(maxBytes, DEFAULT_FLOOR_BYTES), DEFAULT_IDLE_MILLIS);
    }

    /**
     * @param maxBytes   chunk memory it may make; beyond it buffers are plain direct memory.
     * @param floorBytes chunk memory it keeps however long unused, 0..maxBytes.
     * @param idleMillis how long a chunk has had no buffer in use before it is given back, 1 ms or more.
     */
    public RdmaByteBufAllocator(final long maxBytes, final long floorBytes, final long idleMillis)
    {
        super(true);
        if (maxBytes < 0)
        {
            throw new IllegalArgumentException("maxBytes is " + maxBytes + ": it must not be negative");
        }
        if (floorBytes < 0 || floorBytes > maxBytes)
        {
            throw new IllegalArgumentException("floorBytes is " + floorBytes + ": it must be 0.." + maxBytes);
        }
        if (idleMillis < 1)
        {
            throw new IllegalArgumentException("idleMillis is " + idleMillis + ": it must be 1 or more");
        }
        this.pool = new SlabPool(maxBytes, floorBytes, TimeUnit.MILLISECONDS.toNanos(idleMillis));
        PoolTrimmer.register(pool);
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
     * @return chunk memory made and not given back.
     */
    public long reservedBytes()
    {
        return pool.reservedBytes();
    }

    /**
     * @return the pool's figures in Netty's terms: {@code usedDirectMemory} is {@link #reservedBytes()}, as for
     *         Netty's pooled allocator (its arenas' chunks); {@link #usedBytes()} is what of it buffers hold.
     */
    @Override
    public ByteBufAllocatorMetric metric()
    {
        return metric;
    }

    @Override
    public String toString()
    {
        return "RdmaByteBufAllocator[buffers " + buffersInUse() + ", used " + usedBytes() + " of " +
            reservedBytes() + " bytes reserved]";
    }
}
