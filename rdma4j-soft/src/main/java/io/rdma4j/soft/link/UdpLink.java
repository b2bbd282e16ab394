package io.rdma4j.soft.link;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.verbs.Errno;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import jdk.net.ExtendedSocketOptions;

/**
 * A {@link Link} over the host's IP stack: RoCEv2 datagrams in UDP, groups as IP multicast.
 * <p>
 * One link owns one UDP port (by default {@link Link#ROCE_V2_PORT}) on one local address, its
 * RoCEv2 GID. The port is bound without {@code SO_REUSEADDR}, so a second device on the same
 * address fails at once instead of silently sharing the traffic: several processes on one host
 * each take their own loopback address (127.x.y.z). Datagrams are sent to the same port on the
 * destination, so every device of a test on a non-default port must use that port.
 * <p>
 * Each joined group gets its own channel bound to {@code group:port} with {@code SO_REUSEADDR},
 * so every process on the host that joined the group binds it too and gets its own copy. Its
 * datagrams report the group as {@link DatagramInfo#destination}; those of the unicast channel
 * report {@link #localAddress()}. Multicast is sent with {@code IP_MULTICAST_LOOP} on, so other
 * members on this host receive it; so does this link if it joined the group, and the device is
 * expected to recognise its own copies by their source address. On {@code lo} the copy arrives
 * even with the loop option off, since the loopback device itself delivers to local members.
 * The JDK turns {@code IP_MULTICAST_ALL} off on its Linux datagram sockets (measured: a socket
 * bound to the group or to the wildcard address that did not join got nothing), so a group
 * channel receives only what it joined; a non-Java socket on the wildcard address and this port
 * would still get every group joined on the host.
 * <p>
 * <b>IP identification, measured with tcpdump on {@code lo} (Linux 6.18, JDK 25).</b> Without
 * {@code IP_DONTFRAGMENT} the kernel's default path-MTU mode ({@code IP_PMTUDISC_WANT}) sets DF
 * but marks the packet as fragmentable ({@code ignore_df}), so the identification comes from the
 * kernel's hashed per-destination counter: it was 63899, 63900, ... to one unicast address and
 * 13277, 13278, ... to a group, and no sender can predict it. With {@code IP_DONTFRAGMENT}
 * ({@code IP_PMTUDISC_DO}) every datagram, unicast and multicast, left with DF set and
 * identification 0, because the socket is never connected. This link therefore sets the option
 * and {@link #ipIdentification()} is 0; where the option is not available it is -1: unknown. With
 * DF, a datagram larger than the path MTU is refused ({@code EMSGSIZE}, counted as a send
 * failure) rather than fragmented.
 * <p>
 * Unicast datagrams carry the system's default TTL (64 on Linux): the JDK offers no unicast TTL
 * option, and the ICRC masks the TTL anyway. The multicast TTL follows each send's hop limit.
 * <p>
 * Garbage, measured on JDK 25 with the thread's allocated-bytes counter: sending allocates
 * nothing once a destination's socket address is cached, except about 48 bytes when a multicast
 * send changes the TTL option; waiting allocates nothing. Receiving allocates nothing while
 * consecutive datagrams on a channel come from one sender, because the JDK reuses the last
 * sender's {@link InetSocketAddress}; when the sender changes it builds a new one (about 120
 * bytes). Avoiding that needs {@code recvfrom} through the FFM API.
 */
public final class UdpLink implements IpLink
{
    private static final int RECEIVE_BUFFER_BYTES = 8 * 1024 * 1024;

    private static final int MAX_CACHED_DESTINATIONS = 4096;
    private static final int UNSET_TTL = -1;
    private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

    private final InetAddress localAddress;
    private final int port;
    private final ProtocolFamily family;
    private final NetworkInterface networkInterface;
    private final DatagramChannel unicast;
    private final Selector selector;
    private final int ipIdentification;
    private final Map<InetAddress, InetSocketAddress> socketAddressByDestination = new ConcurrentHashMap<>();
    private final Consumer<SelectionKey> ignoreReadyKey = (key) -> {};
    private final ReentrantLock multicastSendLock = new ReentrantLock();
    private final Map<InetAddress, Endpoint> groupEndpoints = new HashMap<>();
    private volatile Endpoint[] endpoints;
    /** The device's, once bound; until then counts nobody reads. */
    private volatile Counters counters = new Counters();
    private volatile boolean closed;
    private int multicastTtl = UNSET_TTL;
    private int nextEndpointIndex;
    private InetSocketAddress lastSender;
    private int lastSenderIpv4;
    private long lastSenderIpv6High;
    private long lastSenderIpv6Low;

