package io.rdma4j.soft.counter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A set of {@link SoftCounter}s, bumped where the decision is taken and readable from any
 * thread while the device runs.
 */
public final class Counters
{
    /** Atomic access to one 8-byte counter of the segment. */
    private static final VarHandle VALUE = ValueLayout.JAVA_LONG.varHandle();
    private static final int COUNT = SoftCounter.values().length;

    private final MemorySegment values;

    /**
     * Counters in memory of their own, zero.
     */
    public Counters()
    {
        this.values = Arena.ofAuto().allocate((long)COUNT * Long.BYTES, Long.BYTES);
    }

    /**
     * @param counter which one.
     */
    public void increment(final SoftCounter counter)
    {
        add(counter, 1);
    }

    /**
     * @param counter which one.
     * @param delta   how much.
     */
    public void add(final SoftCounter counter, final long delta)
    {
        // the exact signature (a long back) keeps the call free of adaptation and boxing
        final long before = (long)VALUE.getAndAdd(values, (long)counter.ordinal() * Long.BYTES, delta);
    }

    /**
     * @param counter which one.
     * @return its value now.
     */
    public long get(final SoftCounter counter)
    {
        return (long)VALUE.getVolatile(values, (long)counter.ordinal() * Long.BYTES);
    }

    /**
     * @return every counter by name, in declaration order.
     */
    public Map<String, Long> snapshot()
    {
        final Map<String, Long> map = new LinkedHashMap<>();
        for (final SoftCounter counter : SoftCounter.values())
        {
            map.put(counter.counterName(), get(counter));
        }
        return map;
    }
}
