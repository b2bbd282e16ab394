package io.rdma4j.netty;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A run of native memory that buffers of a {@link RdmaByteBufAllocator} are carved from, and the unit an event
 * loop registers with a device. Every chunk of the JVM is in one registry, so a loop finds the chunk of any
 * buffer's bytes by address, whichever allocator made it, and keeps its regions by the chunk's id (never reused).
 * <p>
 * A chunk's pool may retire it once none of its buffers is in use (so no SEND reads it): it leaves the registry
 * by address at once, each loop that registered it deregisters its region at its next pool tick, and the memory is
 * freed when the last region is gone, never while a device may still have it registered.
 */
final class RegisteredChunk
{
    /** Chunks start on a page, as memory registered with a device is pinned in pages. */
    private static final long ALIGNMENT = 4096;
    private static final Object LOCK = new Object();
    /** By id; replaced whole when a chunk is added, so readers take no lock. */
    private static volatile RegisteredChunk[] byId = new RegisteredChunk[0];
    /** The same chunks by address, ascending. */
    private static volatile RegisteredChunk[] byAddress = new RegisteredChunk[0];

    private final int id;
    private final Arena arena;
    private final MemorySegment segment;
    private final long address;
    /** The pool's hold, until it retires the chunk, and one per loop's region of it: the memory goes at 0. */
    private final AtomicInteger holds = new AtomicInteger(1);
    private volatile boolean retired;
    /** Slots of the chunk handed out; under its size class's lock. */
    int slotsInUse;
    /** When the last of them came back ({@link System#nanoTime()}); under its size class's lock. */
    long idleSince;

    private RegisteredChunk(final int id, final Arena arena, final MemorySegment segment)
    {
        this.id = id;
        this.arena = arena;
        this.segment = segment;
        this.address = segment.address();
        this.idleSince = System.nanoTime();
    }

    /**
     * @param size bytes.
     * @return a new chunk, in the registry.
     */
    static RegisteredChunk allocate(final int size)
    {
        // shared: a device's threads read it
        final Arena arena = Arena.ofShared();
        final MemorySegment memory = arena.allocate(size, ALIGNMENT);
        synchronized (LOCK)
        {
            final RegisteredChunk[] ids = byId;
            final RegisteredChunk chunk = new RegisteredChunk(ids.length, arena, memory);
            final RegisteredChunk[] grownIds = Arrays.copyOf(ids, ids.length + 1);
            grownIds[chunk.id] = chunk;
            final RegisteredChunk[] addresses = Arrays.copyOf(byAddress, byAddress.length + 1);
            int at = addresses.length - 1;
            while (at > 0 && addresses[at - 1].address > chunk.address)
            {
                addresses[at] = addresses[at - 1];
                at--;
            }
            addresses[at] = chunk;
            byAddress = addresses;
            byId = grownIds;
            return chunk;
        }
    }

    /**
     * A loop registers the chunk with a device: the memory stays until it deregisters ({@link #deregistered}).
     *
     * @return false if the chunk is retired, and must not be registered.
     */
    boolean registering()
    {
        int now;
        do
        {
            now = holds.get();
            if (now == 0 || retired)
            {
                return false;
            }
        }
        while (!holds.compareAndSet(now, now + 1));
        return true;
    }

    /** A loop's region of the chunk is closed. */
    void deregistered()
    {
        release();
    }

    /**
     * The pool gives the chunk up; only once none of its slots is in use, and with none of them free to take any
     * more. It leaves the registry by address now, and its memory goes once no loop has it registered.
     */
    void retire()
    {
        retired = true;
        synchronized (LOCK)
        {
            final RegisteredChunk[] addresses = byAddress;
            final RegisteredChunk[] fewer = new RegisteredChunk[addresses.length - 1];
            int to = 0;
            for (final RegisteredChunk chunk : addresses)
            {
                if (chunk != this)
                {
                    fewer[to++] = chunk;
                }
            }
            byAddress = fewer;
        }
        release();
    }

    /**
     * @return whether its pool gave it up: a loop's region of it is to be closed.
     */
    boolean retired()
    {
        return retired;
    }

    private void release()
    {
        if (holds.decrementAndGet() == 0)
        {
            synchronized (LOCK)
            {
                final RegisteredChunk[] ids = byId.clone();
                ids[id] = null;
                byId = ids;
            }
            arena.close();
            PoolTrimmer.freed(segment.byteSize());
        }
    }

    /**
     * @param address a native address.
     * @return the chunk that holds it, or null.
     */
    static RegisteredChunk at(final long address)
    {
        final RegisteredChunk[] chunks = byAddress;
        int low = 0;
        int high = chunks.length - 1;
        while (low <= high)
        {
            final int mid = (low + high) >>> 1;
            final RegisteredChunk chunk = chunks[mid];
            if (address < chunk.address)
            {
                high = mid - 1;
            }
            else if (address - chunk.address >= chunk.segment.byteSize())
            {
                low = mid + 1;
            }
            else
            {
                return chunk;
            }
        }
        return null;
    }

    /**
     * @param id an id {@link #allocate} gave.
     * @return its chunk; null once it is freed.
     */
    static RegisteredChunk get(final int id)
    {
        return byId[id];
    }

    /**
     * @return chunks made so far: ids run below it.
     */
    static int count()
    {
        return byId.length;
    }

    /**
     * @return its index in the registry.
     */
    int id()
    {
        return id;
    }

    /**
     * @return its memory.
     */
    MemorySegment segment()
    {
        return segment;
    }

    /**
     * @return the address of its first byte.
     */
    long address()
    {
        return address;
    }

    /**
     * @return its bytes.
     */
    int size()
    {
        return (int)segment.byteSize();
    }
}
