package io.rdma4j.soft.link;

import io.rdma4j.soft.counter.Counters;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * A link that passes every call to another: the base of decorators that change one or two
 * behaviours of a real link (losing datagrams, hiding them from a thread) and keep the rest.
 */
public abstract class ForwardingLink implements Link
{
    /** The link that does the work. */
    protected final Link inner;

    /**
     * @param inner the link to forward to.
     */
    protected ForwardingLink(final Link inner)
    {
        this.inner = inner;
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
        return inner.send(datagram, destination, hopLimit);
    }

    @Override
    public boolean queue(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        return inner.queue(datagram, destination, hopLimit);
    }

    @Override
    public boolean gathers()
    {
        return inner.gathers();
    }

    @Override
    public boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit)
    {
        return inner.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit);
    }

    @Override
    public void flush()
    {
        inner.flush();
    }

    @Override
    public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
    {
        return inner.receive(buffer, info);
    }

    @Override
    public boolean caughtUp()
    {
        return inner.caughtUp();
    }

    @Override
    public void awaitReadable(final long timeoutNanos)
    {
        inner.awaitReadable(timeoutNanos);
    }

    @Override
    public void awaitReadableWhilePolled(final long timeoutNanos)
    {
        inner.awaitReadableWhilePolled(timeoutNanos);
    }

    @Override
    public boolean sameHostPathTo(final InetAddress peer)
    {
        return inner.sameHostPathTo(peer);
    }

    @Override
    public boolean sameHostPathOpen()
    {
        return inner.sameHostPathOpen();
    }

    @Override
    public void bindCounters(final Counters counters)
    {
        inner.bindCounters(counters);
    }

    @Override
    public boolean peerProcessGone(final InetAddress peer)
    {
        return inner.peerProcessGone(peer);
    }

    @Override
    public boolean anyPeerProcessGone()
    {
        return inner.anyPeerProcessGone();
    }

    @Override
    public void unreachableListener(final java.util.function.Consumer<InetAddress> listener)
    {
        inner.unreachableListener(listener);
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
    public long injectedDrops()
    {
        return inner.injectedDrops();
    }

    @Override
    public String socket()
    {
        return inner.socket();
    }

    @Override
    public boolean sameHost()
    {
        return inner.sameHost();
    }

    @Override
    public void close()
    {
        inner.close();
    }
}
