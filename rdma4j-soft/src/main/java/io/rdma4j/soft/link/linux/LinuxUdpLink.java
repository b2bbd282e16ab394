package io.rdma4j.soft.link.linux;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.HostInterfaces;
import io.rdma4j.soft.link.IpLink;
import io.rdma4j.soft.link.LinkOpenException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import static io.rdma4j.soft.link.linux.LinuxLibc.AF_INET;
import static io.rdma4j.soft.link.linux.LinuxLibc.AF_INET6;
import static io.rdma4j.soft.link.linux.LinuxLibc.POLLFD_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.POLLIN;

/**
 * An {@link IpLink} on the Linux socket API through the FFM API, past the one-datagram-per-system-call
 * wall of {@link java.nio.channels.DatagramChannel}:
 * <ul>
 *     <li><b>Receiving</b> takes up to {@value ReceiveBatch#RX_SLOTS} datagrams per {@code recvmmsg} into slots of
 *     native memory the link allocates once, and hands them out one per {@link #receive} call, the source
 *     read from each slot's {@code sockaddr} without building an object (a small cache maps it to its
 *     {@link InetAddress}). With {@code UDP_GRO} on, a slot may hold a run of equal segments the kernel
 *     kept together, split here by the segment size its control message gives.</li>
 *     <li><b>Sending</b> {@link #queue}s datagrams into {@value SendBatch#TX_SLOTS} slots and {@link #flush}es them
 *     in one {@code sendmmsg}; a run of datagrams to one destination (a multicast group too, where the
 *     sockets have {@code UDP_GRO}), all of one size but the last, goes as one message with
 *     {@code UDP_SEGMENT} (the kernel cuts it into datagrams, on loopback only at the receiving socket),
 *     where the kernel supports it. {@link #send} is a queue
 *     and a flush. A datagram whose payload lies in registered memory is {@link #queueGathered}: its
 *     headers and tail (pad, ICRC) go into the slot and the payload gets an iovec of its own pointing where
 *     it lies, so it is read once, by the kernel, with no copy into a packet buffer.</li>
 *     <li><b>Waiting</b> is {@code poll} over the sockets and an {@code eventfd} that {@link #wakeup}
 *     writes; a wait first flushes what is queued, so nothing queued sits while the loop sleeps.</li>
 * </ul>
 * The sockets are set up as {@link io.rdma4j.soft.link.UdpLink}'s: the unicast socket on the device's
 * address without {@code SO_REUSEADDR}, one socket per joined group bound to {@code group:port} with it,
 * {@code IP_MULTICAST_IF} the device's interface, {@code IP_MULTICAST_LOOP} on, {@code IP_MULTICAST_ALL}
 * off, and {@code IP_MTU_DISCOVER} = {@code IP_PMTUDISC_DO}, so every datagram leaves with DF and IP
 * identification 0, which the ICRC covers ({@link #ipIdentification()} is 0). The multicast TTL is the
 * socket option, set when a queued multicast datagram asks for another (what was queued before is
 * flushed first). Unicast datagrams carry the system's default TTL, as with NIO.
 * <p>
 * Nothing is allocated per datagram or per system call: every {@code mmsghdr}, {@code iovec},
 * {@code sockaddr}, control buffer and slot is allocated when the link opens, from an arena the link
 * closes. Only a new destination (its {@code sockaddr} is cached by identity) or a new source address
 * (a 256-entry cache) builds an object.
 * <p>
 * Threads, as {@link io.rdma4j.soft.link.Link} says: receiving under the receive lock (one thread),
 * queueing and flushing under the send lock (any thread), {@link #wakeup} from any thread. Closing takes
 * both locks, so no call is inside the kernel with a descriptor being closed.
 */
public final class LinuxUdpLink implements IpLink
{

    private final InetAddress localAddress;
    private final int port;
    private final int family;
    private final NetworkInterface networkInterface;
    /** The wake-up datagram: empty, so any thread may send the one buffer (its position never moves). */
    private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

    private final Arena arena = Arena.ofShared();
    private final int unicastFd;
    private final int eventFd;
    private final int ipIdentification;
    private final boolean groReceive;
    private final MemorySegment wakeValue;
    private final AtomicInteger wakers = new AtomicInteger();
    private final AtomicInteger pollers = new AtomicInteger();
    private final Map<InetAddress, Endpoint> groupEndpoints = new HashMap<>();
    private volatile Endpoint[] endpoints;
    private volatile boolean closed;
    /** errno and option values of the set-up calls (construction, joins and leaves under the group map). */
    /** Opens and configures the sockets: at open, join and leave. */
    private final LinkSockets sockets;

