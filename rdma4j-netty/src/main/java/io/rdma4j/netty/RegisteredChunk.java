package io.rdma4j.netty;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A run of native memory that buffers of a {@link RdmaByteBufAllocator} are carved from, and the unit an event
 * loop registers with a device. Chunks are never freed: a SEND's memory must stay while any loop may still post
 * from it, and pools keep their chunks for reuse anyway. Every chunk of the JVM is in one registry, so a loop
 * finds the chunk of any buffer's bytes by address, whichever allocator made it, and keeps its regions by the
 * chunk's id.
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
    private final MemorySegment segment;
    private final long address;

    private RegisteredChunk(final int id, final MemorySegment segment)
    {
        this.id = id;
        this.segment = segment;
        this.address = segment.address();
    }

    /**
     * @param size bytes.
     * @return a new chunk, in the registry.
     */
    static RegisteredChunk allocate(final int size)
    {
        // the global arena: a device's threads read it, and it is never freed (see the class comment)
        final MemorySegment memory = Arena.global().allocate(size, ALIGNMENT);
        synchronized (LOCK)
        {
            final RegisteredChunk[] ids = byId;
            final RegisteredChunk chunk = new RegisteredChunk(ids.length, memory);
            final RegisteredChunk[] grownIds = Arrays.copyOf(ids, ids.length + 1);
            grownIds[chunk.id] = chunk;
            final RegisteredChunk[] addresses = Arrays.copyOf(byAddress, ids.length + 1);
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
     * @return its chunk.
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
