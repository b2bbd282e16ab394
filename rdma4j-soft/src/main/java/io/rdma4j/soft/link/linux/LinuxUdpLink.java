package io.rdma4j.soft.link.linux;

import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.IpLink;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.wire.Icrc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import static io.rdma4j.soft.link.linux.LinuxLibc.AF_INET;
import static io.rdma4j.soft.link.linux.LinuxLibc.AF_INET6;
import static io.rdma4j.soft.link.linux.LinuxLibc.CMSG_HEADER_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.CMSG_SPACE_INT;
import static io.rdma4j.soft.link.linux.LinuxLibc.EINTR;
import static io.rdma4j.soft.link.linux.LinuxLibc.EINVAL;
import static io.rdma4j.soft.link.linux.LinuxLibc.EIO;
import static io.rdma4j.soft.link.linux.LinuxLibc.EOPNOTSUPP;
import static io.rdma4j.soft.link.linux.LinuxLibc.IOVEC_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.MMSGHDR_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_CONTROL;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_CONTROLLEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_DONTWAIT;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_FLAGS;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_IOV;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_IOVLEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_LEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_NAME;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_NAMELEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_TRUNC;
import static io.rdma4j.soft.link.linux.LinuxLibc.POLLFD_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.POLLIN;
import static io.rdma4j.soft.link.linux.LinuxLibc.SOL_UDP;
import static io.rdma4j.soft.link.linux.LinuxLibc.UDP_GRO;
import static io.rdma4j.soft.link.linux.LinuxLibc.UDP_SEGMENT;

