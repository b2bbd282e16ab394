package io.rdma4j.soft.link;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.wire.DeferredIcrc;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An {@link IpLink} with a same-host path: a unicast datagram for a device of another rdma4j process (or of
 * this one) on this host goes into that device's shared-memory inbox ({@link ShmInbox}) instead of through
 * the kernel's UDP stack, and this device reads its own inbox beside its socket. What is read from the inbox
 * is given to the device as a UDP datagram would be, with the sender's address and port, so it passes the
 * same receive checks, ICRC included, and bumps the same counters; {@code shm_sent_pkts} and
 * {@code shm_rcvd_pkts} (against {@code udp_sent_pkts}, {@code udp_rcvd_pkts}) show the path taken.
 * <ul>
 *     <li><b>Finding a peer.</b> The first datagram to an address looks for its inbox file; none (a remote
 *     host, a device with the path off, a device not started yet) is remembered for a second, during which
 *     the address is sent to by UDP. Multicast always goes by UDP: the kernel gives every member socket of
 *     the host its copy and sends IGMP and the wire copy for other hosts, which an inbox cannot.</li>
 *     <li><b>A peer that goes.</b> A closed inbox is seen on the next send; a process that died without
 *     closing stops its heartbeat, and a sender that finds the heartbeat older than {@value #STALE_MS} ms
 *     asks whether the pid still runs (the file names the pid and its start time). Either way the address
 *     goes back to UDP at once ({@code shm_peer_gone}) and the inbox is looked for again a second later,
 *     so a new process on the address is found.</li>
 *     <li><b>A full inbox</b> is a datagram lost ({@code shm_ring_full}, and the engine's
 *     {@code drop_link_send}): RC retransmits, as after a loss on a wire.</li>
 *     <li><b>A waiting receiver.</b> A device whose progress thread waits in its socket's selector sets the
 *     parked flag of its inbox first; the first sender to publish after that clears the flag and sends it
 *     one empty UDP datagram, which wakes the selector: one wake-up per wait, not per datagram. A sender
 *     publishes with a release store and reads the flag after its claim of space (a full fence), so the
 *     receiver, flag set, waits only if no record is published or claimed. In polling mode, while an
 *     application thread polls, the progress thread waits without the flag.</li>
 *     <li><b>Order.</b> The inbox is read before the socket, and the socket on every sixteenth empty read of
 *     the inbox (at once after the selector woke): a QP's datagrams take one path in steady state, and a
 *     change of path (a peer found or gone) can reorder only the datagrams in flight at that moment.</li>
 * </ul>
 * The inbox directories ({@link ShmPlaces}: the device's inbox in the first usable one, its peers' looked for in
 * each) are the user's, {@code rwx------}, and their files {@code rw-------}: only processes of
 * the same user can write an inbox, and those can already read and write each other's memory. A place refused
 * (another user made it first, or it is open to others) is said once the device opens, naming it and its owner,
 * and counted ({@code shm_dir_refused}); a connected QP whose peer is an address of this host that no inbox of
 * this user's serves, so that any local user can send its datagrams, is said once a device and counted
 * ({@code shm_unprotected_peer}). Against
 * them nothing is private; what the reader guards against is a damaged or hostile file crashing or hanging
 * it: a record that no sender of ours writes, or a sender that claimed space and never finished, makes the
 * device replace its inbox ({@code shm_inbox_corrupt}), and a file in the directory that is not an inbox of
 * this user is never written to ({@code shm_refused_*}).
 */
public final class SameHostLink extends ForwardingLink
{
    /**
     * Bytes of each inbox's ring: what the UDP socket gets where net.core.rmem_max allows (4 MiB), so a burst
     * that fits one fits the other.
     */
    static final int RING_BYTES = 4 << 20;
    /**
     * A heartbeat older than this makes a sender ask whether the receiver's process still runs (a look at the
     * process table). An idle receiver beats before and after each wait, and waits at most
     * {@link Link#IDLE_WAIT_NANOS}: twice that, so a live idle receiver's senders do not ask.
     */
    static final long STALE_MS = 2 * IDLE_WAIT_NANOS / 1_000_000;
    private static final long LIVENESS_RETRY_MS = 100;
    private static final long LOOKUP_RETRY_MS = 1000;
    /** How long an answer of {@link #peerProcessGone} about a peer stands: less than the CM's one-second look. */
    private static final long GONE_ANSWER_MS = 500;
    /** A record claimed but unpublished this long: its writer died while writing. */
    private static final long STALLED_MS = 1000;
    private static final int MAX_PEERS = 4096;
    /**
     * The socket is read on every this many empty reads of the inbox (and after a wait); on every
     * {@value #UDP_EVERY_RING_LIVE}th while the inbox gave the last datagram, and lately: a spinning poller's
     * empty {@code recvmmsg} costs more than a dozen looks at the inbox, and a record that comes during one
     * waits for it to return.
     */
    private static final int UDP_EVERY = 16;
    private static final int UDP_EVERY_RING_LIVE = 64;
    /** Receive calls since a path last delivered within which it counts as live. */
    private static final int LIVE_CALLS = 4096;
    /** After this many inbox records in a row the socket gets a turn. */
    private static final int RING_RUN = 64;
    /** Wake-ups read (and counted) per call at most, so a flood of empty datagrams cannot hold the thread. */
    private static final int WAKEUPS_PER_CALL = 16;
    private static final int HEARTBEAT_EVERY = 256;
    /**
     * An empty inbox is asked whether a record is claimed but unpublished (a writer that died) on one read in
     * this many (a power of two), and on the first read after a wait: the question reads the ring's tail, and
     * a spinning receiver that asked on every read pulled the tail's cache line from the senders' cores, so
     * that every sender's claim waited for it to come back.
     */
    private static final int STALL_LOOK_EVERY = 1024;
    /**
     * A sender looks at a known inbox's heartbeat (and reads the clock for it) on one send in this many: a
     * clock read per datagram was a tenth of a same-host sender's time, and a receiver that died is noticed
     * this many datagrams later at most, which its full ring would have dropped.
     */
    private static final int LIVENESS_EVERY = 64;
    private static final int OFFERED = 0;
    private static final int DROPPED = 1;
    private static final int VIA_UDP = 2;

    private final IpLink udp;
    /** Wake-ups owed by queued datagrams, sent at the flush: see {@link PendingWakeups}. */
    private final PendingWakeups pendingWakeups = new PendingWakeups();
    /** Sends one wake-up, counted; a method reference made once, so that sending one allocates nothing. */
    private final java.util.function.Predicate<InetAddress> wakeupSender = this::sendWakeupNow;
    private final ShmPlaces places;
    /** The device's interface, which scopes the inbox names of IPv6 link-local addresses ({@link #inboxName}). */
    private final int interfaceIndex;
    /** Why the device has no inbox from its open, for the warning about an unprotected peer; null if it has one. */
    private final String noInbox;
    /** The unprotected-peer warning is said once a device: every connected QP to such a peer is counted. */
    private final AtomicBoolean unprotectedSaid = new AtomicBoolean();
    private final int localIpv4;
    private final boolean ipv6;
    private final long localIpv6High;
    private final long localIpv6Low;
    private final int port;
    private final int ipIdentification;
    private final ConcurrentHashMap<InetAddress, Peer> peers = new ConcurrentHashMap<>();
    /** The destination of the last offer, so a stream to one peer skips the map's hashing. */
    private volatile Peer lastPeer;
    private final System.Logger logger;
    private volatile Counters counters = new Counters();
    /** This device's inbox; null after it could not be replaced (UDP only from then). */
    private volatile ShmInbox inbox;
    /** Held while the inbox is renewed: one renewal per damaged inbox, whichever thread finds the damage. */
    private final Object renewal = new Object();
    /** Set after a wait: the socket may hold datagrams (or the wake-up). */
    private volatile boolean udpDue = true;
    private int emptyReads;
    /**
     * Receive calls since the inbox last gave a datagram, at most {@link #LIVE_CALLS}: set to that when the
     * socket gives one, so below it the inbox is the path that delivered last, and lately.
     */
    private int callsSinceRing = LIVE_CALLS;
    /** Empty reads of the inbox, for {@link #STALL_LOOK_EVERY}. */
    private int emptyRingReads;
    private int ringRun;
    private int receiveCalls;
    /** The last datagram {@link #receive} handed out came from the socket, not the inbox. */
    private boolean lastFromUdp;
    private long stalledHead = -1;
    private InetAddress lastSource;
    private int lastSourceIpv4;
    private long lastSourceIpv6High;
    private long lastSourceIpv6Low;
    private long stalledSinceMs;

    private SameHostLink(final IpLink udp, final ShmPlaces places, final ShmInbox inbox, final String noInbox,
        final int interfaceIndex, final System.Logger logger)
    {
        super(udp);
        this.interfaceIndex = interfaceIndex;
        this.udp = udp;
        this.places = places;
        this.noInbox = noInbox;
        this.logger = logger;
        final InetAddress local = udp.localAddress();
        this.ipv6 = local instanceof Inet6Address;
        this.localIpv4 = ipv6 ? 0 : Ipv4.toInt(local);
        this.localIpv6High = Ipv6.high(local);
        this.localIpv6Low = Ipv6.low(local);
        this.port = udp.localPort();
        this.ipIdentification = udp.ipIdentification();
        this.inbox = inbox;
    }

    /**
     * As {@link #over(IpLink, List, System.Logger)} with one place, which no other backs up.
     *
     * @param udp       the device's UDP link, bound.
     * @param directory the inbox directory.
     * @param logger    where a refusal is said.
     * @return the link to use.
     */
    public static Link over(final IpLink udp, final Path directory, final System.Logger logger)
    {
        return over(udp, List.of(directory), logger);
    }

    /**
     * Add the same-host path to a UDP link: its inbox in the first of the places that is this user's alone, its
     * peers' looked for in each ({@link ShmPlaces}). Each place refused on the way is said, naming it and its
     * owner, and counted ({@code shm_dir_refused}). Without an inbox (every place refused) the link is UDP only,
     * says so, and says each connected peer of this host that any local user could then speak for. An IPv6
     * link-local address has its inbox too, named with its interface ({@link #inboxName}).
     *
     * @param udp    the device's UDP link, bound.
     * @param places the inbox directories, in order (the device's settings' {@code rdma4j.soft.shm.dir}).
     * @param logger where a refusal is said.
     * @return the link to use.
     */
    public static Link over(final IpLink udp, final List<Path> places, final System.Logger logger)
    {
        final String address = udp.localAddress().getHostAddress();
        final int interfaceIndex = udp.networkInterface().getIndex();
        final ShmPlaces opened = ShmPlaces.open(places);
        final ShmDirectory own = opened.own();
        for (final String refusal : opened.refusals())
        {
            logger.log(System.Logger.Level.WARNING, "rdma4j: the same-host directory " + refusal + "; " +
                (own == null ? "no other place is left" : "the inbox of " + address + " is in " + own.path()));
        }
        String noInbox = null;
        ShmInbox inbox = null;
        if (own == null)
        {
            noInbox = "no place of " + opened.paths() + " is this user's alone";
        }
        else
        {
            opened.removeDeadInboxes();
            try
            {
                inbox = ShmInbox.create(own.inbox(inboxName(udp.localAddress(), interfaceIndex), udp.localPort()),
                    udp.localAddress(), udp.localPort(), RING_BYTES);
            }
            catch (final IOException | RuntimeException ex)
            {
                noInbox = "its inbox cannot be made in " + own.path() + ": " + ex.getMessage();
            }
        }
        if (noInbox != null)
        {
            logger.log(System.Logger.Level.WARNING, "rdma4j: no same-host path for " + address + ", UDP only (" +
                noInbox + "): a datagram from a local peer cannot be told from another local user's forgery");
        }
        return new SameHostLink(udp, opened, inbox, noInbox, interfaceIndex, logger);
    }

    /**
     * An inbox's name for an address: its text, but for an IPv6 link-local address, which means something only
     * with its link, the index of this device's interface instead of whatever scope the address object carries
     * (a GID carries none). Two link-local devices reach each other only on one link, so a sender on that
     * interface finds the receiver's inbox under the name the receiver gave it, and fe80::1 on another link is
     * another name.
     *
     * @param address        a device's address.
     * @param interfaceIndex the index of this device's interface.
     * @return the name.
     */
    static String inboxName(final InetAddress address, final int interfaceIndex)
    {
        final String text = address.getHostAddress();
        if (!(address instanceof Inet6Address) || !address.isLinkLocalAddress())
        {
            return text;
        }
        final int scope = text.indexOf('%');
        return (scope < 0 ? text : text.substring(0, scope)) + "%" + interfaceIndex;
    }

    /**
     * @return this device's inbox file, or null if it has none now.
     */
    public Path inboxPath()
    {
        final ShmInbox own = inbox;
        return own == null ? null : own.path();
    }

    /**
     * @return true while this device's progress thread waits in its selector with the parked flag set, so
     *         that the next sender wakes it (for tests and tools).
     */
    public boolean waiting()
    {
        final ShmInbox own = inbox;
        return own != null && own.isParked();
    }

    /**
     * @return the UDP link under the same-host path.
     */
    public IpLink udp()
    {
        return udp;
    }

    @Override
    public void bindCounters(final Counters deviceCounters)
    {
        counters = deviceCounters;
        udp.bindCounters(deviceCounters);
        for (int i = 0; i < places.refusals().size(); i++)
        {
            deviceCounters.increment(SoftCounter.SHM_DIR_REFUSED);
        }
    }

    /**
     * A unicast datagram to a device with an inbox on this host goes into the inbox; everything else
     * ({@link IpLink#send}) by UDP.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean send(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        final int result = offerToInbox(datagram, null, 0, 0, null, destination, hopLimit, false, false);
        return VIA_UDP == result ? udp.send(datagram, destination, hopLimit) : OFFERED == result;
    }

    /**
     * As {@link #send}: into the peer's inbox at once (an inbox needs no batching), by UDP queued.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean queue(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        final int result = offerToInbox(datagram, null, 0, 0, null, destination, hopLimit, false, true);
        return VIA_UDP == result ? udp.queue(datagram, destination, hopLimit) : OFFERED == result;
    }

    /**
     * As {@link #queue(ByteBuffer, InetAddress, int)}; into an inbox without the ICRC, which only the socket's
     * datagrams need.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean queue(
        final ByteBuffer datagram, final InetAddress destination, final int hopLimit, final DeferredIcrc icrc)
    {
        final int result = offerToInbox(datagram, null, 0, 0, null, destination, hopLimit, true, true);
        return VIA_UDP == result ? icrc.generate() && udp.queue(datagram, destination, hopLimit) : OFFERED == result;
    }

    /**
     * As {@link #send}: copied into the peer's inbox at once (the one copy the path makes), by UDP gathered.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit)
    {
        final int result =
            offerToInbox(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit, false, true);
        return VIA_UDP == result ?
            udp.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit) :
            OFFERED == result;
    }

    /**
     * As {@link #queueGathered(ByteBuffer, MemorySegment, long, int, ByteBuffer, InetAddress, int)}; into an
     * inbox without the ICRC.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit, final DeferredIcrc icrc)
    {
        final int result =
            offerToInbox(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit, true, true);
        return VIA_UDP == result ? icrc.generate() &&
            udp.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit) :
            OFFERED == result;
    }

    /**
     * Offer a datagram to the destination's inbox: {@link #OFFERED}, {@link #DROPPED} or {@link #VIA_UDP}.
     * {@code icrcOmitted}: the datagram holds no ICRC, and its record says so; one whose payload could not be
     * copied is published as one that does, so that the receiver's check drops it.
     */
    private int offerToInbox(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit, final boolean icrcOmitted,
        final boolean deferWakeup)
    {
        final int length = head.remaining() + (null == payload ? 0 : payloadLength) +
            (null == tail ? 0 : tail.remaining());
        if (destination.isMulticastAddress() || !sameFamily(destination) ||
            length > ShmRing.HEADER_BYTES + 65_535 || inbox == null)
        {
            return VIA_UDP;
        }
        final Peer peer = peer(destination);
        ShmInbox target = null;
        final int result;
        try
        {
            target = peer == null ? null : usableInbox(peer);
            if (target == null || length > target.ring().maxPayload() || hopLimit < 1 || hopLimit > 255)
            {
                return VIA_UDP;
            }
            result = target.ring().offer(
                head, payload, payloadOffset, payloadLength, tail, localIpv4, localIpv6High, localIpv6Low, port,
                ipIdentification, icrcOmitted);
        }
        catch (final InternalError fault)
        {
            // the JVM's word for a SIGBUS: the peer's file was truncated under our mapping. The peer replaces
            // its inbox; this datagram, whole, goes by UDP, and the next lookup finds the new one
            // the fault may come from the liveness look at the known inbox, before target is set
            final ShmInbox faulty = target != null ? target : peer == null ? null : peer.inbox;
            if (faulty != null)
            {
                forget(peer, faulty, System.currentTimeMillis());
            }
            return VIA_UDP;
        }
        if (result == ShmRing.OK)
        {
            counters.increment(SoftCounter.SHM_SENT_PKTS);
            if (target.takeParked())
            {
                // the receiver waits in its selector: this is the one wake-up its wait needs, sent at once for a
                // datagram sent, at the flush for one queued (the rest of its burst then wakes nobody again)
                if (deferWakeup)
                {
                    pendingWakeups.add(destination, wakeupSender);
                }
                else
                {
                    sendWakeupNow(destination);
                }
            }
            return OFFERED;
        }
        if (result == ShmRing.FULL)
        {
            counters.increment(SoftCounter.SHM_RING_FULL);
            return DROPPED;
        }
        if (result == ShmRing.PAYLOAD_GONE)
        {
            // the application closed the payload's memory under the send: the sender's device counts the drop
            // (drop_link_send) and fails the work request, which by UDP it could not have sent either
            return DROPPED;
        }
        // the peer's positions are impossible: never write there again
        forget(peer, target, System.currentTimeMillis());
        return VIA_UDP;
    }

    /**
     * Read the inbox first, the socket when the inbox is empty (on every {@value #UDP_EVERY}th empty read, or
     * every {@value #UDP_EVERY_RING_LIVE}th while the inbox is the path that delivers, and at once after a
     * wait), and the socket after {@value #RING_RUN} inbox records in a row. Empty UDP
     * datagrams are wake-ups: counted and skipped.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
    {
        return receive0(buffer, null, info);
    }

    /**
     * A datagram from the socket stays where the socket's link holds it ({@link Link#receiveInPlace}); one from
     * the inbox is copied into {@code buffer} as before, since the inbox's memory is shared with other processes
     * and its record is released as it is read.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean receiveInPlace(final ByteBuffer buffer, final MemorySegment bufferSegment, final DatagramInfo info)
    {
        return receive0(buffer, bufferSegment, info);
    }

    /** {@link #receive}, or with {@code bufferSegment} given {@link #receiveInPlace}. */
    private boolean receive0(final ByteBuffer buffer, final MemorySegment bufferSegment, final DatagramInfo info)
    {
        final ShmInbox own = inbox;
        if (own == null)
        {
            return receiveUdp(buffer, bufferSegment, info);
        }
        try
        {
            return receiveEither(own, buffer, bufferSegment, info);
        }
        catch (final InternalError fault)
        {
            inboxFaulted(own, fault);
            buffer.limit(0);
            return false;
        }
    }

    /** @return empty inbox reads between two reads of the socket, as the paths have delivered lately. */
    private int udpEvery()
    {
        return callsSinceRing < LIVE_CALLS ? UDP_EVERY_RING_LIVE : UDP_EVERY;
    }

    /**
     * After a datagram from the socket, as the socket says; after one from the inbox, when no record follows it
     * there and the socket is not due: a receiver that stops then (a poller with the completion it waits for)
     * does not first read an empty inbox, nor the socket on every {@value #UDP_EVERY}th such read.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean caughtUp()
    {
        if (lastFromUdp)
        {
            return udp.caughtUp();
        }
        final ShmInbox own = inbox;
        try
        {
            return own != null && !udpDue && !own.ring().hasRecord();
        }
        catch (final InternalError fault)
        {
            // the file truncated under us: the next receive finds it and replaces the inbox
            return false;
        }
    }

    private boolean receiveEither(
        final ShmInbox own, final ByteBuffer buffer, final MemorySegment bufferSegment, final DatagramInfo info)
    {
        if (++receiveCalls >= HEARTBEAT_EVERY)
        {
            receiveCalls = 0;
            own.beat(System.currentTimeMillis());
        }
        lastFromUdp = false;
        if (callsSinceRing < LIVE_CALLS)
        {
            callsSinceRing++;
        }
        final boolean ringTurn = ringRun < RING_RUN;
        if (ringTurn && receiveRing(own, buffer, bufferSegment, info))
        {
            ringRun++;
            return true;
        }
        ringRun = 0;
        if (!ringTurn || udpDue || ++emptyReads >= udpEvery())
        {
            emptyReads = 0;
            if (receiveUdp(buffer, bufferSegment, info))
            {
                // more may wait: the socket stays due until it is found empty, or the link says it took all
                udpDue = !udp.caughtUp();
                callsSinceRing = LIVE_CALLS;
                return true;
            }
            udpDue = false;
        }
        return !ringTurn && receiveRing(own, buffer, bufferSegment, info);
    }

    private boolean sendWakeupNow(final InetAddress destination)
    {
        counters.increment(SoftCounter.SHM_WAKEUPS_SENT);
        return udp.sendWakeup(destination);
    }

    /**
     * The wake-ups the queued datagrams owe their sleeping receivers, after the socket's queue: see
     * {@link PendingWakeups}.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public void flush()
    {
        pendingWakeups.sendAll(wakeupSender);
        udp.flush();
    }

    /**
     * Set the inbox's parked flag, look at the inbox once more (a sender that published before the flag was
     * set sent no wake-up), then wait in the socket's selector.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public void awaitReadable(final long timeoutNanos)
    {
        // what this thread queued leaves before it sleeps, as the socket's own wait flushes its queue
        pendingWakeups.sendAll(wakeupSender);
        final ShmInbox own = inbox;
        if (own == null || timeoutNanos <= 0)
        {
            udp.awaitReadable(timeoutNanos);
            udpDue = true;
            return;
        }
        try
        {
            own.beat(System.currentTimeMillis());
            own.parked(true);
            // a record claimed but not yet published counts: its writer may have read the flag before this
            // thread set it (the publishing store does not wait for that read), and would then send no wake-up
            if (own.ring().hasRecord() || own.ring().claimedBeyondHead())
            {
                own.parked(false);
                return;
            }
            udp.awaitReadable(timeoutNanos);
            own.parked(false);
            own.beat(System.currentTimeMillis());
        }
        catch (final InternalError fault)
        {
            inboxFaulted(own, fault);
        }
        udpDue = true;
    }

    /**
     * Wait without the parked flag: a polling thread reads the inbox and the socket meanwhile, so senders
     * send no wake-up; the heartbeat goes on.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public void awaitReadableWhilePolled(final long timeoutNanos)
    {
        pendingWakeups.sendAll(wakeupSender);
        final ShmInbox own = inbox;
        if (own != null)
        {
            try
            {
                own.beat(System.currentTimeMillis());
            }
            catch (final InternalError fault)
            {
                inboxFaulted(own, fault);
            }
        }
        udp.awaitReadableWhilePolled(timeoutNanos);
        udpDue = true;
    }

    /**
     * Mark the inbox closed (senders go back to UDP on their next datagram), delete its file, then close the
     * socket: the address is free for another device only once its inbox is gone.
     */
    @Override
    public void close()
    {
        final ShmInbox own = inbox;
        inbox = null;
        if (own != null)
        {
            own.markClosed();
            own.unlink();
        }
        udp.close();
    }

    @Override
    public boolean sameHost()
    {
        return inbox != null;
    }

    @Override
    public String toString()
    {
        return "SameHostLink{" + udp + ", inbox " + inboxPath() + "}";
    }

    private boolean receiveUdp(final ByteBuffer buffer, final MemorySegment bufferSegment, final DatagramInfo info)
    {
        for (int wakeups = 0; wakeups < WAKEUPS_PER_CALL; wakeups++)
        {
            final boolean received = null == bufferSegment ? udp.receive(buffer, info) :
                udp.receiveInPlace(buffer, bufferSegment, info);
            if (!received)
            {
                return false;
            }
            if ((null == bufferSegment ? buffer.limit() : info.dataLength) > 0)
            {
                info.viaSameHostPath = false;
                info.icrcOmitted = false;
                lastFromUdp = true;
                return true;
            }
            counters.increment(SoftCounter.SHM_WAKEUPS_RCVD);
            if (udp.caughtUp())
            {
                // the wake-up was all the socket held: a look for the next would be a system call that finds
                // nothing, one of four a sleeping receiver made per message (poll, the wake-up's read, this, the
                // reply's send). Something sent since makes the next wait return at once
                break;
            }
        }
        buffer.limit(0);
        return false;
    }

    private boolean receiveRing(
        final ShmInbox own, final ByteBuffer buffer, final MemorySegment bufferSegment, final DatagramInfo info)
    {
        final ShmRing ring = own.ring();
        final int result = ring.poll(buffer);
        if (result == ShmRing.OK)
        {
            info.data = bufferSegment;
            info.dataOffset = 0;
            info.dataLength = buffer.limit();
            final int source = ring.polledSourceIpv4();
            final long sourceHigh = ring.polledSourceIpv6High();
            final long sourceLow = ring.polledSourceIpv6Low();
            if (source != lastSourceIpv4 || sourceHigh != lastSourceIpv6High || sourceLow != lastSourceIpv6Low ||
                lastSource == null)
            {
                // one address object per change of sender, as the socket reuses its last sender's
                lastSource = ipv6 ? Ipv6.toAddress(sourceHigh, sourceLow) : Ipv4.toAddress(source);
                lastSourceIpv4 = source;
                lastSourceIpv6High = sourceHigh;
                lastSourceIpv6Low = sourceLow;
            }
            info.source = lastSource;
            info.sourceIpv4 = source;
            info.sourceIpv6High = sourceHigh;
            info.sourceIpv6Low = sourceLow;
            info.sourcePort = ring.polledSourcePort();
            // as from a socket, which cannot see the TTL; the identification is the one the sender's ICRC
            // covered, which a socket cannot see either and the ICRC check would solve for
            info.receivedAt(udp.localAddress(), localIpv4, localIpv6High, localIpv6Low, port);
            info.ipIdentification = ring.polledIpIdentification();
            info.viaSameHostPath = true;
            info.icrcOmitted = ring.polledIcrcOmitted();
            // owned: one thread receives at a time (the device's receive lock)
            counters.incrementOwned(SoftCounter.SHM_RCVD_PKTS);
            // the inbox is the path that delivered last, and lately (udpEvery)
            callsSinceRing = 0;
            return true;
        }
        if (result == ShmRing.CORRUPT)
        {
            replaceInbox(own, "a record no sender writes");
        }
        else if ((udpDue || (++emptyRingReads & STALL_LOOK_EVERY - 1) == 0) && ring.claimedBeyondHead())
        {
            final long nowMs = System.currentTimeMillis();
            if (stalledHead != ring.head())
            {
                stalledHead = ring.head();
                stalledSinceMs = nowMs;
            }
            else if (nowMs - stalledSinceMs > STALLED_MS)
            {
                replaceInbox(own, "a record claimed and never published for " + STALLED_MS + " ms");
            }
        }
        buffer.limit(0);
        return false;
    }

    /**
     * Give up an inbox that cannot be read on, and make a fresh one under the same name: senders see the
     * old one closed and find the new one.
     */
    private void replaceInbox(final ShmInbox own, final String why)
    {
        synchronized (renewal)
        {
            if (inbox == own)
            {
                own.markClosed();
                renewInbox(own, why);
            }
        }
    }

    /**
     * The inbox's file was truncated under its mapping (another process of this user did it): every access
     * to it faults now, its closed flag included, so it is left as it is and a fresh file takes its name.
     * Senders fault on it too and look the name up again.
     */
    private void inboxFaulted(final ShmInbox own, final InternalError fault)
    {
        // a polling thread and the progress thread (beating the heartbeat while parked) fault on the same file
        // at about the same time: only the first renews it. A second fresh file would replace the first under
        // the name while a sender may already have mapped the first, a ring nobody reads (its sender would see
        // it open, its owner alive, and go on writing there)
        synchronized (renewal)
        {
            if (inbox == own)
            {
                renewInbox(own, "a file truncated under it (" + fault.getMessage() + ")");
            }
        }
    }

    private void renewInbox(final ShmInbox own, final String why)
    {
        stalledHead = -1;
        ShmInbox fresh = null;
        try
        {
            fresh = ShmInbox.create(own.path(), udp.localAddress(), port, RING_BYTES);
        }
        catch (final IOException | RuntimeException ex)
        {
            logger.log(System.Logger.Level.WARNING, "rdma4j: the inbox of " + udp.localAddress().getHostAddress() +
                " cannot be replaced, UDP only from now: " + ex.getMessage());
        }
        logger.log(System.Logger.Level.WARNING, "rdma4j: the same-host inbox " + own.path() + " held " + why +
            "; replaced");
        inbox = fresh;
        // counted once the fresh inbox is in place, so whoever sees the count finds it
        counters.increment(SoftCounter.SHM_INBOX_CORRUPT);
    }

    /**
     * The peer's inbox, known from earlier traffic, names a process that no longer runs (killed without
     * closing its device): its connections are over. A peer never reached through an inbox is not known.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean peerProcessGone(final InetAddress destination)
    {
        final Peer peer = peers.get(destination);
        return peer != null && processGone(peer);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public boolean anyPeerProcessGone()
    {
        for (final Peer peer : peers.values())
        {
            if (processGone(peer))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean processGone(final Peer peer)
    {
        final ShmInbox known = peer.inbox;
        if (known == null)
        {
            return peer.ownerDied;
        }
        // every connection to the peer asks once a second; the process table is read for the peer at most once in
        // GONE_ANSWER_MS: a hundred idle connections to one process cost one look, not a hundred
        final long now = System.currentTimeMillis();
        if (now - peer.goneCheckedMs < GONE_ANSWER_MS)
        {
            return peer.goneAnswer;
        }
        try
        {
            final boolean gone = !known.ownerAlive();
            peer.goneAnswer = gone;
            peer.goneCheckedMs = now;
            return gone;
        }
        catch (final InternalError fault)
        {
            // its file truncated under us: not a word about its process
            return false;
        }
    }

    /**
     * Looks for the peer's inbox now, whatever an earlier lookup found: a peer that opened within the last
     * lookup's retry time is found at once, so that neither side of a new connection sends by UDP to a QP that
     * hears its peer through the inbox only.
     * <p>
     * {@inheritDoc}
     */
    @Override
    public boolean sameHostPathTo(final InetAddress peer)
    {
        if (!sameFamily(peer) || peer.isMulticastAddress())
        {
            return false;
        }
        if (inbox != null && inboxReaches(peer))
        {
            return true;
        }
        if (isThisHost(peer))
        {
            counters.increment(SoftCounter.SHM_UNPROTECTED_PEER);
            if (unprotectedSaid.compareAndSet(false, true))
            {
                logger.log(System.Logger.Level.WARNING, "rdma4j: " + peer.getHostAddress() + " is an address of " +
                    "this host, but " + udp.localAddress().getHostAddress() + " reaches it by UDP, not through an " +
                    "inbox of this user (" + (noInbox != null ? noInbox : inbox == null ? "this device gave its " +
                    "inbox up" : "none at that address in " + places.paths()) + "): any local user can send " +
                    "datagrams from that address into its connections (shm_unprotected_peer counts each)");
            }
        }
        return false;
    }

    private boolean inboxReaches(final InetAddress peer)
    {
        final Peer known = peer(peer);
        if (known == null)
        {
            return false;
        }
        final long nowMs = System.currentTimeMillis();
        if (known.nextLookupMs > nowMs)
        {
            known.nextLookupMs = nowMs;
        }
        // a full look, the heartbeat's too, and in every place
        known.sendsBeforeLivenessCheck = 0;
        places.recheck();
        try
        {
            return usableInbox(known) != null;
        }
        catch (final InternalError fault)
        {
            // its file truncated under us: no path to count on
            return false;
        }
    }

    @Override
    public boolean sameHostPathOpen()
    {
        return inbox != null;
    }

    private Peer peer(final InetAddress destination)
    {
        final Peer last = lastPeer;
        if (last != null && (last.address == destination || last.address.equals(destination)))
        {
            return last;
        }
        Peer peer = peers.get(destination);
        if (peer == null && peers.size() < MAX_PEERS)
        {
            final Peer made = new Peer(destination);
            final Peer raced = peers.putIfAbsent(destination, made);
            peer = raced != null ? raced : made;
        }
        if (peer != null)
        {
            lastPeer = peer;
        }
        return peer;
    }

    /**
     * @return the peer's inbox if it may be written now, else null (send by UDP).
     */
    private ShmInbox usableInbox(final Peer peer)
    {
        final ShmInbox known = peer.inbox;
        if (known != null && known.isOpen() && --peer.sendsBeforeLivenessCheck > 0)
        {
            return known;
        }
        final long nowMs = System.currentTimeMillis();
        if (known != null)
        {
            peer.sendsBeforeLivenessCheck = LIVENESS_EVERY;
            if (!known.isOpen())
            {
                forget(peer, known, nowMs);
            }
            else if (nowMs - known.heartbeat() <= STALE_MS || nowMs < peer.nextLivenessCheckMs)
            {
                return known;
            }
            else
            {
                peer.nextLivenessCheckMs = nowMs + LIVENESS_RETRY_MS;
                if (known.ownerAlive())
                {
                    return known;
                }
                peer.ownerDied = true;
                forget(peer, known, nowMs);
            }
        }
        return nowMs >= peer.nextLookupMs ? lookUp(peer, nowMs) : null;
    }

    private void forget(final Peer peer, final ShmInbox known, final long nowMs)
    {
        synchronized (peer)
        {
            if (peer.inbox == known)
            {
                peer.inbox = null;
                // at once: a new device on the address may have its inbox there already
                peer.nextLookupMs = nowMs;
                counters.increment(SoftCounter.SHM_PEER_GONE);
            }
        }
    }

    private ShmInbox lookUp(final Peer peer, final long nowMs)
    {
        synchronized (peer)
        {
            if (peer.inbox != null || nowMs < peer.nextLookupMs)
            {
                return peer.inbox;
            }
            final ShmInbox.Refusal[] refusal = new ShmInbox.Refusal[1];
            for (int i = 0; i < peer.paths.length; i++)
            {
                final ShmDirectory place = places.checked(i, nowMs);
                if (place == null)
                {
                    continue;
                }
                final ShmInbox found = ShmInbox.open(peer.paths[i], peer.address, port, place.uid(), refusal);
                if (found != null)
                {
                    peer.inbox = found;
                    peer.ownerDied = false;
                    peer.nextLivenessCheckMs = nowMs;
                    return found;
                }
                count(refusal[0]);
            }
            peer.nextLookupMs = nowMs + LOOKUP_RETRY_MS;
            return null;
        }
    }

    private void count(final ShmInbox.Refusal refusal)
    {
        switch (refusal)
        {
            case OWNER -> counters.increment(SoftCounter.SHM_REFUSED_OWNER);
            case MODE -> counters.increment(SoftCounter.SHM_REFUSED_MODE);
            case FORMAT -> counters.increment(SoftCounter.SHM_REFUSED_FORMAT);
            case GONE -> counters.increment(SoftCounter.SHM_REFUSED_DEAD);
            default ->
            {
                // no file: the destination is not a same-host device
            }
        }
    }

    /**
     * @return true if the address is one of this host's: loopback, or on one of its interfaces. Allocates; asked
     *         when a connected QP's address is set.
     */
    private static boolean isThisHost(final InetAddress address)
    {
        try
        {
            return address.isLoopbackAddress() || address.isAnyLocalAddress() ||
                NetworkInterface.getByInetAddress(address) != null;
        }
        catch (final SocketException | RuntimeException ex)
        {
            return false;
        }
    }

    /** A socket of one family sends to that family only; an inbox's records carry its family's addresses. */
    private boolean sameFamily(final InetAddress destination)
    {
        return ipv6 ? destination instanceof Inet6Address : destination instanceof Inet4Address;
    }

    /** What a sender knows of one destination address. */
    private final class Peer
    {
        private final InetAddress address;
        /** The file its inbox would have in each place, in the places' order. */
        private final Path[] paths;
        private volatile ShmInbox inbox;
        private volatile long nextLookupMs;
        private volatile long nextLivenessCheckMs;
        /** The last inbox known at the address was given up because its process had died. */
        private volatile boolean ownerDied;
        /** Sends left before the next look at the heartbeat; racy between sending threads, which is harmless. */
        private int sendsBeforeLivenessCheck;
        /** When {@link #peerProcessGone} last asked the process table about this peer, and what it said. */
        private volatile long goneCheckedMs = Long.MIN_VALUE / 2;
        private volatile boolean goneAnswer;

        private Peer(final InetAddress address)
        {
            this.address = address;
            this.paths = places.inboxes(inboxName(address, interfaceIndex), port);
        }
    }
}
