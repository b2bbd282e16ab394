package io.rdma4j.soft.counter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A set of {@link SoftCounter}s, bumped where the decision is taken and readable from any
 * thread while the device runs. Each counter's slot follows from its {@linkplain SoftCounter#id() id}, so nothing
 * here depends on the order the counters are declared in; each has a cache line to itself.
 * <p>
 * Each counter has two slots, summed when read: the shared one, which any thread bumps ({@link #add}, atomic;
 * {@link #addOwned} where one thread at a time is its only writer), and the receive side's
 * ({@link #addOnReceiveSide}), which one receiving thread at a time writes (the holder of the device's receive
 * claim; for a link's own counters, the holder of its receive lock), with no atomic instruction. A packet counter
 * that the receive side bumps for nearly every packet and other threads bump now and then (rcvd_pkts: a multicast
 * packet looped back to this device's members counts on the sending thread) so costs the receive side a plain
 * store, where one slot for both needed a lock-prefixed add a packet.
 */
public final class Counters
{
    /**
     * Atomic access to one counter of the array. A heap array, not a memory segment: a segment's every access
     * checks its session, and with several counters bumped a packet those checks were a twentieth of a
     * same-host packet's cost.
     */
    private static final VarHandle VALUE = MethodHandles.arrayElementVarHandle(long[].class);
    /**
     * Longs from one counter to the next in a device's set: 128 bytes, a cache line and the one an adjacent-line
     * prefetcher pairs it with. Counters side by side shared a line between the thread that sends (sent_pkts,
     * udp_sent_pkts, rdma_sends) and the one that receives (rcvd_pkts, udp_rcvd_pkts, rdma_recvs), so a line
     * crossed cores on nearly every packet of a stream with a progress thread: 70 to 320 ns a crossing on a
     * 2-vCPU EPYC VM.
     */
    static final int PADDED_STRIDE = 16;

    private final long[] values;
    private final int stride;
    /** From a counter's shared slot to its receive-side slot, in the second table. */
    private final int receiveSide;
    /** The first counter's index: a stride in when padded, so that no counter shares a line with the header. */
    private final int first;

    /**
     * A device's counters (or a link's): zero, each slot on a cache line pair of its own, 22 KiB in all.
     */
    public Counters()
    {
        this(PADDED_STRIDE);
    }

    private Counters(final int stride)
    {
        this.stride = stride;
        this.first = stride > 1 ? stride : 0;
        // the receive side's slots: a second table of the same shape after the first, each padded slot again on a
        // 128-byte pair of its own
        this.receiveSide = SoftCounter.ID_LIMIT * stride;
        this.values = new long[first + 2 * receiveSide];
    }

    /**
     * @return a QP's counters: zero, side by side (two tables of 712 bytes, the shared slots and the receive
     *         side's, where a padded set is 16 times that: a device may hold many thousands of QPs, and a QP's
     *         own state crosses cores with its packets anyway).
     */
    public static Counters compact()
    {
        return new Counters(1);
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
        final long before = (long)VALUE.getAndAdd(values, index(counter), delta);
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
        final int index = index(counter);
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
     * Add on the receive side: for any one counter, only one thread at a time calls this (the holder of the
     * device's receive claim, the progress thread's cycle or a poller receiving inline; for a link's counters, the
     * holder of its receive lock), so a plain read and a release store do, whatever other threads add to the
     * counter's shared slot meanwhile. The lock orders one holder's stores before the next holder's reads.
     *
     * @param counter which one.
     * @param delta   how much.
     */
    public void addOnReceiveSide(final SoftCounter counter, final long delta)
    {
        final int index = receiveSideIndex(counter);
        VALUE.setRelease(values, index, (long)VALUE.get(values, index) + delta);
    }

    /**
     * {@link #addOnReceiveSide} by one.
     *
     * @param counter which one.
     */
    public void incrementOnReceiveSide(final SoftCounter counter)
    {
        addOnReceiveSide(counter, 1);
    }

    /**
     * Bump a counter that the receive side and other threads both bump: on the receive side's slot where the
     * caller holds the receive claim ({@link #incrementOnReceiveSide}), else atomically on the shared one.
     *
     * @param counter       which one.
     * @param onReceiveSide true if the caller is the receive side.
     */
    public void increment(final SoftCounter counter, final boolean onReceiveSide)
    {
        if (onReceiveSide)
        {
            incrementOnReceiveSide(counter);
        }
        else
        {
            increment(counter);
        }
    }

    /**
     * @param counter which one.
     * @return its value now: its shared slot and its receive side's.
     */
    public long get(final SoftCounter counter)
    {
        final int index = index(counter);
        return (long)VALUE.getVolatile(values, index) + (long)VALUE.getVolatile(values, index + receiveSide);
    }

    /** @return the counter's index in {@link #values}: its shared slot. */
    int index(final SoftCounter counter)
    {
        return first + counter.id() * stride;
    }

    /** @return the index of the counter's receive-side slot in {@link #values}. */
    int receiveSideIndex(final SoftCounter counter)
    {
        return index(counter) + receiveSide;
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
