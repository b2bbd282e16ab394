package io.rdma4j.netty;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory of one {@link RdmaByteBufAllocator}: buffers in power-of-two classes from {@value #MIN_CLASS} bytes
 * to {@value #MAX_CLASS}, each class carving chunks of its own (of {@value #CHUNK_SIZE} bytes, or one buffer for
 * the classes above that) into equal slots; a freed slot goes back to its class's stack for the next buffer of
 * the class. Chunks are made until {@code maxBytes}, then a request is refused and the allocator hands out plain
 * direct memory instead. Any thread may allocate and free; each class has its own lock.
 */
final class SlabPool
{
    static final int MIN_CLASS = 64;
    static final int MAX_CLASS = 4 << 20;
    static final int CHUNK_SIZE = 1 << 20;
    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(MIN_CLASS);
    private static final int CLASSES = Integer.numberOfTrailingZeros(MAX_CLASS) - MIN_SHIFT + 1;

    private final long maxBytes;
    private final SizeClass[] classes = new SizeClass[CLASSES];
    private final AtomicLong reserved = new AtomicLong();
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong slotsInUse = new AtomicLong();

    /**
     * @param maxBytes chunk memory this pool may make, at most.
     */
    SlabPool(final long maxBytes)
    {
        this.maxBytes = maxBytes;
        for (int i = 0; i < CLASSES; i++)
        {
            classes[i] = new SizeClass(MIN_CLASS << i);
        }
    }

    /**
     * @param capacity bytes wanted.
     * @return a slot of the smallest class that holds them, viewed as {@code capacity} bytes; null when the
     *         capacity is above the largest class or the pool may make no more chunks.
     */
    Slot allocate(final int capacity)
    {
        if (capacity > MAX_CLASS)
        {
            return null;
        }
        final int index = classOf(capacity);
        final SizeClass sizeClass = classes[index];
        final long ref = sizeClass.take();
        if (ref < 0)
        {
            return null;
        }
        final RegisteredChunk chunk = chunkOf(ref);
        used.addAndGet(sizeClass.size);
        slotsInUse.incrementAndGet();
        return new Slot(this, chunk, (int)ref, index, capacity);
    }

    /**
     * @param slot a slot of this pool, not to be used again.
     */
    void free(final Slot slot)
    {
        final SizeClass sizeClass = classes[slot.sizeClass()];
        used.addAndGet(-sizeClass.size);
        slotsInUse.decrementAndGet();
        sizeClass.give((long)slot.chunk().id() << 32 | slot.offset());
    }

    private static RegisteredChunk chunkOf(final long ref)
    {
        return RegisteredChunk.get((int)(ref >>> 32));
    }

    private static int classOf(final int capacity)
    {
        if (capacity <= MIN_CLASS)
        {
            return 0;
        }
        return 32 - Integer.numberOfLeadingZeros(capacity - 1) - MIN_SHIFT;
    }

    /**
     * @return chunk memory made.
     */
    long reservedBytes()
    {
        return reserved.get();
    }

    /**
     * @return bytes of the slots handed out and not yet freed (whole classes, not the capacities asked for).
     */
    long usedBytes()
    {
        return used.get();
    }

    /**
     * @return slots handed out and not yet freed.
     */
    long slotsInUse()
    {
        return slotsInUse.get();
    }

    /** The free slots of one size, as chunk id and offset packed in a long. */
    private final class SizeClass
    {
        final int size;
        private long[] free = new long[16];
        private int freeCount;
        /** Slots of all the class's chunks. */
        private int total;

        SizeClass(final int size)
        {
            this.size = size;
        }

        /**
         * @return a free slot, carving a new chunk when there is none; -1 when no chunk may be made.
         */
        synchronized long take()
        {
            if (freeCount == 0 && !carve())
            {
                return -1;
            }
            return free[--freeCount];
        }

        synchronized void give(final long ref)
        {
            free[freeCount++] = ref;
        }

        private boolean carve()
        {
            final int chunkSize = Math.max(size, CHUNK_SIZE);
            if (reserved.addAndGet(chunkSize) > maxBytes)
            {
                reserved.addAndGet(-chunkSize);
                return false;
            }
            final RegisteredChunk chunk = RegisteredChunk.allocate(chunkSize);
            final int slots = chunkSize / size;
            // the stack holds every slot of the class at once, the ones in use as room to come back to
            final int needed = slots + total;
            if (free.length < needed)
            {
                free = Arrays.copyOf(free, Math.max(needed, free.length * 2));
            }
            total = needed;
            // lowest offset on top, so a quiet pool reuses the same few slots
            for (int i = slots - 1; i >= 0; i--)
            {
                free[freeCount++] = (long)chunk.id() << 32 | (long)i * size;
            }
            return true;
        }
    }
}
