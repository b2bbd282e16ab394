package io.rdma4j.soft.link;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;

/**
 * A {@link Link} attached to a {@link MemoryNetwork}: what a {@link UdpLink} is to the IP stack.
 * <p>
 * Received datagrams wait in a bounded queue; {@link #awaitReadable} blocks on a condition of
 * the network's lock until one arrives, {@link #wakeup()} is called or the timeout expires.
 * Datagrams this link sends carry {@link #ipIdentification()} (0 unless set), so a test can make
 * it non-zero to exercise a receiver that must recover the identification for the ICRC.
 */
public final class MemoryLink implements Link
{
    private final MemoryNetwork network;
    private final InetAddress address;
    private final int queueCapacity;
    private final Condition readable;
    private final ArrayDeque<Arrival> queue = new ArrayDeque<>();
    private final List<Held> held = new ArrayList<>();
    private final Map<InetAddress, Integer> joinsByGroup = new HashMap<>();
    private volatile int ipIdentification;
    private volatile boolean closed;
    private boolean wakeupPending;
    private long queueDrops;
    private long received;

    MemoryLink(final MemoryNetwork network, final InetAddress address, final int queueCapacity, final Condition readable)
    {
        this.network = network;
        this.address = address;
        this.queueCapacity = queueCapacity;
        this.readable = readable;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public InetAddress localAddress()
    {
        return address;
    }

    /**
     * @return {@link Link#ROCE_V2_PORT}.
     */
    @Override
    public int localPort()
    {
        return ROCE_V2_PORT;
    }

    /**
     * @return the identification this link's datagrams carry: 0 unless set.
     */
    @Override
    public int ipIdentification()
    {
        return ipIdentification;
    }

    /**
     * @param ipIdentification the IPv4 identification field of datagrams sent from now on, 0..65535.
     * @return this.
     */
    public MemoryLink ipIdentification(final int ipIdentification)
    {
        if (ipIdentification < 0 || ipIdentification > 0xFFFF)
        {
            throw new IllegalArgumentException("an IPv4 identification is 0..65535: " + ipIdentification);
        }
        this.ipIdentification = ipIdentification;
        return this;
    }

    /**
     * @return the network this link is attached to.
     */
    public MemoryNetwork network()
    {
        return network;
    }

    /**
     * Copy the datagram onto the network. {@code hopLimit} becomes the datagram's TTL: the network
     * has no routers to decrement it.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean send(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        if (closed || hopLimit < 0 || hopLimit > 255)
        {
            return false;
        }
        network.send(this, datagram, destination, hopLimit);
        return true;
    }

    /**
     * A datagram longer than the buffer is truncated, as by a UDP socket.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
    {
        final Arrival arrival;
        final boolean ipHeaderVisible;
        network.lock.lock();
        try
        {
            arrival = queue.pollFirst();
            ipHeaderVisible = network.ipHeaderVisible();
            if (null != arrival)
            {
                received++;
            }
        }
        finally
        {
            network.lock.unlock();
        }

        buffer.clear();
        if (null == arrival)
        {
            buffer.limit(0);
            return false;
        }

        final SentDatagram datagram = arrival.datagram;
        buffer.put(arrival.bytes, 0, Math.min(arrival.bytes.length, buffer.capacity())).flip();
        info.source = datagram.source();
        info.sourceIpv4 = Ipv4.toInt(datagram.source());
        info.sourceIpv6High = Ipv6.high(datagram.source());
        info.sourceIpv6Low = Ipv6.low(datagram.source());
        info.sourcePort = datagram.sourcePort();
        info.destination = datagram.destination();
        info.destinationIpv4 = Ipv4.toInt(datagram.destination());
        info.destinationIpv6High = Ipv6.high(datagram.destination());
        info.destinationIpv6Low = Ipv6.low(datagram.destination());
        info.destinationPort = ROCE_V2_PORT;
        info.ttl = ipHeaderVisible ? datagram.ttl() : -1;
        info.ipIdentification = ipHeaderVisible ? datagram.ipIdentification() : -1;
        info.ipIdentificationGuess = 0;
        return true;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void awaitReadable(final long timeoutNanos)
    {
        network.lock.lock();
        try
        {
            long remainingNanos = timeoutNanos;
            while (queue.isEmpty() && !wakeupPending && !closed && remainingNanos > 0)
            {
                remainingNanos = readable.awaitNanos(remainingNanos);
            }
            wakeupPending = false;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            network.lock.unlock();
        }
    }

    /**
     * Wake the waiting thread, or, like a selector, make the next {@link #awaitReadable} return at once.
     */
    @Override
    public void wakeup()
    {
        network.lock.lock();
        try
        {
            wakeupPending = true;
            readable.signalAll();
        }
        finally
        {
            network.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if the address is not a multicast group.
     * @throws IllegalStateException    if the link is closed.
     */
    @Override
    public void joinGroup(final InetAddress group)
    {
        if (!group.isMulticastAddress())
        {
            throw new IllegalArgumentException(group.getHostAddress() + " is not a multicast group");
        }
        network.lock.lock();
        try
        {
            if (closed)
            {
                throw new IllegalStateException("the link at " + address.getHostAddress() + " is closed");
            }
            if (joinsByGroup.merge(group, 1, Integer::sum) == 1)
            {
                network.join(this, group);
            }
        }
        finally
        {
            network.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void leaveGroup(final InetAddress group)
    {
        network.lock.lock();
        try
        {
            final Integer joins = joinsByGroup.get(group);
            if (null == joins)
            {
                return;
            }
            if (joins > 1)
            {
                joinsByGroup.put(group, joins - 1);
            }
            else
            {
                joinsByGroup.remove(group);
                network.leave(this, group);
            }
        }
        finally
        {
            network.lock.unlock();
        }
    }

    /**
     * @param group a multicast group.
     * @return how many times the group is joined and not yet left.
     */
    public int joinCount(final InetAddress group)
    {
        network.lock.lock();
        try
        {
            return joinsByGroup.getOrDefault(group, 0);
        }
        finally
        {
            network.lock.unlock();
        }
    }

    /**
     * @return how many datagrams arrived at a full queue and were dropped.
     */
    public long queueDrops()
    {
        network.lock.lock();
        try
        {
            return queueDrops;
        }
        finally
        {
            network.lock.unlock();
        }
    }

    /**
     * @return how many datagrams {@link #receive} returned.
     */
    public long received()
    {
        network.lock.lock();
        try
        {
            return received;
        }
        finally
        {
            network.lock.unlock();
        }
    }

    /**
     * @return how many datagrams wait in the queue (not counting those a fault injector holds back).
     */
    public int queued()
    {
        network.lock.lock();
        try
        {
            return queue.size();
        }
        finally
        {
            network.lock.unlock();
        }
    }

    /**
     * Leave every group, detach from the network (freeing the address) and wake the waiting
     * thread. Queued and held datagrams are discarded. Idempotent.
     */
    @Override
    public void close()
    {
        network.lock.lock();
        try
        {
            if (closed)
            {
                return;
            }
            closed = true;
            for (final InetAddress group : joinsByGroup.keySet())
            {
                network.leave(this, group);
            }
            joinsByGroup.clear();
            network.detach(this);
            queue.clear();
            held.clear();
            readable.signalAll();
        }
        finally
        {
            network.lock.unlock();
        }
    }

    @Override
    public String socket()
    {
        return "memory";
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "MemoryLink{" + address.getHostAddress() + "}";
    }

    /**
     * Queue a datagram, then count it against the datagrams held back for reordering. Called
     * under the network's lock.
     */
    void arrive(final SentDatagram datagram, final byte[] bytes)
    {
        enqueue(datagram, bytes);
        for (final Iterator<Held> it = held.iterator(); it.hasNext(); )
        {
            final Held h = it.next();
            if (--h.remaining == 0)
            {
                it.remove();
                enqueue(h.datagram, h.bytes);
            }
        }
    }

    /**
     * Hold a datagram until {@code depth} later ones have arrived. Called under the network's lock.
     */
    void holdBack(final SentDatagram datagram, final byte[] bytes, final int depth)
    {
        held.add(new Held(datagram, bytes, depth));
    }

    /**
     * Called under the network's lock.
     */
    int releaseAllHeld()
    {
        final int count = held.size();
        for (final Held h : held)
        {
            enqueue(h.datagram, h.bytes);
        }
        held.clear();
        return count;
    }

    private void enqueue(final SentDatagram datagram, final byte[] bytes)
    {
        if (queue.size() >= queueCapacity)
        {
            queueDrops++;
            return;
        }
        queue.addLast(new Arrival(datagram, bytes));
        readable.signalAll();
    }

    private record Arrival(SentDatagram datagram, byte[] bytes)
    {
    }

    private static final class Held
    {
        private final SentDatagram datagram;
        private final byte[] bytes;
        private int remaining;

        private Held(final SentDatagram datagram, final byte[] bytes, final int remaining)
        {
            this.datagram = datagram;
            this.bytes = bytes;
            this.remaining = remaining;
        }
    }
}
