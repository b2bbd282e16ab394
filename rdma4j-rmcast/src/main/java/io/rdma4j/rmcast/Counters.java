package io.rdma4j.rmcast;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One writer's counters (the thread that offers or polls); read by others as plain longs, so a reader may
 * see a value a moment old, never a torn one on a 64-bit JVM.
 */
final class Counters
{
    private static final RmcastCounter[] ALL = RmcastCounter.values();
    private final long[] values = new long[ALL.length];

    void increment(final RmcastCounter counter)
    {
        values[counter.ordinal()]++;
    }

    void add(final RmcastCounter counter, final long delta)
    {
        values[counter.ordinal()] += delta;
    }

    long get(final RmcastCounter counter)
    {
        return values[counter.ordinal()];
    }

    /** @return the non-zero ones, by label: a snapshot for tools and tests (it allocates). */
    Map<String, Long> snapshot(final RmcastCounter first, final RmcastCounter last)
    {
        final Map<String, Long> map = new LinkedHashMap<>();
        for (int i = first.ordinal(); i <= last.ordinal(); i++)
        {
            map.put(ALL[i].label(), values[i]);
        }
        return map;
    }
}
