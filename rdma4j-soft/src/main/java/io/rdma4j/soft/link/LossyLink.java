package io.rdma4j.soft.link;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * A link that loses a seeded fraction of what it sends and passes everything else to the link it
 * wraps: loss on links such as UDP that have no fault injector of their own, so that an
 * application (or a pingpong between two processes) can be tried against a lossy network without
 * {@code tc netem} or root. A dropped datagram is reported as sent, as a network that loses it
 * silently would; {@link #injectedDrops()} counts them ({@code drop_injected}).
 */
public final class LossyLink extends ForwardingLink
{
    private final SplittableRandom random;
    private final double probability;
    /** Counts until the link is bound to a device's counters. */
    private final Counters own = new Counters();
    private volatile Counters counters = own;

    /**
     * @param inner       the link that carries what is not dropped.
     * @param seed        seeds the choice of datagrams to drop, so a run can be repeated.
     * @param probability the chance, in [0, 1), that a datagram is dropped.
     */
    public LossyLink(final Link inner, final long seed, final double probability)
    {
        super(inner);
        if (!(probability >= 0 && probability < 1))
        {
            throw new IllegalArgumentException("loss probability " + probability + " is not in [0, 1)");
        }
        this.random = new SplittableRandom(seed);
        this.probability = probability;
    }

    @Override
    public long injectedDrops()
    {
        final Counters now = counters;
        // once bound, every lossy link of a chain counts in the one device's counters: adding the inner's would
        // count its drops twice
        return now == own ? now.get(SoftCounter.DROP_INJECTED) + inner.injectedDrops() :
            now.get(SoftCounter.DROP_INJECTED);
    }

    @Override
    public void bindCounters(final Counters deviceCounters)
    {
        counters = deviceCounters;
        inner.bindCounters(deviceCounters);
    }

    @Override
    public boolean send(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        if (drops(datagram))
        {
            return true;
        }
        return inner.send(datagram, destination, hopLimit);
    }

    @Override
    public boolean queue(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        if (drops(datagram))
        {
            return true;
        }
        return inner.queue(datagram, destination, hopLimit);
    }

    @Override
    public boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit)
    {
        if (drops(tail))
        {
            return true;
        }
        return inner.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit);
    }

    private boolean drops(final ByteBuffer datagram)
    {
        final boolean drop;
        synchronized (random)
        {
            drop = random.nextDouble() < probability;
        }
        if (drop)
        {
            counters.increment(SoftCounter.DROP_INJECTED);
            datagram.position(datagram.limit());
        }
        return drop;
    }
}