    /**
     * Open a link on {@link Link#ROCE_V2_PORT}.
     *
     * @param localAddress an address of this host, the device's GID.
     * @throws IllegalArgumentException if the address is a wildcard or multicast address.
     * @throws IllegalStateException    if the address is not local or the port is taken on it.
     * @throws UncheckedIOException     if the socket cannot be set up for another reason.
     */
    public UdpLink(final InetAddress localAddress)
    {
        this(localAddress, ROCE_V2_PORT);
    }

    /**
     * Open a link on the given port.
     *
     * @param localAddress an address of this host, the device's GID.
     * @param port         the UDP port to receive on, send from and send to, 1..65535.
     * @throws IllegalArgumentException if the address is a wildcard or multicast address, or the
     *                                  port is out of range.
     * @throws IllegalStateException    if the address is not local or the port is taken on it.
     * @throws UncheckedIOException     if the socket cannot be set up for another reason.
     */
    public UdpLink(final InetAddress localAddress, final int port)
    {
        if (localAddress.isAnyLocalAddress() || localAddress.isMulticastAddress())
        {
            throw new IllegalArgumentException(
                localAddress.getHostAddress() + " cannot be a link's address: it must be one unicast address of " +
                "this host (the device's GID)");
        }
        if (port < 1 || port > 65535)
        {
            throw new IllegalArgumentException("port " + port + " is not in 1..65535");
        }

        this.localAddress = localAddress;
        this.port = port;
        this.family = localAddress instanceof Inet4Address ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6;
        this.networkInterface = HostInterfaces.of(localAddress);

        DatagramChannel channel = null;
        Selector selector = null;
        try
        {
            channel = DatagramChannel.open(family);
            bindUnicast(channel);
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.IP_MULTICAST_IF, networkInterface);
            channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
            final int dontFragmentIdentification = trySetDontFragment(channel);
            this.ipIdentification = StandardProtocolFamily.INET6 == family ? 0 : dontFragmentIdentification;

            selector = Selector.open();
            final Endpoint endpoint = new Endpoint(channel, localAddress, null);
            channel.register(selector, SelectionKey.OP_READ, endpoint);
            this.unicast = channel;
            this.selector = selector;
            this.endpoints = new Endpoint[]{ endpoint };
        }
        catch (final IOException ex)
        {
            closeQuietly(channel);
            closeQuietly(selector);
            throw new UncheckedIOException("cannot open a UDP link on " + addressAndPort() + ": " + ex.getMessage(), ex);
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(channel);
            closeQuietly(selector);
            throw ex;
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public InetAddress localAddress()
    {
        return localAddress;
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public int localPort()
    {
        return port;
    }

    /**
     * 0 when the link could set {@code IP_DONTFRAGMENT} (Linux then sends every datagram with DF and
     * identification 0, see the class comment), -1 when it could not and the kernel picks an
     * unpredictable identification. An IPv6 header has no such field: an IPv6 link reports 0.
     *
     * @return the IPv4 identification field of the datagrams this link sends, or -1 if unknown.
     */
    @Override
    public int ipIdentification()
    {
        return ipIdentification;
    }

    /**
     * @return the interface this link sends multicast on and joins groups on.
     */
    public NetworkInterface networkInterface()
    {
        return networkInterface;
    }

    /**
     * @return the number of datagrams {@link #send} could not hand to the kernel ({@code udp_send_failures}).
     */
    public long sendFailures()
    {
        return counters.get(SoftCounter.UDP_SEND_FAILURES);
    }

    /**
     * @return the number of receive calls that failed with an I/O error ({@code udp_recv_failures}).
     */
    public long receiveFailures()
    {
        return counters.get(SoftCounter.UDP_RECV_FAILURES);
    }

    /**
     * Send to {@code destination} on this link's port (which is {@link Link#ROCE_V2_PORT} unless the
     * link was opened on another).
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean send(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        if (closed || !datagram.hasRemaining() || hopLimit < 0 || hopLimit > 255)
        {
            counters.increment(SoftCounter.UDP_SEND_FAILURES);
            return false;
        }

        final int position = datagram.position();
        final InetSocketAddress target = socketAddress(destination);
        try
        {
            final int sent = destination.isMulticastAddress() ?
                sendMulticast(datagram, target, hopLimit) : unicast.send(datagram, target);
            if (sent > 0)
            {
                counters.increment(SoftCounter.UDP_SENT_PKTS);
                return true;
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // A refused datagram is a counted drop, as on a wire: the transport retries or the UD
            // sender never knows. RuntimeException covers unresolved or foreign-family addresses.
        }
        finally
        {
            datagram.position(position);
        }

        counters.increment(SoftCounter.UDP_SEND_FAILURES);
        return false;
    }

    /**
     * Send an empty datagram to {@code destination} on this link's port: a same-host device waiting in its
     * selector wakes on it ({@link SameHostLink}). It is no RoCEv2 packet, so it is not counted as one.
     *
     * @param destination a unicast address of this host.
     * @return true if the kernel took it.
     */
    @Override
    public boolean sendWakeup(final InetAddress destination)
    {
        if (closed)
        {
            return false;
        }
        try
        {
            // an empty buffer's position never moves, so every thread may send the one buffer
            unicast.send(EMPTY, socketAddress(destination));
            return true;
        }
        catch (final IOException | RuntimeException ex)
        {
            counters.increment(SoftCounter.UDP_SEND_FAILURES);
            return false;
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void bindCounters(final Counters deviceCounters)
    {
        counters = deviceCounters;
    }

    /**
     * Receive from the unicast channel and each group's channel in turn, starting after the one
     * that last gave a datagram, so a busy group cannot starve unicast traffic.
     * <p>
     * The buffer must hold the largest datagram expected: a longer one is truncated silently, as
     * {@link DatagramChannel#receive} does (its ICRC will then fail). {@link DatagramInfo#ttl} and
     * {@link DatagramInfo#ipIdentification} are -1: a UDP socket does not see them.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
    {
        final Endpoint[] current = endpoints;
        final int count = current.length;
        final int start = nextEndpointIndex < count ? nextEndpointIndex : 0;

        for (int i = 0; i < count; i++)
        {
            final int index = start + i < count ? start + i : start + i - count;
            final Endpoint endpoint = current[index];
            buffer.clear();
            final SocketAddress sender;
            try
            {
                sender = endpoint.channel.receive(buffer);
            }
            catch (final ClosedChannelException ex)
            {
                // The group was left, or the link closed, since the array was read.
                continue;
            }
            catch (final IOException ex)
            {
                counters.increment(SoftCounter.UDP_RECV_FAILURES);
                continue;
            }

            if (null != sender)
            {
                buffer.flip();
                final InetSocketAddress source = (InetSocketAddress)sender;
                if (source != lastSender)
                {
                    lastSender = source;
                    final InetAddress sourceAddress = source.getAddress();
                    lastSenderIpv4 = Ipv4.toInt(sourceAddress);
                    lastSenderIpv6High = Ipv6.high(sourceAddress);
                    lastSenderIpv6Low = Ipv6.low(sourceAddress);
                }
                info.source = source.getAddress();
                info.sourceIpv4 = lastSenderIpv4;
                info.sourceIpv6High = lastSenderIpv6High;
                info.sourceIpv6Low = lastSenderIpv6Low;
                info.sourcePort = source.getPort();
                info.receivedAt(endpoint.destination, endpoint.destinationIpv4, endpoint.destinationIpv6High,
                    endpoint.destinationIpv6Low, port);
                nextEndpointIndex = index + 1;
                if (buffer.limit() > 0)
                {
                    counters.incrementOnReceiveSide(SoftCounter.UDP_RCVD_PKTS);
                }
                return true;
            }
        }

        buffer.limit(0);
        return false;
    }

    /**
     * Wait on one selector over the unicast and group channels. Timeouts are rounded up to whole
     * milliseconds, the selector's resolution.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public void awaitReadable(final long timeoutNanos)
    {
        try
        {
            if (timeoutNanos <= 0)
            {
                selector.selectNow(ignoreReadyKey);
            }
            else
            {
                final long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos + 999_999));
                selector.select(ignoreReadyKey, millis);
            }
        }
        catch (final ClosedSelectorException ex)
        {
            // Closed by another thread: the caller sees the link closed on its next call.
        }
        catch (final IOException ex)
        {
            counters.increment(SoftCounter.UDP_RECV_FAILURES);
        }
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void wakeup()
    {
        selector.wakeup();
    }

    /**
     * Bind a channel to {@code group:port} and join the group on this link's interface.
     * <p>
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if the address is not a multicast group of this link's family.
     * @throws IllegalStateException    if the link is closed.
     * @throws UncheckedIOException     if the group cannot be bound or joined.
     */
    @Override
    public void joinGroup(final InetAddress group)
    {
        if (!group.isMulticastAddress() || (group instanceof Inet4Address) != (localAddress instanceof Inet4Address))
        {
            throw new IllegalArgumentException(
                group.getHostAddress() + " is not a multicast group this link (" + addressAndPort() + ") can join");
        }

        synchronized (groupEndpoints)
        {
            if (closed)
            {
                throw new IllegalStateException("the link on " + addressAndPort() + " is closed");
            }

            final Endpoint existing = groupEndpoints.get(group);
            if (null != existing)
            {
                existing.joins++;
                return;
            }

            final Endpoint endpoint = openGroup(group);
            groupEndpoints.put(group, endpoint);
            endpoints = withEndpoint(endpoints, endpoint);
        }

        // The progress thread may be blocked in select without the new channel.
        selector.wakeup();
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public void leaveGroup(final InetAddress group)
    {
        synchronized (groupEndpoints)
        {
            final Endpoint endpoint = groupEndpoints.get(group);
            if (null == endpoint || --endpoint.joins > 0)
            {
                return;
            }

            groupEndpoints.remove(group);
            endpoints = withoutEndpoint(endpoints, endpoint);
            endpoint.close();
        }

        // The selector releases a closed channel's socket on its next select.
        selector.wakeup();
    }

    /**
     * @param group a multicast group.
     * @return how many times the group is joined and not yet left.
     */
    public int joinCount(final InetAddress group)
    {
        synchronized (groupEndpoints)
        {
            final Endpoint endpoint = groupEndpoints.get(group);
            return null == endpoint ? 0 : endpoint.joins;
        }
    }

    /**
     * Leave every group and release the port. Idempotent.
     */
    @Override
    public void close()
    {
        synchronized (groupEndpoints)
        {
            if (closed)
            {
                return;
            }
            closed = true;

            for (final Endpoint endpoint : groupEndpoints.values())
            {
                endpoint.close();
            }
            groupEndpoints.clear();
            endpoints = new Endpoint[0];
        }

        closeQuietly(unicast);
        closeQuietly(selector);
    }

    @Override
    public String socket()
    {
        return "nio";
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "UdpLink{" + addressAndPort() + " on " + networkInterface.getName() + "}";
    }

    private int sendMulticast(final ByteBuffer datagram, final InetSocketAddress target, final int hopLimit)
        throws IOException
    {
        // The TTL is a socket option, so it and the send must not interleave with another thread's.
        multicastSendLock.lock();
        try
        {
            if (hopLimit != multicastTtl)
            {
                unicast.setOption(StandardSocketOptions.IP_MULTICAST_TTL, hopLimit);
                multicastTtl = hopLimit;
            }
            return unicast.send(datagram, target);
        }
        finally
        {
            multicastSendLock.unlock();
        }
    }

    private InetSocketAddress socketAddress(final InetAddress destination)
    {
        InetSocketAddress address = socketAddressByDestination.get(destination);
        if (null == address)
        {
            address = new InetSocketAddress(destination, port);
            // Bounded so a stream of one-off UD destinations cannot grow it without limit.
            if (socketAddressByDestination.size() < MAX_CACHED_DESTINATIONS)
            {
                socketAddressByDestination.putIfAbsent(destination, address);
            }
        }
        return address;
    }

    private void bindUnicast(final DatagramChannel channel) throws IOException
    {
        try
        {
            channel.bind(new InetSocketAddress(localAddress, port));
            requestReceiveBuffer(channel);
        }
        catch (final BindException ex)
        {
            // the JDK's BindException carries the errno only as strerror's sentence
            if (null == ex.getMessage() || !ex.getMessage().contains("in use"))
            {
                throw new LinkOpenException(ex.getMessage() != null && ex.getMessage().contains("assign requested") ?
                    Errno.EADDRNOTAVAIL : Errno.EIO, "cannot bind " + addressAndPort() + ": " + ex.getMessage(), ex);
            }
            throw new LinkOpenException(Errno.EADDRINUSE, PortInUse.message(addressAndPort()), ex);
        }
    }

    private Endpoint openGroup(final InetAddress group)
    {
        DatagramChannel channel = null;
        try
        {
            channel = DatagramChannel.open(family);
            // Every process on this host that joins the group binds group:port and gets a copy.
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(new InetSocketAddress(group, port));
            requestReceiveBuffer(channel);
            channel.configureBlocking(false);
            final MembershipKey membership = channel.join(group, networkInterface);
            final Endpoint endpoint = new Endpoint(channel, group, membership);
            channel.register(selector, SelectionKey.OP_READ, endpoint);
            return endpoint;
        }
        catch (final IOException ex)
        {
            closeQuietly(channel);
            throw new UncheckedIOException(
                "cannot join " + group.getHostAddress() + ":" + port + " on " + networkInterface.getName() +
                " for " + addressAndPort() + ": " + ex.getMessage(), ex);
        }
    }

    private String addressAndPort()
    {
        return (localAddress instanceof Inet4Address ? localAddress.getHostAddress() :
            "[" + localAddress.getHostAddress() + "]") + ":" + port;
    }

    /**
     * Ask for a receive buffer that absorbs a burst while the progress thread is descheduled; the
     * kernel caps it at net.core.rmem_max, which is all we can do without CAP_NET_ADMIN.
     */
    private static void requestReceiveBuffer(final DatagramChannel channel)
    {
        try
        {
            channel.setOption(StandardSocketOptions.SO_RCVBUF, RECEIVE_BUFFER_BYTES);
        }
        catch (final IOException ex)
        {
            // the default buffer still works, only with less room for bursts
        }
    }

    private static int trySetDontFragment(final DatagramChannel channel)
    {
        try
        {
            channel.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            return 0;
        }
        catch (final UnsupportedOperationException | IOException ex)
        {
            return -1;
        }
    }

    private static Endpoint[] withEndpoint(final Endpoint[] endpoints, final Endpoint endpoint)
    {
        final Endpoint[] result = new Endpoint[endpoints.length + 1];
        System.arraycopy(endpoints, 0, result, 0, endpoints.length);
        result[endpoints.length] = endpoint;
        return result;
    }

    private static Endpoint[] withoutEndpoint(final Endpoint[] endpoints, final Endpoint endpoint)
    {
        final Endpoint[] result = new Endpoint[endpoints.length - 1];
        int j = 0;
        for (final Endpoint e : endpoints)
        {
            if (e != endpoint)
            {
                result[j++] = e;
            }
        }
        return result;
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        if (null != closeable)
        {
            try
            {
                closeable.close();
            }
            catch (final Exception ignore)
            {
                // Closing on an error or shutdown path: nothing useful to do with a second failure.
            }
        }
    }

    /**
     * A channel the link receives on, and the destination its datagrams were sent to.
     */
    private static final class Endpoint
    {
        private final DatagramChannel channel;
        private final InetAddress destination;
        private final int destinationIpv4;
        private final long destinationIpv6High;
        private final long destinationIpv6Low;
        private final MembershipKey membership;
        private int joins = 1;

        private Endpoint(final DatagramChannel channel, final InetAddress destination, final MembershipKey membership)
        {
            this.channel = channel;
            this.destination = destination;
            this.destinationIpv4 = Ipv4.toInt(destination);
            this.destinationIpv6High = Ipv6.high(destination);
            this.destinationIpv6Low = Ipv6.low(destination);
            this.membership = membership;
        }

        private void close()
        {
            // Drop explicitly: the socket itself is only released at the selector's next select.
            if (null != membership)
            {
                membership.drop();
            }
            closeQuietly(channel);
        }
    }
}
