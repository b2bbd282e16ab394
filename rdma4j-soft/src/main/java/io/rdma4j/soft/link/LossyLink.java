package io.rdma4j.soft.link;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A link that loses a seeded fraction of what it sends and passes everything else to the link it
 * wraps: loss on links such as UDP that have no fault injector of their own, so that an
 * application (or a pingpong between two processes) can be tried against a lossy network without
 * {@code tc netem} or root. A dropped datagram is reported as sent, as a network that loses it
 * silently would; {@link #injectedDrops()} counts them.
 */
public final class LossyLink extends ForwardingLink
{
    private final SplittableRandom random;
    private final double probability;
    private final AtomicLong dropped = new AtomicLong();

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
        return dropped.get() + inner.injectedDrops();
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
            dropped.incrementAndGet();
            datagram.position(datagram.limit());
        }
        return drop;
    }
}