    // receiving: the receive lock's
    private final ReentrantLock rxLock = new ReentrantLock();
    private final MemorySegment drainBuffer;
    /** How often a busy poller looks at the error queue when it receives nothing. */
    private static final long ERROR_DRAIN_MS = 10;
    private final ErrorQueue errors;
    private volatile Consumer<InetAddress> unreachable = address -> { };
    /** What {@link #drainErrors} hands the queue: made once, as a lambda there would be on every drain. */
    private final Consumer<InetSocketAddress> refusals = this::refused;
    /** Receive lock held: when a receive that finds nothing next reads the error queue. */
    private long nextErrorDrainNs;
    /** Looks at the sockets between two reads of the clock for {@link #nextErrorDrainNs}. */
    private static final int RECEIVES_PER_CLOCK_READ = 64;
    /** Receive lock held: looks at the sockets since the clock was last read. */
    private int receivesSinceClock = RECEIVES_PER_CLOCK_READ;
    private final ReceiveBatch receives;
    private MemorySegment pollFds;
    private Endpoint[] pollFdsFor;

    // sending: the send lock's
    private final ReentrantLock txLock = new ReentrantLock();
    private final SendBatch sends;

    /**
     * @return null if this platform can run the link, else a sentence saying why not.
     */
    public static String unavailableReason()
    {
        return LinuxLibc.unavailableReason();
    }

    /**
     * Open a link on {@link #ROCE_V2_PORT}.
     *
     * @param localAddress an address of this host, the device's GID.
     */
    public LinuxUdpLink(final InetAddress localAddress)
    {
        this(localAddress, ROCE_V2_PORT);
    }

    /**
     * Open a link on the given port, with GSO and GRO wherever the kernel has them.
     *
     * @param localAddress an address of this host, the device's GID.
     * @param port         the UDP port to receive on, send from and send to, 1..65535.
     * @throws IllegalArgumentException if the address is a wildcard or multicast address, or the port is out
     *                                  of range.
     * @throws IllegalStateException    if the address is not local or the port is taken on it, or the
     *                                  platform cannot run the link.
     */
    public LinuxUdpLink(final InetAddress localAddress, final int port)
    {
        this(localAddress, port, true);
    }

    /**
     * Open a link on the given port.
     *
     * @param localAddress an address of this host, the device's GID.
     * @param port         the UDP port to receive on, send from and send to, 1..65535.
     * @param segmentation false to send and receive every datagram on its own, without UDP GSO and GRO.
     */
    public LinuxUdpLink(final InetAddress localAddress, final int port, final boolean segmentation)
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
        final String unavailable = LinuxLibc.unavailableReason();
        if (null != unavailable)
        {
            throw new LinkOpenException(LinuxLibc.unavailableErrno(), unavailable);
        }
        this.localAddress = localAddress;
        this.port = port;
        this.family = localAddress instanceof Inet4Address ? AF_INET : AF_INET6;
        this.networkInterface = HostInterfaces.of(localAddress);

        wakeValue = arena.allocate(8, 8);
        wakeValue.set(ValueLayout.JAVA_LONG, 0, 1L);
        drainBuffer = arena.allocate(8, 8);
        this.sockets = new LinkSockets(localAddress, port, networkInterface);

        final LinkSockets.Unicast unicast;
        final int event;
        try
        {
            unicast = sockets.openUnicast(segmentation);
            try
            {
                event = sockets.openEventFd();
            }
            catch (final RuntimeException ex)
            {
                LinkSockets.close(unicast.fd());
                throw ex;
            }
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
        this.ipIdentification = unicast.ipIdentification();
        this.groReceive = unicast.coalescesReceives();
        final boolean gso = unicast.segmentsSends();
        this.unicastFd = unicast.fd();
        this.eventFd = event;
        this.sends = new SendBatch(arena, family, port, unicastFd, ipIdentification, gso, groReceive);
        this.receives = new ReceiveBatch(arena, port, groReceive);
        this.errors = new ErrorQueue(arena, family);
        this.endpoints = new Endpoint[]{ new Endpoint(unicastFd, localAddress, null) };
    }