/**
 * An {@link IpLink} on the Linux socket API through the FFM API, past the one-datagram-per-system-call
 * wall of {@link java.nio.channels.DatagramChannel}:
 * <ul>
 *     <li><b>Receiving</b> takes up to {@value #RX_SLOTS} datagrams per {@code recvmmsg} into slots of
 *     native memory the link allocates once, and hands them out one per {@link #receive} call, the source
 *     read from each slot's {@code sockaddr} without building an object (a small cache maps it to its
 *     {@link InetAddress}). With {@code UDP_GRO} on, a slot may hold a run of equal segments the kernel
 *     kept together, split here by the segment size its control message gives.</li>
 *     <li><b>Sending</b> {@link #queue}s datagrams into {@value #TX_SLOTS} slots and {@link #flush}es them
 *     in one {@code sendmmsg}; a run of datagrams to one unicast destination, all of one size but the
 *     last, goes as one message with {@code UDP_SEGMENT} (the kernel cuts it into datagrams, on
 *     loopback only at the receiving socket), where the kernel supports it. {@link #send} is a queue
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
    /** Datagrams (or GRO runs) one {@code recvmmsg} may return. */
    static final int RX_SLOTS = 32;
    /** A slot holds the largest UDP payload, so that neither a datagram nor a GRO run is cut. */
    static final int RX_SLOT_BYTES = 65536;
    /** Datagrams one flush may carry; a full queue flushes. */
    static final int TX_SLOTS = 64;
    /** iovecs a datagram takes: its head (or the whole of a copied one), a payload sent in place, its tail. */
    static final int IOVECS_PER_SLOT = 3;
    /** The largest datagram that is queued; a larger one is sent on its own from a scratch slot. */
    static final int TX_SLOT_BYTES = 8192;
    /** Segments per {@code UDP_SEGMENT} message: the kernel's UDP_MAX_SEGMENTS before 6.x raised it. */
    static final int MAX_GSO_SEGMENTS = 64;
    /** The largest UDP payload of one IPv4 datagram, and so of a GSO message. */
    static final int MAX_GSO_BYTES = 65507;

    private static final int SOCKADDR_SLOT = 32;
    private static final int RECEIVE_BUFFER_BYTES = 8 * 1024 * 1024;
    private static final int SEND_BUFFER_BYTES = 4 * 1024 * 1024;
    private static final int MAX_CACHED_DESTINATIONS = 64;
    private static final int SOURCE_CACHE = 256;
    private static final ValueLayout.OfInt INT_BE =
        ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** The ICRC is stored least-significant byte first. */
    private static final ValueLayout.OfInt ICRC_LAYOUT =
        ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final InetAddress localAddress;
    private final int port;
    private final int family;
    private final NetworkInterface networkInterface;
    private final int interfaceIndex;
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

    // receiving: the receive lock's
    private final ReentrantLock rxLock = new ReentrantLock();
    private final MemorySegment rxData;
    private final ByteBuffer rxDataView;
    private final MemorySegment rxMessages;
    private final MemorySegment rxNames;
    private final MemorySegment rxControl;
    private final MemorySegment drainBuffer;
    private final InetAddress[] sourceCache = new InetAddress[SOURCE_CACHE];
    private final int[] sourceCacheIpv4 = new int[SOURCE_CACHE];
    private InetAddress lastIpv6Source;
    private long lastIpv6High;
    private long lastIpv6Low;
    private int rxCount;
    private int rxIndex;
    private int rxOffset;
    private Endpoint rxEndpoint;
    private int nextEndpointIndex;
    private MemorySegment pollFds;
    private Endpoint[] pollFdsFor;
    private ByteBuffer lastBuffer;
    private volatile long receiveSyscalls;
    private volatile long receivedDatagrams;
    private volatile long receivedRuns;
    private volatile long truncatedDrops;

    // sending: the send lock's
    private final ReentrantLock txLock = new ReentrantLock();
    private final MemorySegment txCapture;
    private final MemorySegment txData;
    private final ByteBuffer txDataView;
    private final MemorySegment txIovecs;
    private final MemorySegment txMessages;
    /** {@link #txMessages} from each message on: the arrays a partial {@code sendmmsg} resumes from. */
    private final MemorySegment[] txMessagesFrom = new MemorySegment[TX_SLOTS];
    private final MemorySegment txNames;
    private final MemorySegment txControl;
    private final MemorySegment txScratch;
    private final ByteBuffer txScratchView;
    private final MemorySegment txOption;
    /** A datagram's whole length, as GSO runs compare them. */
    private final int[] txLengths = new int[TX_SLOTS];
    /** Bytes at the start of a slot: a copied datagram, or a gathered one's headers. */
    private final int[] txHeadBytes = new int[TX_SLOTS];
    /** A gathered datagram's pad and ICRC, after its headers in the slot; 0 for a copied one. */
    private final int[] txTailBytes = new int[TX_SLOTS];
    /** A gathered datagram's payload: its native address and length; 0 for a copied one. */
    private final long[] txPayloadAddress = new long[TX_SLOTS];
    private final int[] txPayloadLength = new int[TX_SLOTS];
    private final int[] txNameLengths = new int[TX_SLOTS];
    private final Object[] txDestinations = new Object[TX_SLOTS];
    private final boolean[] txMulticast = new boolean[TX_SLOTS];
    /** What was XORed into each slot's ICRC for the identification GSO gives its segment (0: nothing). */
    private final int[] txIcrcChange = new int[TX_SLOTS];
    private final int[] runFirst = new int[TX_SLOTS];
    private final int[] runLength = new int[TX_SLOTS];
    private final Map<InetAddress, MemorySegment> sockaddrByDestination = new HashMap<>();
    private volatile int txCount;
    private boolean gsoSend;
    private int multicastTtl = -1;
    private volatile long sendSyscalls;
    private volatile long sentDatagrams;
    private volatile long gsoMessages;
    private volatile long gatheredDatagrams;
    private volatile long sendFailures;

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
            throw new IllegalStateException(unavailable);
        }
        this.localAddress = localAddress;
        this.port = port;
        this.family = localAddress instanceof Inet4Address ? AF_INET : AF_INET6;
        this.networkInterface = interfaceOf(localAddress);
        this.interfaceIndex = Math.max(0, networkInterface.getIndex());

        txCapture = LinuxLibc.newCapture(arena);
        wakeValue = arena.allocate(8, 8);
        wakeValue.set(ValueLayout.JAVA_LONG, 0, 1L);
        drainBuffer = arena.allocate(8, 8);
        txOption = arena.allocate(64, 8);

        rxData = arena.allocate((long)RX_SLOTS * RX_SLOT_BYTES, 64);
        rxDataView = rxData.asByteBuffer();
        rxMessages = arena.allocate((long)RX_SLOTS * MMSGHDR_BYTES, 8);
        rxNames = arena.allocate((long)RX_SLOTS * SOCKADDR_SLOT, 8);
        rxControl = arena.allocate((long)RX_SLOTS * CMSG_SPACE_INT, 8);
        final MemorySegment rxIovecs = arena.allocate((long)RX_SLOTS * IOVEC_BYTES, 8);
        for (int i = 0; i < RX_SLOTS; i++)
        {
            final long iovec = (long)i * IOVEC_BYTES;
            rxIovecs.set(ValueLayout.JAVA_LONG, iovec, rxData.address() + (long)i * RX_SLOT_BYTES);
            rxIovecs.set(ValueLayout.JAVA_LONG, iovec + 8, RX_SLOT_BYTES);
            final long message = (long)i * MMSGHDR_BYTES;
            rxMessages.set(ValueLayout.JAVA_LONG, message + MSG_NAME, rxNames.address() + (long)i * SOCKADDR_SLOT);
            rxMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOV, rxIovecs.address() + iovec);
            rxMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOVLEN, 1L);
            rxMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROL,
                rxControl.address() + (long)i * CMSG_SPACE_INT);
        }

        txData = arena.allocate((long)TX_SLOTS * TX_SLOT_BYTES, 64);
        txDataView = txData.asByteBuffer();
        txIovecs = arena.allocate((long)TX_SLOTS * IOVECS_PER_SLOT * IOVEC_BYTES, 8);
        txMessages = arena.allocate((long)TX_SLOTS * MMSGHDR_BYTES, 8);
        for (int i = 0; i < TX_SLOTS; i++)
        {
            txMessagesFrom[i] = txMessages.asSlice((long)i * MMSGHDR_BYTES);
        }
        txNames = arena.allocate((long)TX_SLOTS * SOCKADDR_SLOT, 8);
        txControl = arena.allocate((long)TX_SLOTS * CMSG_SPACE_INT, 8);
        txScratch = arena.allocate(RX_SLOT_BYTES, 64);
        txScratchView = txScratch.asByteBuffer();
        for (int i = 0; i < TX_SLOTS; i++)
        {
            final long control = (long)i * CMSG_SPACE_INT;
            // a UDP_SEGMENT message: cmsg_len = CMSG_LEN(sizeof(uint16_t)), SOL_UDP, UDP_SEGMENT
            txControl.set(ValueLayout.JAVA_LONG, control, CMSG_HEADER_BYTES + 2);
            txControl.set(ValueLayout.JAVA_INT, control + 8, SOL_UDP);
            txControl.set(ValueLayout.JAVA_INT, control + 12, UDP_SEGMENT);
        }

        int unicast = -1;
        int event = -1;
        try
        {
            unicast = openSocket();
            bindUnicast(unicast);
            final boolean dontFragment = SocketOptions.dontFragment(txCapture, txOption, unicast, family);
            this.ipIdentification = AF_INET6 == family || dontFragment ? 0 : -1;
            SocketOptions.multicastInterface(txCapture, txOption, unicast, family, localAddress, interfaceIndex);
            SocketOptions.setInt(txCapture, txOption, unicast, ipLevel(), AF_INET == family ?
                LinuxLibc.IP_MULTICAST_LOOP : LinuxLibc.IPV6_MULTICAST_LOOP, 1, "IP_MULTICAST_LOOP");
            this.gsoSend = segmentation && SocketOptions.tryInt(txCapture, txOption, unicast, SOL_UDP, UDP_SEGMENT, 0);
            this.groReceive = segmentation && SocketOptions.tryInt(txCapture, txOption, unicast, SOL_UDP, UDP_GRO, 1);
            event = LinuxLibc.eventfd(txCapture, LinuxLibc.EFD_NONBLOCK | LinuxLibc.EFD_CLOEXEC);
            if (event < 0)
            {
                throw new IllegalStateException("eventfd for " + addressAndPort() + " failed: errno " +
                    LinuxLibc.errno(txCapture));
            }
        }
        catch (final RuntimeException ex)
        {
            closeFd(unicast);
            closeFd(event);
            arena.close();
            throw ex;
        }
        this.unicastFd = unicast;
        this.eventFd = event;
        this.endpoints = new Endpoint[]{ new Endpoint(unicast, localAddress, null) };
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
        return sendFailures;
    }

    /**
     * Always 0: a non-blocking {@code recvmmsg} that returns nothing is not told apart from one that failed
     * (its errno is not captured on the data path, see {@link LinuxLibc}); on a bound UDP socket whose
     * descriptor the link keeps open, EAGAIN is the only failure seen in practice.
     */
    @Override
    public long receiveFailures()
    {
        return 0;
    }

    /**
     * @return {@code sendmmsg}/{@code sendmsg} calls made.
     */
    public long sendSyscalls()
    {
        return sendSyscalls;
    }

    /**
     * @return datagrams handed to the kernel (a GSO message counts its segments).
     */
    public long sentDatagrams()
    {
        return sentDatagrams;
    }

    /**
     * @return messages sent with {@code UDP_SEGMENT}: each carried several datagrams.
     */
    public long gsoMessages()
    {
        return gsoMessages;
    }

    /**
     * @return datagrams queued with their payload in place ({@link #queueGathered}), not copied.
     */
    public long gatheredDatagrams()
    {
        return gatheredDatagrams;
    }

    /**
     * @return {@code recvmmsg} calls that returned datagrams.
     */
    public long receiveSyscalls()
    {
        return receiveSyscalls;
    }

    /**
     * @return datagrams handed to the caller (a GRO run counts its segments).
     */
    public long receivedDatagrams()
    {
        return receivedDatagrams;
    }

    /**
     * @return GRO runs received: slots that held more than one datagram.
     */
    public long receivedRuns()
    {
        return receivedRuns;
    }

    /**
     * @return datagrams dropped because they did not fit a slot (cannot happen below 64 KiB).
     */
    public long truncatedDrops()
    {
        return truncatedDrops;
    }

    /**
     * @return true if runs of datagrams to one destination go as one {@code UDP_SEGMENT} message.
     */
    public boolean segmentsSends()
    {
        return gsoSend;
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
                sendFailures++;
                return false;
            }
            flushLocked();
            final long failuresBefore = sendFailures;
            if (datagram.remaining() > TX_SLOT_BYTES)
            {
                return sendLargeLocked(datagram, destination, hopLimit);
            }
            if (!queueLocked(datagram, destination, hopLimit))
            {
                return false;
            }
            flushLocked();
            return sendFailures == failuresBefore;
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
        if (datagram.remaining() > TX_SLOT_BYTES)
        {
            return send(datagram, destination, hopLimit);
        }
        txLock.lock();
        try
        {
            if (closed)
            {
                sendFailures++;
                return false;
            }
            return queueLocked(datagram, destination, hopLimit);
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
            headLength + tailLength > TX_SLOT_BYTES || headLength + payloadLength + tailLength > MAX_GSO_BYTES)
        {
            countSendFailure();
            return false;
        }
        txLock.lock();
        try
        {
            if (closed)
            {
                sendFailures++;
                return false;
            }
            return queueGatheredLocked(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit);
        }
        finally
        {
            txLock.unlock();
        }
    }

    @Override
    public void flush()
    {
        if (0 == txCount)
        {
            // each queueing thread flushes its own work, so a racy empty read never strands a datagram
            return;
        }
        txLock.lock();
        try
        {
            if (!closed)
            {
                flushLocked();
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
        rxLock.lock();
        try
        {
            while (true)
            {
                if (rxIndex >= rxCount && !refill())
                {
                    buffer.limit(0);
                    return false;
                }
                if (deliver(buffer, info))
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
            if (closed || rxIndex < rxCount)
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
            final Endpoint endpoint = openGroup(group);
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
                flushLocked();
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
            closeFd(unicastFd);
            closeFd(eventFd);
            arena.close();
        }
        finally
        {
            txLock.unlock();
            rxLock.unlock();
        }
    }

    @Override
    public String toString()
    {
        return "LinuxUdpLink{" + addressAndPort() + " on " + networkInterface.getName() +
            (gsoSend ? " gso" : "") + (groReceive ? " gro" : "") + "}";
    }

    private boolean acceptable(final ByteBuffer datagram, final int hopLimit)
    {
        return !closed && datagram.hasRemaining() && hopLimit >= 0 && hopLimit <= 255 &&
            datagram.remaining() <= MAX_GSO_BYTES;
    }

    private void countSendFailure()
    {
        txLock.lock();
        try
        {
            sendFailures++;
        }
        finally
        {
            txLock.unlock();
        }
    }

    /** Send lock held: copy one datagram into the next slot, flushing first if the queue is full. */
    private boolean queueLocked(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        final int slot = reserveSlot(destination, hopLimit);
        if (slot < 0)
        {
            return false;
        }
        final int length = datagram.remaining();
        txDataView.put(slot * TX_SLOT_BYTES, datagram, datagram.position(), length);
        txHeadBytes[slot] = length;
        txTailBytes[slot] = 0;
        txPayloadAddress[slot] = 0;
        txPayloadLength[slot] = 0;
        txLengths[slot] = length;
        setIovecs(slot);
        txCount = slot + 1;
        return true;
    }

    /** Send lock held: head and tail into the next slot, the payload referenced where it lies. */
    private boolean queueGatheredLocked(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit)
    {
        final int slot = reserveSlot(destination, hopLimit);
        if (slot < 0)
        {
            return false;
        }
        final int headLength = head.remaining();
        final int tailLength = tail.remaining();
        txDataView.put(slot * TX_SLOT_BYTES, head, head.position(), headLength);
        txDataView.put(slot * TX_SLOT_BYTES + headLength, tail, tail.position(), tailLength);
        txHeadBytes[slot] = headLength;
        txTailBytes[slot] = tailLength;
        txPayloadAddress[slot] = payload.address() + payloadOffset;
        txPayloadLength[slot] = payloadLength;
        txLengths[slot] = headLength + payloadLength + tailLength;
        setIovecs(slot);
        txCount = slot + 1;
        gatheredDatagrams++;
        return true;
    }

    /**
     * Send lock held: take the next slot for a datagram to {@code destination}, flushing first if the queue is
     * full or a multicast datagram needs another TTL; set its address.
     *
     * @return the slot, or -1 if the datagram cannot be sent (counted).
     */
    private int reserveSlot(final InetAddress destination, final int hopLimit)
    {
        final MemorySegment sockaddr = sockaddr(destination);
        if (null == sockaddr)
        {
            sendFailures++;
            return -1;
        }
        final boolean multicast = destination.isMulticastAddress();
        if (multicast && hopLimit != multicastTtl)
        {
            // the TTL is the socket's: what was queued under the old one leaves first
            flushLocked();
            final int level = ipLevel();
            final int name = AF_INET == family ? LinuxLibc.IP_MULTICAST_TTL : LinuxLibc.IPV6_MULTICAST_HOPS;
            if (!SocketOptions.tryInt(txCapture, txOption, unicastFd, level, name, hopLimit))
            {
                sendFailures++;
                return -1;
            }
            multicastTtl = hopLimit;
        }
        if (txCount == TX_SLOTS)
        {
            flushLocked();
        }
        final int slot = txCount;
        txIcrcChange[slot] = 0;
        MemorySegment.copy(sockaddr, 0, txNames, (long)slot * SOCKADDR_SLOT, sockaddr.byteSize());
        txNameLengths[slot] = (int)sockaddr.byteSize();
        txDestinations[slot] = destination;
        txMulticast[slot] = multicast;
        return slot;
    }

    /** A slot's three iovecs: its head (or whole datagram), the payload in place, its tail. */
    private void setIovecs(final int slot)
    {
        final long iovec = (long)slot * IOVECS_PER_SLOT * IOVEC_BYTES;
        final long data = txData.address() + (long)slot * TX_SLOT_BYTES;
        txIovecs.set(ValueLayout.JAVA_LONG, iovec, data);
        txIovecs.set(ValueLayout.JAVA_LONG, iovec + 8, txHeadBytes[slot]);
        txIovecs.set(ValueLayout.JAVA_LONG, iovec + 16, txPayloadAddress[slot]);
        txIovecs.set(ValueLayout.JAVA_LONG, iovec + 24, txPayloadLength[slot]);
        txIovecs.set(ValueLayout.JAVA_LONG, iovec + 32, 0 == txTailBytes[slot] ? 0L : data + txHeadBytes[slot]);
        txIovecs.set(ValueLayout.JAVA_LONG, iovec + 40, txTailBytes[slot]);
    }

    /**
     * Send lock held: hand every queued datagram to the kernel. Consecutive datagrams to one unicast
     * destination, of one size but a shorter last, become one {@code UDP_SEGMENT} message; the messages go
     * in one {@code sendmmsg} (or more, if the kernel takes part of the array).
     */
    private void flushLocked()
    {
        final int count = txCount;
        if (0 == count)
        {
            return;
        }
        final int messages = groupRuns(count);
        for (int m = 0; m < messages; m++)
        {
            final int first = runFirst[m];
            final int segments = runLength[m];
            final long message = (long)m * MMSGHDR_BYTES;
            txMessages.set(ValueLayout.JAVA_LONG, message + MSG_NAME, txNames.address() + (long)first * SOCKADDR_SLOT);
            txMessages.set(ValueLayout.JAVA_INT, message + MSG_NAMELEN, txNameLengths[first]);
            txMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOV,
                txIovecs.address() + (long)first * IOVECS_PER_SLOT * IOVEC_BYTES);
            txMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOVLEN, (long)segments * IOVECS_PER_SLOT);
            if (segments > 1)
            {
                renumberIcrcs(first, segments);
                final long control = (long)m * CMSG_SPACE_INT;
                txControl.set(ValueLayout.JAVA_SHORT, control + CMSG_HEADER_BYTES, (short)txLengths[first]);
                txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROL, txControl.address() + control);
                txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROLLEN, CMSG_SPACE_INT);
            }
            else
            {
                txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROL, 0L);
                txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROLLEN, 0L);
            }
            txMessages.set(ValueLayout.JAVA_INT, message + MSG_FLAGS, 0);
        }

        int next = 0;
        boolean gsoRefused = false;
        while (next < messages)
        {
            final int sent = LinuxLibc.sendmmsg(unicastFd, txMessagesFrom[next], messages - next, 0);
            sendSyscalls++;
            if (sent > 0)
            {
                countSent(next, next + sent);
                next += sent;
                continue;
            }
            if (runLength[next] > 1)
            {
                // once more alone, errno captured: is it the segmentation that is refused?
                final long again = LinuxLibc.sendmsg(txCapture, unicastFd, txMessagesFrom[next], 0);
                sendSyscalls++;
                if (again >= 0)
                {
                    countSent(next, next + 1);
                    next++;
                    continue;
                }
                final int errno = LinuxLibc.errno(txCapture);
                if (EINVAL == errno || EIO == errno || EOPNOTSUPP == errno)
                {
                    // the kernel or the route has no UDP segmentation offload: from now on one datagram a
                    // message, starting with this run
                    gsoSend = false;
                    gsoRefused = true;
                    break;
                }
            }
            // a refused datagram is a counted drop, as on a wire (EAGAIN with a full buffer, EMSGSIZE ...)
            sendFailures += runLength[next];
            next++;
        }
        if (gsoRefused)
        {
            final int firstUnsent = runFirst[next];
            for (int slot = firstUnsent; slot < count; slot++)
            {
                // each goes alone now, with identification 0 again
                changeIcrc(slot, txIcrcChange[slot]);
                txIcrcChange[slot] = 0;
            }
            compact(firstUnsent, count);
            flushLocked();
            return;
        }
        txCount = 0;
    }

    /**
     * The kernel numbers the segments of one {@code UDP_SEGMENT} send: a run sent with identification 0 leaves
     * as datagrams with identification 0, 1, 2 ... (seen with tcpdump behind a veth that segments in software).
     * The ICRC covers the identification, so segment k's ICRC is moved from identification 0 to k.
     */
    private void renumberIcrcs(final int first, final int segments)
    {
        if (0 != ipIdentification || AF_INET != family)
        {
            return;
        }
        for (int k = 1; k < segments; k++)
        {
            final int slot = first + k;
            final int change = Icrc.identificationChange(txLengths[slot], k);
            changeIcrc(slot, change);
            txIcrcChange[slot] = change;
        }
    }

    private void changeIcrc(final int slot, final int change)
    {
        if (0 != change && txLengths[slot] >= Icrc.MIN_LENGTH)
        {
            // the ICRC ends the slot's bytes: the copied datagram's, or the tail after the head
            final long at = (long)slot * TX_SLOT_BYTES + txHeadBytes[slot] + txTailBytes[slot] - Icrc.LENGTH;
            txData.set(ICRC_LAYOUT, at, txData.get(ICRC_LAYOUT, at) ^ change);
        }
    }

    private void countSent(final int fromMessage, final int toMessage)
    {
        for (int m = fromMessage; m < toMessage; m++)
        {
            sentDatagrams += runLength[m];
            if (runLength[m] > 1)
            {
                gsoMessages++;
            }
        }
    }

    /** Move the slots from {@code from} to {@code count} to the front of the queue. */
    private void compact(final int from, final int count)
    {
        final int left = count - from;
        for (int i = 0; i < left; i++)
        {
            final int source = from + i;
            MemorySegment.copy(txData, (long)source * TX_SLOT_BYTES, txData, (long)i * TX_SLOT_BYTES,
                txHeadBytes[source] + txTailBytes[source]);
            MemorySegment.copy(txNames, (long)source * SOCKADDR_SLOT, txNames, (long)i * SOCKADDR_SLOT, SOCKADDR_SLOT);
            txLengths[i] = txLengths[source];
            txNameLengths[i] = txNameLengths[source];
            txDestinations[i] = txDestinations[source];
            txMulticast[i] = txMulticast[source];
            txIcrcChange[i] = 0;
            txHeadBytes[i] = txHeadBytes[source];
            txTailBytes[i] = txTailBytes[source];
            txPayloadAddress[i] = txPayloadAddress[source];
            txPayloadLength[i] = txPayloadLength[source];
            setIovecs(i);
        }
        txCount = left;
    }

    /** Split the queue into messages; return how many. */
    private int groupRuns(final int count)
    {
        int messages = 0;
        int i = 0;
        while (i < count)
        {
            int run = 1;
            if (gsoSend && !txMulticast[i])
            {
                final int size = txLengths[i];
                int bytes = size;
                while (i + run < count && run < MAX_GSO_SEGMENTS && txDestinations[i + run] == txDestinations[i] &&
                    txLengths[i + run] <= size && bytes + txLengths[i + run] <= MAX_GSO_BYTES)
                {
                    bytes += txLengths[i + run];
                    run++;
                    if (txLengths[i + run - 1] < size)
                    {
                        // a shorter datagram ends a run: every segment but the last is gso_size long
                        break;
                    }
                }
            }
            runFirst[messages] = i;
            runLength[messages] = run;
            messages++;
            i += run;
        }
        return messages;
    }

    /** Send lock held: a datagram too long for a slot, sent on its own from the scratch slot. */
    private boolean sendLargeLocked(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        final MemorySegment sockaddr = sockaddr(destination);
        if (null == sockaddr)
        {
            sendFailures++;
            return false;
        }
        final int length = datagram.remaining();
        txScratchView.put(0, datagram, datagram.position(), length);
        if (destination.isMulticastAddress() && hopLimit != multicastTtl)
        {
            final int name = AF_INET == family ? LinuxLibc.IP_MULTICAST_TTL : LinuxLibc.IPV6_MULTICAST_HOPS;
            if (!SocketOptions.tryInt(txCapture, txOption, unicastFd, ipLevel(), name, hopLimit))
            {
                sendFailures++;
                return false;
            }
            multicastTtl = hopLimit;
        }
        // message 0 and the iovecs of slot 0 are free: the queue was flushed before
        final long message = 0;
        MemorySegment.copy(sockaddr, 0, txNames, 0, sockaddr.byteSize());
        txIovecs.set(ValueLayout.JAVA_LONG, 0, txScratch.address());
        txIovecs.set(ValueLayout.JAVA_LONG, 8, length);
        txMessages.set(ValueLayout.JAVA_LONG, message + MSG_NAME, txNames.address());
        txMessages.set(ValueLayout.JAVA_INT, message + MSG_NAMELEN, (int)sockaddr.byteSize());
        txMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOV, txIovecs.address());
        txMessages.set(ValueLayout.JAVA_LONG, message + MSG_IOVLEN, 1L);
        txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROL, 0L);
        txMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROLLEN, 0L);
        txMessages.set(ValueLayout.JAVA_INT, message + MSG_FLAGS, 0);
        long sent;
        do
        {
            sent = LinuxLibc.sendmsg(txCapture, unicastFd, txMessages, 0);
            sendSyscalls++;
        }
        while (sent < 0 && LinuxLibc.errno(txCapture) == EINTR);
        setIovecs(0);
        if (sent < 0)
        {
            sendFailures++;
            return false;
        }
        sentDatagrams++;
        return true;
    }

    /** Send lock held: the destination's socket address, cached by identity; null for a foreign family. */
    private MemorySegment sockaddr(final InetAddress destination)
    {
        MemorySegment sockaddr = sockaddrByDestination.get(destination);
        if (null != sockaddr)
        {
            return sockaddr;
        }
        if ((destination instanceof Inet4Address) != (AF_INET == family))
        {
            return null;
        }
        final Arena owner = sockaddrByDestination.size() < MAX_CACHED_DESTINATIONS ? arena : Arena.ofAuto();
        sockaddr = SocketAddresses.encode(owner, destination, port);
        if (owner == arena)
        {
            sockaddrByDestination.put(destination, sockaddr);
        }
        return sockaddr;
    }

    /** Receive lock held: fill the slots from the next socket that has datagrams. */
    private boolean refill()
    {
        rxCount = 0;
        rxIndex = 0;
        rxOffset = 0;
        if (closed)
        {
            return false;
        }
        final Endpoint[] current = endpoints;
        final int count = current.length;
        final int start = nextEndpointIndex < count ? nextEndpointIndex : 0;
        for (int i = 0; i < count; i++)
        {
            final int index = start + i < count ? start + i : start + i - count;
            final Endpoint endpoint = current[index];
            for (int slot = 0; slot < RX_SLOTS; slot++)
            {
                final long message = (long)slot * MMSGHDR_BYTES;
                // the kernel wrote the lengths it used: give each slot its full room again
                rxMessages.set(ValueLayout.JAVA_INT, message + MSG_NAMELEN, SOCKADDR_SLOT);
                rxMessages.set(ValueLayout.JAVA_LONG, message + MSG_CONTROLLEN, groReceive ? CMSG_SPACE_INT : 0L);
            }
            final int received = LinuxLibc.recvmmsg(endpoint.fd, rxMessages, RX_SLOTS, MSG_DONTWAIT);
            if (received > 0)
            {
                receiveSyscalls++;
                rxCount = received;
                rxEndpoint = endpoint;
                nextEndpointIndex = index + 1;
                return true;
            }
            // -1 is EAGAIN (nothing waiting) all but always; errno is not captured on this path (see LinuxLibc)
        }
        return false;
    }

    /**
     * Receive lock held: copy the next datagram of the current slot into the buffer and describe it.
     *
     * @return false if the slot's datagram was dropped (truncated); the caller moves on.
     */
    private boolean deliver(final ByteBuffer buffer, final DatagramInfo info)
    {
        final int slot = rxIndex;
        final long message = (long)slot * MMSGHDR_BYTES;
        final int length = rxMessages.get(ValueLayout.JAVA_INT, message + MSG_LEN);
        final int flags = rxMessages.get(ValueLayout.JAVA_INT, message + MSG_FLAGS);
        if ((flags & MSG_TRUNC) != 0)
        {
            truncatedDrops++;
            rxIndex++;
            return false;
        }
        final int segment = segmentSize(slot, length);
        final int offset = rxOffset;
        final int datagramLength = Math.min(segment, length - offset);
        if (offset + datagramLength >= length)
        {
            rxIndex++;
            rxOffset = 0;
            if (offset > 0)
            {
                receivedRuns++;
            }
        }
        else
        {
            rxOffset = offset + datagramLength;
        }

        final int copied = Math.min(datagramLength, buffer.capacity());
        buffer.clear();
        buffer.put(0, rxDataView, slot * RX_SLOT_BYTES + offset, copied);
        buffer.limit(copied);
        describeSource(slot, info);
        final Endpoint endpoint = rxEndpoint;
        info.destination = endpoint.destination;
        info.destinationIpv4 = endpoint.destinationIpv4;
        info.destinationPort = port;
        info.ttl = -1;
        info.ipIdentification = -1;
        receivedDatagrams++;
        return true;
    }

    /** The slot's GRO segment size from its control message, or its whole length without one. */
    private int segmentSize(final int slot, final int length)
    {
        if (!groReceive)
        {
            return length;
        }
        final long controlLength = rxMessages.get(ValueLayout.JAVA_LONG, (long)slot * MMSGHDR_BYTES + MSG_CONTROLLEN);
        if (controlLength < CMSG_HEADER_BYTES + 4)
        {
            return length;
        }
        final long control = (long)slot * CMSG_SPACE_INT;
        if (rxControl.get(ValueLayout.JAVA_INT, control + 8) != SOL_UDP ||
            rxControl.get(ValueLayout.JAVA_INT, control + 12) != UDP_GRO)
        {
            return length;
        }
        final int size = rxControl.get(ValueLayout.JAVA_INT, control + CMSG_HEADER_BYTES);
        return size > 0 ? size : length;
    }

    private void describeSource(final int slot, final DatagramInfo info)
    {
        final long name = (long)slot * SOCKADDR_SLOT;
        info.sourcePort = rxNames.get(SHORT_BE, name + 2) & 0xFFFF;
        if (rxNames.get(ValueLayout.JAVA_SHORT, name) == AF_INET)
        {
            final int ipv4 = rxNames.get(INT_BE, name + 4);
            final int index = (ipv4 ^ (ipv4 >>> 8)) & (SOURCE_CACHE - 1);
            InetAddress source = sourceCache[index];
            if (null == source || sourceCacheIpv4[index] != ipv4)
            {
                source = Ipv4.toAddress(ipv4);
                sourceCache[index] = source;
                sourceCacheIpv4[index] = ipv4;
            }
            info.source = source;
            info.sourceIpv4 = ipv4;
            return;
        }
        final long high = rxNames.get(ValueLayout.JAVA_LONG_UNALIGNED, name + 8);
        final long low = rxNames.get(ValueLayout.JAVA_LONG_UNALIGNED, name + 16);
        if (null == lastIpv6Source || high != lastIpv6High || low != lastIpv6Low)
        {
            final byte[] raw = rxNames.asSlice(name + 8, 16).toArray(ValueLayout.JAVA_BYTE);
            try
            {
                lastIpv6Source = InetAddress.getByAddress(raw);
            }
            catch (final UnknownHostException ex)
            {
                throw new IllegalStateException("16 bytes are always an IPv6 address", ex);
            }
            lastIpv6High = high;
            lastIpv6Low = low;
        }
        info.source = lastIpv6Source;
        info.sourceIpv4 = 0;
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

    private int openSocket()
    {
        final int fd = LinuxLibc.socket(txCapture, family,
            LinuxLibc.SOCK_DGRAM | LinuxLibc.SOCK_NONBLOCK | LinuxLibc.SOCK_CLOEXEC);
        if (fd < 0)
        {
            throw new IllegalStateException("cannot open a UDP socket for " + addressAndPort() + ": errno " +
                LinuxLibc.errno(txCapture));
        }
        return fd;
    }

    private void bindUnicast(final int fd)
    {
        if (AF_INET6 == family)
        {
            SocketOptions.setInt(txCapture, txOption, fd, LinuxLibc.IPPROTO_IPV6, LinuxLibc.IPV6_V6ONLY, 1,
                "IPV6_V6ONLY");
        }
        SocketOptions.tryInt(txCapture, txOption, fd, LinuxLibc.SOL_SOCKET, LinuxLibc.SO_RCVBUF, RECEIVE_BUFFER_BYTES);
        SocketOptions.tryInt(txCapture, txOption, fd, LinuxLibc.SOL_SOCKET, LinuxLibc.SO_SNDBUF, SEND_BUFFER_BYTES);
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment sockaddr = SocketAddresses.encode(scratch, localAddress, port);
            if (LinuxLibc.bind(txCapture, fd, sockaddr, (int)sockaddr.byteSize()) < 0)
            {
                final int errno = LinuxLibc.errno(txCapture);
                if (LinuxLibc.EADDRINUSE == errno)
                {
                    throw new IllegalStateException(
                        addressAndPort() + " is already in use by another process (or by the kernel's rxe, which " +
                        "binds the wildcard address): each process needs its own address (127.x.y.z on loopback)");
                }
                throw new IllegalStateException("cannot bind " + addressAndPort() + ": errno " + errno +
                    (LinuxLibc.EADDRNOTAVAIL == errno ? " (not an address of this host)" : ""));
            }
        }
    }

    private Endpoint openGroup(final InetAddress group)
    {
        final int fd = openSocket();
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment option = scratch.allocate(64, 8);
            final MemorySegment capture = LinuxLibc.newCapture(scratch);
            // every process on this host that joins the group binds group:port and gets a copy
            SocketOptions.setInt(capture, option, fd, LinuxLibc.SOL_SOCKET, LinuxLibc.SO_REUSEADDR, 1,
                "SO_REUSEADDR");
            if (AF_INET6 == family)
            {
                SocketOptions.setInt(capture, option, fd, LinuxLibc.IPPROTO_IPV6, LinuxLibc.IPV6_V6ONLY, 1,
                    "IPV6_V6ONLY");
            }
            SocketOptions.tryInt(capture, option, fd, LinuxLibc.SOL_SOCKET, LinuxLibc.SO_RCVBUF, RECEIVE_BUFFER_BYTES);
            // as the JDK does: a group socket hears only the groups it joined
            SocketOptions.tryInt(capture, option, fd, ipLevel(), AF_INET == family ? LinuxLibc.IP_MULTICAST_ALL :
                LinuxLibc.IPV6_MULTICAST_ALL, 0);
            if (groReceive)
            {
                SocketOptions.tryInt(capture, option, fd, SOL_UDP, UDP_GRO, 1);
            }
            final MemorySegment sockaddr = SocketAddresses.encode(scratch, group, port);
            if (LinuxLibc.bind(capture, fd, sockaddr, (int)sockaddr.byteSize()) < 0)
            {
                throw new IllegalStateException("cannot bind " + group.getHostAddress() + ":" + port + " for " +
                    addressAndPort() + ": errno " + LinuxLibc.errno(capture));
            }
            SocketOptions.membership(capture, option, fd, family, group, interfaceIndex, true);
            return new Endpoint(fd, group, group);
        }
        catch (final RuntimeException ex)
        {
            closeFd(fd);
            throw new IllegalStateException("cannot join " + group.getHostAddress() + ":" + port + " on " +
                networkInterface.getName() + " for " + addressAndPort() + ": " + ex.getMessage(), ex);
        }
    }

    /** Receive lock held (or the link closing): drop the membership and close the group's socket. */
    private void closeGroupSocket(final Endpoint endpoint)
    {
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment option = scratch.allocate(64, 8);
            final MemorySegment capture = LinuxLibc.newCapture(scratch);
            SocketOptions.membership(capture, option, endpoint.fd, family, endpoint.group, interfaceIndex, false);
        }
        catch (final RuntimeException ex)
        {
            // closing the socket drops the membership anyway
        }
        closeFd(endpoint.fd);
        if (rxEndpoint == endpoint)
        {
            // the datagrams already in the slots arrived before the leave: they are still delivered
            rxEndpoint = new Endpoint(-1, endpoint.destination, null);
        }
    }

    private int ipLevel()
    {
        return AF_INET == family ? LinuxLibc.IPPROTO_IP : LinuxLibc.IPPROTO_IPV6;
    }

    private void closeFd(final int fd)
    {
        if (fd >= 0)
        {
            try (Arena scratch = Arena.ofConfined())
            {
                LinuxLibc.close(LinuxLibc.newCapture(scratch), fd);
            }
        }
    }

    private String addressAndPort()
    {
        return (localAddress instanceof Inet6Address ? "[" + localAddress.getHostAddress() + "]" :
            localAddress.getHostAddress()) + ":" + port;
    }

    private static NetworkInterface interfaceOf(final InetAddress address)
    {
        try
        {
            NetworkInterface networkInterface = NetworkInterface.getByInetAddress(address);
            if (null == networkInterface && address.isLoopbackAddress())
            {
                // 127.x.y.z other than 127.0.0.1 is local through the 127/8 route, not assigned to lo
                networkInterface = NetworkInterface.networkInterfaces()
                    .filter(LinuxUdpLink::isLoopback)
                    .findFirst()
                    .orElse(null);
            }
            if (null == networkInterface)
            {
                throw new IllegalStateException(
                    address.getHostAddress() + " is not an address of this host: a link binds one of the " +
                    "host's own addresses (127.x.y.z on loopback)");
            }
            return networkInterface;
        }
        catch (final SocketException ex)
        {
            throw new IllegalStateException("cannot list the network interfaces: " + ex.getMessage(), ex);
        }
    }

    private static boolean isLoopback(final NetworkInterface networkInterface)
    {
        try
        {
            return networkInterface.isLoopback() && networkInterface.isUp();
        }
        catch (final SocketException ex)
        {
            return false;
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

    /**
     * A socket the link receives on, and the destination its datagrams were sent to.
     */
    private static final class Endpoint
    {
        private final int fd;
        private final InetAddress destination;
        private final int destinationIpv4;
        private final InetAddress group;
        private int joins = 1;

        private Endpoint(final int fd, final InetAddress destination, final InetAddress group)
        {
            this.fd = fd;
            this.destination = destination;
            this.destinationIpv4 = Ipv4.toInt(destination);
            this.group = group;
        }
    }
}
