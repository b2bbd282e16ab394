package io.rdma4j.netty;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pool's trim with the clock given, so no test waits: chunks with no slot in use for the idle time go back
 * down to the floor, leave the registry at once, and free their memory only once no loop has them registered.
 */
class SlabPoolTrimTest
{
    private static final long IDLE = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int SIZE = 64 * 1024;
    /** Slots of {@link #SIZE} per chunk. */
    private static final int PER_CHUNK = SlabPool.CHUNK_SIZE / SIZE;

    private static List<Slot> fill(final SlabPool pool, final int chunks)
    {
        final List<Slot> slots = new ArrayList<>();
        for (int i = 0; i < chunks * PER_CHUNK; i++)
        {
            slots.add(pool.allocate(SIZE));
        }
        return slots;
    }

    @Test
    void idleChunksGoBackDownToTheFloorAndNoSooner()
    {
        final SlabPool pool = new SlabPool(16L << 20, 2L * SlabPool.CHUNK_SIZE, IDLE);
        final List<Slot> slots = fill(pool, 6);
        assertEquals(6L * SlabPool.CHUNK_SIZE, pool.reservedBytes());
        final long start = System.nanoTime();
        assertEquals(0, pool.trim(start + 10 * IDLE), "no chunk goes while its slots are in use");

        slots.forEach(pool::free);
        final long freed = System.nanoTime();
        assertEquals(0, pool.trim(freed + IDLE / 2), "not before the idle time");
        assertEquals(4L * SlabPool.CHUNK_SIZE, pool.trim(freed + IDLE + 1), "down to the floor");
        assertEquals(2L * SlabPool.CHUNK_SIZE, pool.reservedBytes());
        assertEquals(0, pool.trim(freed + 100 * IDLE), "the floor stays");

        // what is left serves as before, and the pool grows again past it
        final List<Slot> again = fill(pool, 3);
        assertEquals(3L * SlabPool.CHUNK_SIZE, pool.reservedBytes());
        again.forEach(pool::free);
        assertEquals(0, pool.usedBytes());
    }

    @Test
    void aRetiredChunkLeavesTheRegistryAtOnceAndItsMemoryAfterTheLastRegion()
    {
        final SlabPool pool = new SlabPool(16L << 20, 0, IDLE);
        final Slot slot = pool.allocate(SIZE);
        final RegisteredChunk chunk = slot.chunk();
        assertSame(chunk, RegisteredChunk.at(chunk.address()));
        // a loop registered it, as DeviceMemory does for a SEND from it
        assertTrue(chunk.registering());
        pool.free(slot);
        assertEquals(SlabPool.CHUNK_SIZE, pool.trim(System.nanoTime() + 2 * IDLE));

        assertTrue(chunk.retired());
        assertNull(RegisteredChunk.at(chunk.address()), "no SEND finds it any more");
        assertFalse(chunk.registering(), "no loop registers it again");
        assertTrue(chunk.segment().scope().isAlive(), "the memory stays while a region of it is open");
        chunk.deregistered();
        assertFalse(chunk.segment().scope().isAlive(), "and goes with the last");
        assertNull(RegisteredChunk.get(chunk.id()));
    }
}