    /**
     * Told of each address whose host answered one of our datagrams to this port with ICMP port unreachable,
     * read from the unicast socket's error queue: on a wait that {@code poll} ends with {@code POLLERR}, and
     * between receive batches at most every {@value #ERROR_DRAIN_MS} ms, so that a busy receiver drains it too.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public void unreachableListener(final Consumer<InetAddress> listener)
    {
        unreachable = listener;
    }

    /** Lock held: read the error queue and report the refusals of our port. */
    private void drainErrors()
    {
        errors.drain(unicastFd, refusals);
    }

    private void refused(final InetSocketAddress refusedBy)
    {
        if (refusedBy.getPort() == port)
        {
            unreachable.accept(refusedBy.getAddress());
        }
    }

    @Override
    public InetAddress localAddress()
    {
        return localAddress;
    }

    @Override
    public int localPort()
    {
        return port;
    }

    /**
     * 0: the socket sends with {@code IP_PMTUDISC_DO}, so Linux gives every datagram DF and identification 0
     * (-1 if the option was refused; an IPv6 header has no such field and reports 0).
     */
    @Override
    public int ipIdentification()
    {
        return ipIdentification;
    }

    @Override
    public NetworkInterface networkInterface()
    {
        return networkInterface;
    }

    @Override
    public long sendFailures()
    {
        return sends.failures();
    }

    /**
     * Always 0: on a bound UDP socket whose descriptor the link keeps open, a receive fails only on an empty socket
     * (EAGAIN) or on an error the socket reports, an ICMP error answering one of our datagrams, which is no I/O
     * failure: it is counted in {@code udp_recv_socket_errors} ({@link #receiveSocketErrors}) and the receive tried
     * again.
     */
    @Override
    public long receiveFailures()
    {
        return 0;
    }

    /**
     * @return {@code sendmmsg}/{@code sendmsg} calls made ({@code udp_send_syscalls}).
     */
    public long sendSyscalls()
    {
        return sends.syscalls();
    }

    /**
     * @return RoCEv2 datagrams handed to the kernel, a GSO message counting its segments ({@code udp_sent_pkts});
     *         same-host wake-ups, which carry nothing, are counted by the same-host link instead.
     */
    public long sentDatagrams()
    {
        return sends.datagrams();
    }

    /**
     * @return messages sent with {@code UDP_SEGMENT}: each carried several datagrams ({@code udp_gso_msgs}).
     */
    public long gsoMessages()
    {
        return sends.gsoMessages();
    }

    /**
     * @return datagrams queued with their payload in place ({@link #queueGathered}), not copied
     *         ({@code udp_gathered_pkts}).
     */
    public long gatheredDatagrams()
    {
        return sends.gathered();
    }

    /**
     * @return {@code recvmmsg} calls that returned datagrams ({@code udp_recv_syscalls}).
     */
    public long receiveSyscalls()
    {
        return receives.syscalls();
    }

    /**
     * @return RoCEv2 datagrams handed to the caller, a GRO run counting its segments ({@code udp_rcvd_pkts});
     *         same-host wake-ups are counted by the same-host link instead.
     */
    public long receivedDatagrams()
    {
        return receives.datagrams();
    }

    /**
     * @return GRO runs received: slots that held more than one datagram ({@code udp_gro_runs}).
     */
    public long receivedRuns()
    {
        return receives.runs();
    }

    /**
     * @return receives that failed on an error the socket reported, and were tried again
     *         ({@code udp_recv_socket_errors}).
     */
    public long receiveSocketErrors()
    {
        return receives.socketErrors();
    }

    /**
     * @return datagrams dropped because they did not fit a slot, which cannot happen below 64 KiB
     *         ({@code udp_truncated_drops}).
     */
    public long truncatedDrops()
    {
        return receives.truncated();
    }

    /**
     * @return true if runs of datagrams to one destination go as one {@code UDP_SEGMENT} message.
     */
    public boolean segmentsSends()
    {
        return sends.segments();
    }

    /**
     * @return true if the sockets receive with {@code UDP_GRO}.
     */
    public boolean coalescesReceives()
    {
        return groReceive;
    }

