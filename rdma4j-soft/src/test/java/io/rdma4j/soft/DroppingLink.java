package io.rdma4j.soft;

import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.Link;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A link that loses a seeded fraction of what it sends and otherwise passes everything to the
 * link it wraps: loss for links, such as UDP, that have no fault injector. Sending reports
 * success for a dropped datagram, as a network that loses it silently would.
 */
final class DroppingLink implements Link
{
    private final Link inner;
    private final SplittableRandom random;
    private final double probability;
    private final AtomicLong dropped = new AtomicLong();

    DroppingLink(final Link inner, final long seed, final double probability)
    {
        this.inner = inner;
        this.random = new SplittableRandom(seed);
        this.probability = probability;
    }

    long dropped()
    {
        return dropped.get();
    }

    @Override
    public InetAddress localAddress()
    {
        return inner.localAddress();
    }

    @Override
    public int localPort()
    {
        return inner.localPort();
    }

    @Override
    public int ipIdentification()
    {
        return inner.ipIdentification();
    }

    @Override
    public boolean send(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
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
            return true;
        }
        return inner.send(datagram, destination, hopLimit);
    }

    @Override
    public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
    {
        return inner.receive(buffer, info);
    }

    @Override
    public void awaitReadable(final long timeoutNanos)
    {
        inner.awaitReadable(timeoutNanos);
    }

    @Override
    public void wakeup()
    {
        inner.wakeup();
    }

    @Override
    public void joinGroup(final InetAddress group)
    {
        inner.joinGroup(group);
    }

    @Override
    public void leaveGroup(final InetAddress group)
    {
        inner.leaveGroup(group);
    }

    @Override
    public void close()
    {
        inner.close();
    }
}
