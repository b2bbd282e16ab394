package io.rdma4j.soft;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A set of {@link SoftCounter}s, bumped where the decision is taken and readable from any
 * thread while the device runs.
 */
public final class Counters
{
    private final AtomicLongArray values = new AtomicLongArray(SoftCounter.values().length);

    /**
     * @param counter which one.
     */
    public void increment(final SoftCounter counter)
    {
        values.getAndIncrement(counter.ordinal());
    }

    /**
     * @param counter which one.
     * @param delta   how much.
     */
    public void add(final SoftCounter counter, final long delta)
    {
        values.getAndAdd(counter.ordinal(), delta);
    }

    /**
     * @param counter which one.
     * @return its value now.
     */
    public long get(final SoftCounter counter)
    {
        return values.get(counter.ordinal());
    }

    /**
     * @return every counter by name, in declaration order.
     */
    public Map<String, Long> snapshot()
    {
        final Map<String, Long> map = new LinkedHashMap<>();
        for (final SoftCounter counter : SoftCounter.values())
        {
            map.put(counter.counterName(), values.get(counter.ordinal()));
        }
        return map;
    }
}
