package io.rdma4j.soft.resource;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.security.SecureRandom;
import java.util.random.RandomGenerator;

/**
 * The device's memory regions by key, as rxe makes its keys: the slot index in the high 24 bits and
 * a random key byte in the low 8, drawn anew on every registration and never the slot's previous
 * one. A stale key misses the region that reused its slot, and a host that learned one key cannot
 * predict the next from it. Lookups on the data path read a volatile array without locking.
 */
public final class MrTable
{
    private final int capacity;
    private final Counters counters;
    private final RandomGenerator random;
    private volatile SoftMr[] slots = new SoftMr[64];
    private byte[] keyBytes = new byte[64];
    private int count;
    private int nextFree;

    /**
     * @param capacity max_mr.
     * @param counters where a key with a live index and a wrong key byte is counted.
     */
    public MrTable(final int capacity, final Counters counters)
    {
        this(capacity, counters, new SecureRandom());
    }

    /**
     * @param capacity max_mr.
     * @param counters where a key with a live index and a wrong key byte is counted.
     * @param random   where key bytes come from.
     */
    public MrTable(final int capacity, final Counters counters, final RandomGenerator random)
    {
        this.capacity = capacity;
        this.counters = counters;
        this.random = random;
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
            keyBytes = java.util.Arrays.copyOf(keyBytes, grown.length);
            current = grown;
        }
        // a byte from 1..255 added to the old one: random, and never the slot's previous key
        keyBytes[index] += (byte)random.nextInt(1, 256);
        final int key = (index << 8) | (keyBytes[index] & 0xFF);
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
        if (mr == null || !mr.isValid())
        {
            return null;
        }
        if (mr.lkey() != key)
        {
            counters.increment(SoftCounter.MR_KEY_MISMATCH);
            return null;
        }
        return mr;
    }

    /**
     * @return regions registered.
     */
    public synchronized int count()
    {
        return count;
    }
}
