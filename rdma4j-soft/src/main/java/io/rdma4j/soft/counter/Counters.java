package io.rdma4j.soft.counter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A set of {@link SoftCounter}s, bumped where the decision is taken and readable from any
 * thread while the device runs. Each counter's slot is its {@linkplain SoftCounter#id() id}, so the memory
 * layout is the published one: nothing here depends on the order the counters are declared in.
 */
public final class Counters
{
    /**
     * Atomic access to one counter of the array. A heap array, not a memory segment: a segment's every access
     * checks its session, and with several counters bumped a packet those checks were a twentieth of a
     * same-host packet's cost.
     */
    private static final VarHandle VALUE = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int COUNT = SoftCounter.ID_LIMIT;

    private final long[] values = new long[COUNT];

    /**
     * Counters in memory of their own, zero.
     */
    public Counters()
    {
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
        final long before = (long)VALUE.getAndAdd(values, counter.id(), delta);
    }

    /**
     * Add for a counter that one thread at a time bumps (under a lock, or on the one thread that owns what it
     * counts): a plain read and a release store, no atomic instruction, so the links' per-syscall counters cost
     * what their own volatile fields did. Two threads bumping it at once lose counts; the atomic {@link #add}
     * is for any other counter.
     *
     * @param counter which one.
     * @param delta   how much.
     */
    public void addOwned(final SoftCounter counter, final long delta)
    {
        final int index = counter.id();
        VALUE.setRelease(values, index, (long)VALUE.get(values, index) + delta);
    }

    /**
     * {@link #addOwned} by one.
     *
     * @param counter which one.
     */
    public void incrementOwned(final SoftCounter counter)
    {
        addOwned(counter, 1);
    }

    /**
     * @param counter which one.
     * @return its value now.
     */
    public long get(final SoftCounter counter)
    {
        return (long)VALUE.getVolatile(values, counter.id());
    }

    /**
     * @return every counter by name, in id order.
     */
    public Map<String, Long> snapshot()
    {
        final Map<String, Long> map = new LinkedHashMap<>();
        for (final SoftCounter counter : SoftCounter.inIdOrder())
        {
            map.put(counter.counterName(), get(counter));
        }
        return map;
    }
}