    @Override
    public boolean send(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        if (!acceptable(datagram, hopLimit))
        {
            countSendFailure();
            return false;
        }
        txLock.lock();
        try
        {
            if (closed)
            {
                sends.countFailure();
                return false;
            }
            sends.flush();
            final long failuresBefore = sends.failures();
            if (datagram.remaining() > SendBatch.TX_SLOT_BYTES)
            {
                return sends.sendLarge(datagram, destination, hopLimit);
            }
            if (!sends.queue(datagram, destination, hopLimit))
            {
                return false;
            }
            sends.flush();
            return sends.failures() == failuresBefore;
        }
        finally
        {
            txLock.unlock();
        }
    }

    @Override
    public boolean queue(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        if (!acceptable(datagram, hopLimit))
        {
            countSendFailure();
            return false;
        }
        if (datagram.remaining() > SendBatch.TX_SLOT_BYTES)
        {
            return send(datagram, destination, hopLimit);
        }
        txLock.lock();
        try
        {
            if (closed)
            {
                sends.countFailure();
                return false;
            }
            return sends.queue(datagram, destination, hopLimit);
        }
        finally
        {
            txLock.unlock();
        }
    }

    /**
     * true: a datagram's payload can be sent from registered memory where it lies (an iovec of its own
     * between the slot's head and tail), without a copy into a packet buffer.
     */
    @Override
    public boolean gathers()
    {
        return true;
    }

