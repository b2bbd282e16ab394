package io.rdma4j.soft.link;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * An IP network inside the JVM for tests: {@link MemoryLink}s attached at addresses exchange
 * the same datagram bytes a {@link UdpLink} would, unicast or to multicast groups.
 * <p>
 * Semantics follow the IP stack a {@link UdpLink} uses: a unicast datagram goes to the link
 * attached at its destination, or is lost (counted by {@link #undeliverable()}) if there is
 * none; a datagram to a group goes to every link that joined it, the sender included, as
 * {@code IP_MULTICAST_LOOP} does. Each link has a bounded queue; a datagram arriving at a full
 * queue is dropped and counted by {@link MemoryLink#queueDrops()}.
 * <p>
 * For tests, a {@link FaultInjector} may drop, duplicate, reorder or corrupt deliveries, a tap
 * sees every datagram sent, and {@link #inject} delivers hand-made datagrams. The receivers see
 * the TTL and IP identification each datagram was sent with, unless
 * {@link #ipHeaderVisible(boolean)} hides them as a UDP socket does.
 * <p>
 * One lock guards the whole network, so deliveries and fault decisions follow one order.
 */
public final class MemoryNetwork
{
    /** The default length of each link's queue, in datagrams. */
    public static final int DEFAULT_QUEUE_CAPACITY = 1024;

    final ReentrantLock lock = new ReentrantLock();

    private final int queueCapacity;
    private final Map<InetAddress, MemoryLink> linkByAddress = new HashMap<>();
    private final Map<InetAddress, List<MemoryLink>> membersByGroup = new HashMap<>();
    private FaultInjector faultInjector;
    private Consumer<SentDatagram> tap;
    private boolean ipHeaderVisible = true;
    private long sent;
    private long undeliverable;

    /**
     * A network whose links queue up to {@link #DEFAULT_QUEUE_CAPACITY} datagrams.
     */
    public MemoryNetwork()
    {
        this(DEFAULT_QUEUE_CAPACITY);
    }

    /**
     * @param queueCapacity how many datagrams each link queues before dropping, 1 or more.
     */
    public MemoryNetwork(final int queueCapacity)
    {
        if (queueCapacity < 1)
        {
            throw new IllegalArgumentException("queue capacity must be at least 1: " + queueCapacity);
        }
        this.queueCapacity = queueCapacity;
    }

    /**
     * Attach a link that sends from and receives at {@code address}, port {@link Link#ROCE_V2_PORT}.
     *
     * @param address a unicast address not attached yet.
     * @return the link; closing it detaches it.
     * @throws IllegalArgumentException if the address is multicast or a wildcard.
     * @throws IllegalStateException    if a link is attached at the address.
     */
    public MemoryLink attach(final InetAddress address)
    {
        if (address.isMulticastAddress() || address.isAnyLocalAddress())
        {
            throw new IllegalArgumentException(address.getHostAddress() + " cannot be a link's address");
        }

        lock.lock();
        try
        {
            if (linkByAddress.containsKey(address))
            {
                throw new IllegalStateException(
                    address.getHostAddress() + " is already attached to this network: each link needs its own address");
            }
            final MemoryLink link = new MemoryLink(this, address, queueCapacity, lock.newCondition());
            linkByAddress.put(address, link);
            return link;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @param faultInjector the faults to apply to later deliveries, or null for none.
     * @return this.
     */
    public MemoryNetwork faultInjector(final FaultInjector faultInjector)
    {
        lock.lock();
        try
        {
            this.faultInjector = faultInjector;
            return this;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @return the fault injector in use, or null.
     */
    public FaultInjector faultInjector()
    {
        lock.lock();
        try
        {
            return faultInjector;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @param tap called with every datagram sent, before faults, on the sender's thread and under
     *            the network's lock (so in send order); must not block. Null removes it.
     * @return this.
     */
    public MemoryNetwork tap(final Consumer<SentDatagram> tap)
    {
        lock.lock();
        try
        {
            this.tap = tap;
            return this;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @param visible true (the default) to give receivers each datagram's TTL and IP identification,
     *                false to report -1 for both, as a {@link UdpLink} does.
     * @return this.
     */
    public MemoryNetwork ipHeaderVisible(final boolean visible)
    {
        lock.lock();
        try
        {
            this.ipHeaderVisible = visible;
            return this;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Deliver a hand-made datagram to the link at its destination or the members of its group,
     * without faults and without the tap.
     *
     * @param datagram the datagram; its source need not be attached.
     */
    public void inject(final SentDatagram datagram)
    {
        lock.lock();
        try
        {
            route(datagram, false);
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Deliver a hand-made datagram from {@code source}, port {@link Link#ROCE_V2_PORT}, TTL 64 and
     * IP identification 0, without faults and without the tap.
     *
     * @param source      the sender's address; need not be attached.
     * @param destination a unicast address or group.
     * @param datagram    the bytes from position to limit; the position is left unchanged.
     */
    public void inject(final InetAddress source, final InetAddress destination, final ByteBuffer datagram)
    {
        inject(new SentDatagram(-1, source, Link.ROCE_V2_PORT, destination, 64, 0, copy(datagram)));
    }

    /**
     * Release every datagram a fault injector is holding back, to the end of its receiver's queue.
     *
     * @return how many were released.
     */
    public int releaseHeld()
    {
        lock.lock();
        try
        {
            int released = 0;
            for (final MemoryLink link : linkByAddress.values())
            {
                released += link.releaseAllHeld();
            }
            return released;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @return how many datagrams links have sent on this network.
     */
    public long sent()
    {
        lock.lock();
        try
        {
            return sent;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @return how many datagrams found no link at their destination and no member in their group.
     */
    public long undeliverable()
    {
        lock.lock();
        try
        {
            return undeliverable;
        }
        finally
        {
            lock.unlock();
        }
    }

    boolean ipHeaderVisible()
    {
        return ipHeaderVisible;
    }

    void send(final MemoryLink sender, final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        final byte[] bytes = copy(datagram);
        lock.lock();
        try
        {
            final SentDatagram sentDatagram = new SentDatagram(
                sent++, sender.localAddress(), sender.localPort(), destination, hopLimit, sender.ipIdentification(), bytes);
            if (null != tap)
            {
                tap.accept(sentDatagram);
            }
            route(sentDatagram, true);
        }
        finally
        {
            lock.unlock();
        }
    }

    void join(final MemoryLink link, final InetAddress group)
    {
        membersByGroup.computeIfAbsent(group, (g) -> new ArrayList<>()).add(link);
    }

    void leave(final MemoryLink link, final InetAddress group)
    {
        final List<MemoryLink> members = membersByGroup.get(group);
        if (null != members)
        {
            members.remove(link);
            if (members.isEmpty())
            {
                membersByGroup.remove(group);
            }
        }
    }

    void detach(final MemoryLink link)
    {
        linkByAddress.remove(link.localAddress(), link);
    }

    private void route(final SentDatagram datagram, final boolean withFaults)
    {
        final InetAddress destination = datagram.destination();
        if (destination.isMulticastAddress())
        {
            final List<MemoryLink> members = membersByGroup.get(destination);
            if (null == members)
            {
                undeliverable++;
                return;
            }
            for (final MemoryLink member : members)
            {
                deliver(datagram, member, withFaults);
            }
        }
        else
        {
            final MemoryLink link = linkByAddress.get(destination);
            if (null == link)
            {
                undeliverable++;
                return;
            }
            deliver(datagram, link, withFaults);
        }
    }

    private void deliver(final SentDatagram datagram, final MemoryLink receiver, final boolean withFaults)
    {
        final FaultInjector faults = withFaults ? faultInjector : null;
        final int decision = null == faults ? FaultInjector.NONE : faults.decide(datagram, receiver.localAddress());
        if ((decision & FaultInjector.DROP) != 0)
        {
            return;
        }

        final byte[] bytes = (decision & FaultInjector.CORRUPT) != 0 ? faults.corrupt(datagram.array()) : datagram.array();
        if ((decision & FaultInjector.DUPLICATE) != 0)
        {
            receiver.arrive(datagram, bytes);
        }
        if ((decision & FaultInjector.REORDER) != 0)
        {
            receiver.holdBack(datagram, bytes, faults.reorderDepth());
        }
        else
        {
            receiver.arrive(datagram, bytes);
        }
    }

    private static byte[] copy(final ByteBuffer datagram)
    {
        final byte[] bytes = new byte[datagram.remaining()];
        datagram.get(datagram.position(), bytes);
        return bytes;
    }
}
