package io.rdma4j.netty;

import java.lang.ref.WeakReference;
import java.util.concurrent.CopyOnWriteArrayList;

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