    @Override
    public boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit)
    {
        final int headLength = head.remaining();
        final int tailLength = tail.remaining();
        if (closed || hopLimit < 0 || hopLimit > 255 || payloadLength < 0 || !payload.isNative() ||
            payloadOffset < 0 || payloadOffset + payloadLength > payload.byteSize() ||
            headLength + tailLength > SendBatch.TX_SLOT_BYTES ||
            headLength + payloadLength + tailLength > SendBatch.MAX_GSO_BYTES)
        {
            countSendFailure();
            return false;
        }
        txLock.lock();
        try
        {
            if (closed)
            {
                sends.countFailure();
                return false;
            }
            return sends.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit);
        }
        finally
        {
            txLock.unlock();
        }
    }

    /**
     * An empty datagram, after what is queued, so it cannot overtake datagrams queued before it. It is no
     * RoCEv2 packet; the receiving link skips it.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean sendWakeup(final InetAddress destination)
    {
        txLock.lock();
        try
        {
            if (closed)
            {
                return false;
            }
            sends.flush();
            return sends.sendLarge(EMPTY, destination, 1);
        }
        finally
        {
            txLock.unlock();
        }
    }

    @Override
    public void bindCounters(final Counters deviceCounters)
    {
        sends.counters = deviceCounters;
        receives.counters = deviceCounters;
    }

    @Override
    public void flush()
    {
        if (sends.isEmpty())
        {
            // each queueing thread flushes its own work, so a racy empty read never strands a datagram
            return;
        }
        txLock.lock();
        try
        {
            if (!closed)
            {
                sends.flush();
            }
        }
        finally
        {
            txLock.unlock();
        }
    }

    /**
     * Receive from the unicast socket and each group's socket in turn, a batch at a time, starting after the
     * one that gave the last batch, so a busy group cannot starve unicast traffic. A datagram longer than
     * the buffer is cut to it (its ICRC then fails), as with NIO. {@link DatagramInfo#ttl} and
     * {@link DatagramInfo#ipIdentification} are -1: a UDP socket does not see them.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
    {
        return receive0(buffer, info);
    }

    /**
     * The datagram stays in its receive slot, which the next receive (the device's receivers take turns under its
     * receive lock) or the close reuses: the receive path reads it there, one copy fewer than {@link #receive},
     * whose copy was a twentieth of a bulk receiver's time (RC write_bw, 2026-11-27, Zen 3 EPYC).
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean receiveInPlace(final ByteBuffer buffer, final MemorySegment bufferSegment, final DatagramInfo info)
    {
        return receive0(null, info);
    }

    /** {@link #receive} into {@code buffer}, or in place with none. */
    private boolean receive0(final ByteBuffer buffer, final DatagramInfo info)
    {
        rxLock.lock();
        try
        {
            while (true)
            {
                if (!closed && !receives.buffered() && ++receivesSinceClock >= RECEIVES_PER_CLOCK_READ)
                {
                    // between batches, busy or idle: ICMP errors queue up (charged to the receive buffer) on a
                    // socket whose waits never see POLLERR. The clock is read on one look in so many: a busy
                    // poller looks every few hundred nanoseconds, and a clock read is a tenth of an empty look.
                    receivesSinceClock = 0;
                    final long now = System.nanoTime();
                    if (now - nextErrorDrainNs >= 0)
                    {
                        nextErrorDrainNs = now + TimeUnit.MILLISECONDS.toNanos(ERROR_DRAIN_MS);
                        drainErrors();
                    }
                }
                if (closed || !receives.buffered() && !receives.refill(endpoints))
                {
                    if (null != buffer)
                    {
                        buffer.limit(0);
                    }
                    return false;
                }
                if (receives.deliver(buffer, info))
                {
                    return true;
                }
            }
        }
        finally
        {
            rxLock.unlock();
        }
    }

    /**
     * Read by the receiving thread after its own {@link #receive}, without the receive lock: only a receive
     * changes the slots, and receivers take turns under the device's receive lock.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean caughtUp()
    {
        return receives.caughtUp();
    }

    /**
     * Flush what is queued, then wait in {@code poll} on the sockets and the wake-up descriptor. Timeouts are
     * rounded up to whole milliseconds, {@code poll}'s resolution. Returns at once while received datagrams
     * wait in the slots.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public void awaitReadable(final long timeoutNanos)
    {
        flush();
        final Endpoint[] current;
        rxLock.lock();
        try
        {
            if (closed || receives.buffered())
            {
                return;
            }
            current = endpoints;
            if (current != pollFdsFor)
            {
                buildPollFds(current);
            }
        }
        finally
        {
            rxLock.unlock();
        }
        // poll runs without the receive lock, so a leave (which closes a socket under it) never waits out a
        // wait; a descriptor closed meanwhile only makes poll return early (POLLNVAL). Close waits for pollers,
        // so the pollfd array outlives the call.
        pollers.incrementAndGet();
        try
        {
            if (closed)
            {
                return;
            }
            final int millis = timeoutNanos <= 0 ? 0 :
                (int)Math.min(Integer.MAX_VALUE, Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos + 999_999)));
            final int ready = LinuxLibc.poll(pollFds, current.length + 1L, millis);
            if (ready > 0 && (pollFds.get(ValueLayout.JAVA_SHORT, 6) & POLLIN) != 0)
            {
                // consume the wake-ups: the eventfd counter resets to 0 on read
                LinuxLibc.read(eventFd, drainBuffer, 8);
            }
            if (ready > 0 && (pollFds.get(ValueLayout.JAVA_SHORT, POLLFD_BYTES + 6) & LinuxLibc.POLLERR) != 0 &&
                rxLock.tryLock())
            {
                // the unicast socket's error queue holds an ICMP error: read it, or every poll returns at once
                try
                {
                    if (!closed)
                    {
                        drainErrors();
                    }
                }
                finally
                {
                    rxLock.unlock();
                }
            }
            // ready < 0 is a signal (EINTR): the caller's loop waits again
        }
        finally
        {
            pollers.decrementAndGet();
        }
    }

    @Override
    public void wakeup()
    {
        if (closed)
        {
            return;
        }
        wakers.incrementAndGet();
        try
        {
            // checked again after announcing ourselves: close waits for announced wakers before closing the fd
            if (!closed)
            {
                LinuxLibc.write(eventFd, wakeValue, 8);
            }
        }
        finally
        {
            wakers.decrementAndGet();
        }
    }

    /**
     * Open a socket bound to {@code group:port} with {@code SO_REUSEADDR} and join the group on this link's
     * interface.
     * <p>
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if the address is not a multicast group of this link's family.
     * @throws IllegalStateException    if the link is closed or the group cannot be joined.
     */
    @Override
    public void joinGroup(final InetAddress group)
    {
        if (!group.isMulticastAddress() || (group instanceof Inet4Address) != (AF_INET == family))
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
            final Endpoint endpoint = sockets.openGroup(group, groReceive);
            groupEndpoints.put(group, endpoint);
            endpoints = withEndpoint(endpoints, endpoint);
        }
        // the receiving thread may be in poll without the new socket
        wakeup();
    }

    @Override
    public void leaveGroup(final InetAddress group)
    {
        final Endpoint endpoint;
        synchronized (groupEndpoints)
        {
            endpoint = groupEndpoints.get(group);
            if (null == endpoint || --endpoint.joins > 0)
            {
                return;
            }
            groupEndpoints.remove(group);
            endpoints = withoutEndpoint(endpoints, endpoint);
        }
        wakeup();
        // the receiving thread may be in recvmmsg or poll on the descriptor: close it only between its calls
        rxLock.lock();
        try
        {
            closeGroupSocket(endpoint);
        }
        finally
        {
            rxLock.unlock();
        }
    }

    @Override
    public int joinCount(final InetAddress group)
    {
        synchronized (groupEndpoints)
        {
            final Endpoint endpoint = groupEndpoints.get(group);
            return null == endpoint ? 0 : endpoint.joins;
        }
    }

    /**
     * Send what is queued, leave every group and release the port and the native memory. Idempotent.
     */
    @Override
    public void close()
    {
        final Endpoint[] groups;
        synchronized (groupEndpoints)
        {
            if (closed)
            {
                return;
            }
            txLock.lock();
            try
            {
                sends.flush();
                closed = true;
            }
            finally
            {
                txLock.unlock();
            }
            groups = groupEndpoints.values().toArray(new Endpoint[0]);
            groupEndpoints.clear();
            endpoints = new Endpoint[0];
        }
        LinuxLibc.write(eventFd, wakeValue, 8);
        // the eventfd write ends any poll at once; a waker or poller that came in before closed was set
        // leaves soon after
        while (wakers.get() != 0 || pollers.get() != 0)
        {
            Thread.onSpinWait();
        }
        rxLock.lock();
        txLock.lock();
        try
        {
            for (final Endpoint group : groups)
            {
                closeGroupSocket(group);
            }
            LinkSockets.close(unicastFd);
            LinkSockets.close(eventFd);
            arena.close();
        }
        finally
        {
            txLock.unlock();
            rxLock.unlock();
        }
    }

    @Override
    public String socket()
    {
        return "linux";
    }

    /**
     * @return the unicast socket's descriptor, for tests that look at its state without receiving.
     */
    int unicastFd()
    {
        return unicastFd;
    }

    @Override
    public String toString()
    {
        return "LinuxUdpLink{" + addressAndPort() + " on " + networkInterface.getName() +
            (sends.segments() ? " gso" : "") + (groReceive ? " gro" : "") + "}";
    }

    private boolean acceptable(final ByteBuffer datagram, final int hopLimit)
    {
        return !closed && datagram.hasRemaining() && hopLimit >= 0 && hopLimit <= 255 &&
            datagram.remaining() <= SendBatch.MAX_GSO_BYTES;
    }

    private void countSendFailure()
    {
        txLock.lock();
        try
        {
            sends.countFailure();
        }
        finally
        {
            txLock.unlock();
        }
    }

    /** Receive lock held: the pollfd array for the wake-up descriptor and these sockets. */
    private void buildPollFds(final Endpoint[] current)
    {
        final long needed = (current.length + 1L) * POLLFD_BYTES;
        if (null == pollFds || pollFds.byteSize() < needed)
        {
            pollFds = arena.allocate(Math.max(needed, 16L * POLLFD_BYTES), 8);
        }
        pollFds.set(ValueLayout.JAVA_INT, 0, eventFd);
        pollFds.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
        for (int i = 0; i < current.length; i++)
        {
            final long entry = (i + 1L) * POLLFD_BYTES;
            pollFds.set(ValueLayout.JAVA_INT, entry, current[i].fd);
            pollFds.set(ValueLayout.JAVA_SHORT, entry + 4, POLLIN);
            pollFds.set(ValueLayout.JAVA_SHORT, entry + 6, (short)0);
        }
        pollFdsFor = current;
    }

    /**
     * rxe sends RoCEv2 over IPv6 with a UDP checksum of zero (the ICRC protects the packet), which an IPv6
     * socket drops unless told otherwise: without this no IPv6 datagram of Linux rxe reaches the device.
     */
    /** Receive lock held (or the link closing): drop the membership and close the group's socket. */
    private void closeGroupSocket(final Endpoint endpoint)
    {
        sockets.closeGroup(endpoint);
        // the datagrams already in the slots arrived before the leave: they are still delivered
        receives.forget(endpoint);
    }

    private String addressAndPort()
    {
        return sockets.addressAndPort();
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
}
