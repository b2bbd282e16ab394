package io.rdma4j.netty;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory of one {@link RdmaByteBufAllocator}: buffers in power-of-two classes from {@value #MIN_CLASS} bytes
 * to {@value #MAX_CLASS}, each class carving chunks of its own (of {@value #CHUNK_SIZE} bytes, or one buffer for
 * the classes above that) into equal slots; a freed slot goes back to its class's stack for the next buffer of
 * the class. Chunks are made until {@code maxBytes}, then a request is refused and the allocator hands out plain
 * direct memory instead. A chunk none of whose slots has been in use for {@code idleNanos} is given back
 * ({@link #trim}) while more than {@code floorBytes} are reserved, so a burst's memory does not stay for good. Any
 * thread may allocate, free and trim; each class has its own lock.
 */
final class SlabPool
{
    static final int MIN_CLASS = 64;
    static final int MAX_CLASS = 4 << 20;
    static final int CHUNK_SIZE = 1 << 20;
    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(MIN_CLASS);
    private static final int CLASSES = Integer.numberOfTrailingZeros(MAX_CLASS) - MIN_SHIFT + 1;

    private final long maxBytes;
    private final long floorBytes;
    private final long idleNanos;
    private final SizeClass[] classes = new SizeClass[CLASSES];
    private final AtomicLong reserved = new AtomicLong();
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong slotsInUse = new AtomicLong();

    /**
     * @param maxBytes   chunk memory this pool may make, at most.
     * @param floorBytes chunk memory {@link #trim} keeps, idle or not.
     * @param idleNanos  how long a chunk must have had no slot in use before {@link #trim} gives it back.
     */
    SlabPool(final long maxBytes, final long floorBytes, final long idleNanos)
    {
        this.maxBytes = maxBytes;
        this.floorBytes = floorBytes;
        this.idleNanos = idleNanos;
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

    /**
     * Give back the chunks idle for {@code idleNanos}, largest classes first, down to {@code floorBytes}: each is
     * retired ({@link RegisteredChunk#retire}), so its memory goes once every loop has deregistered it.
     *
     * @param now {@link System#nanoTime()}.
     * @return bytes given back.
     */
    long trim(final long now)
    {
        long freed = 0;
        for (int i = CLASSES - 1; i >= 0 && reserved.get() > floorBytes; i--)
        {
            freed += classes[i].trim(now);
        }
        return freed;
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
     * @return chunk memory made and not given back.
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
        private final List<RegisteredChunk> chunks = new ArrayList<>();

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
            final long ref = free[--freeCount];
            chunkOf(ref).slotsInUse++;
            return ref;
        }

        synchronized void give(final long ref)
        {
            free[freeCount++] = ref;
            final RegisteredChunk chunk = chunkOf(ref);
            if (--chunk.slotsInUse == 0)
            {
                chunk.idleSince = System.nanoTime();
            }
        }

        /**
         * @param now {@link System#nanoTime()}.
         * @return bytes of the chunks given back.
         */
        synchronized long trim(final long now)
        {
            long freed = 0;
            for (int c = chunks.size() - 1; c >= 0; c--)
            {
                final RegisteredChunk chunk = chunks.get(c);
                final int chunkSize = chunk.size();
                if (chunk.slotsInUse > 0 || now - chunk.idleSince < idleNanos ||
                    reserved.get() - chunkSize < floorBytes)
                {
                    continue;
                }
                // every slot of the chunk is on the stack: take them off, keeping the others' order
                int to = 0;
                for (int i = 0; i < freeCount; i++)
                {
                    if ((int)(free[i] >>> 32) != chunk.id())
                    {
                        free[to++] = free[i];
                    }
                }
                total -= freeCount - to;
                freeCount = to;
                chunks.remove(c);
                reserved.addAndGet(-chunkSize);
                chunk.retire();
                freed += chunkSize;
            }
            return freed;
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
            chunks.add(chunk);
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
