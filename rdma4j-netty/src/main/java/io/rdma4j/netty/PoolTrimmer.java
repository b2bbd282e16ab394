package io.rdma4j.netty;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.ref.WeakReference;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every {@link SlabPool} of the JVM, so that each event loop's pool tick can give back their idle chunks: a pool
 * is shared by every loop, so any loop may trim it (the trim takes each class's lock), and each loop then closes
 * its own regions of the chunks retired ({@link DeviceMemory#dropRetired}). Held weakly: an allocator that is
 * dropped takes its pool out.
 */
final class PoolTrimmer
{
    /** How often a loop that has made RDMA resources trims the pools and drops retired regions. */
    static final long TICK_MILLIS = 1000;

    private static final CopyOnWriteArrayList<WeakReference<SlabPool>> POOLS = new CopyOnWriteArrayList<>();
    /** Chunk bytes freed since the C heap was last trimmed. */
    private static final AtomicLong FREED = new AtomicLong();
    /**
     * glibc's {@code malloc_trim}, or null where there is none: a chunk is malloc'ed, and glibc keeps freed
     * chunks of a megabyte in its heap (its mmap threshold rises with the first free), so without a trim the
     * process's resident memory would not fall.
     */
    private static final MethodHandle MALLOC_TRIM = mallocTrim();

    private PoolTrimmer()
    {
    }

    /**
     * @param pool a pool to trim from now on.
     */
    static void register(final SlabPool pool)
    {
        POOLS.add(new WeakReference<>(pool));
    }

    private static MethodHandle mallocTrim()
    {
        final Linker linker = Linker.nativeLinker();
        return linker.defaultLookup().find("malloc_trim").map(address -> linker.downcallHandle(address,
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG))).orElse(null);
    }

    /**
     * @param bytes a chunk's memory, just freed.
     */
    static void freed(final long bytes)
    {
        FREED.addAndGet(bytes);
    }

    /** After a tick: give the C heap's free memory back to the system if chunks were freed since the last. */
    static void releaseFreed()
    {
        if (FREED.get() == 0 || FREED.getAndSet(0) == 0 || MALLOC_TRIM == null)
        {
            return;
        }
        try
        {
            final int ignored = (int)MALLOC_TRIM.invokeExact(0L);
        }
        catch (final Throwable ex)
        {
            // the memory stays in the C heap for the next allocation: nothing is lost
            System.getLogger(PoolTrimmer.class.getName()).log(System.Logger.Level.DEBUG, "malloc_trim failed", ex);
        }
    }

    /**
     * Trim every pool.
     *
     * @param now {@link System#nanoTime()}.
     */
    static void trimAll(final long now)
    {
        for (final WeakReference<SlabPool> ref : POOLS)
        {
            final SlabPool pool = ref.get();
            if (pool == null)
            {
                POOLS.remove(ref);
            }
            else
            {
                pool.trim(now);
            }
        }
    }
}
