package io.rdma4j.soft;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

/**
 * The device's memory regions by key: slot index in the high 24 bits, a generation in the low
 * 8. Lookups on the data path read a volatile array without locking.
 */
public final class MrTable
{
    private final int capacity;
    private volatile SoftMr[] slots = new SoftMr[64];
    private byte[] gens = new byte[64];
    private int count;
    private int nextFree;

    /**
     * @param capacity max_mr.
     */
    public MrTable(final int capacity)
    {
        this.capacity = capacity;
    }

    /**
     * @param maker builds the region once its key is chosen.
     * @return the region.
     */
    public synchronized SoftMr add(final java.util.function.IntFunction<SoftMr> maker)
    {
        if (count >= capacity)
        {
            throw new RdmaException(Errno.ENOMEM, "the device has " + count + " memory regions, max_mr is " + capacity);
        }
        SoftMr[] current = slots;
        int index = -1;
        for (int i = 0; i < current.length; i++)
        {
            final int candidate = (nextFree + i) % current.length;
            // slot 0 stays unused so that key 0 (and small garbage keys) never match
            if (candidate != 0 && current[candidate] == null)
            {
                index = candidate;
                break;
            }
        }
        if (index < 0)
        {
            index = current.length;
            final SoftMr[] grown = java.util.Arrays.copyOf(current, current.length * 2);
            gens = java.util.Arrays.copyOf(gens, grown.length);
            current = grown;
        }
        gens[index]++;
        final int key = (index << 8) | (gens[index] & 0xFF);
        final SoftMr mr = maker.apply(key);
        final SoftMr[] next = current == slots ? current.clone() : current;
        next[index] = mr;
        slots = next;
        nextFree = index + 1;
        count++;
        return mr;
    }

    /**
     * @param mr the region to forget.
     */
    public synchronized void remove(final SoftMr mr)
    {
        final int index = mr.lkey() >>> 8;
        final SoftMr[] next = slots.clone();
        if (index < next.length && next[index] == mr)
        {
            next[index] = null;
            slots = next;
            count--;
        }
    }

    /**
     * @param key an lkey or rkey.
     * @return the valid region with that key, or null.
     */
    public SoftMr lookup(final int key)
    {
        final SoftMr[] current = slots;
        final int index = key >>> 8;
        if (index >= current.length)
        {
            return null;
        }
        final SoftMr mr = current[index];
        return mr != null && mr.lkey() == key && mr.isValid() ? mr : null;
    }

    /**
     * @return regions registered.
     */
    public synchronized int count()
    {
        return count;
    }
}
