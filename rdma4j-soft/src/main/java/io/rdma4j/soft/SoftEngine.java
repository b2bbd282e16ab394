package io.rdma4j.soft;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.mcast.McastGroupTable;
import io.rdma4j.soft.stat.StatFile;
import io.rdma4j.soft.transport.TransportFactory;
import io.rdma4j.soft.transport.Transports;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.soft.wire.PacketParser;
import io.rdma4j.spi.Counted;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The running software device: its link, its tables (QPs in {@link QpTable}, memory regions,
 * multicast groups), its counters, QP1 ({@link GsiPort}) and its progress loop. The loop's duty
 * cycle ({@link #doWork}) receives datagrams, which {@link ReceivePath} checks in rxe's order and
 * hands to the QP they are for (or to every member QP of a group), then runs the QPs' timers;
 * an idle strategy waits when a cycle found nothing to do. Shared by every context opened on
 * the device.
 */
public final class SoftEngine implements AutoCloseable
{
    /** QP1, the general services interface: the connection manager's MADs come and go there. */
    public static final int GSI_QPN = 1;
    /** Bytes in a management datagram: the MAD format's (IBA 13.4.1), which {@code CmMad} lays out. */
    public static final int MAD_LENGTH = 256;
    private static final long IDLE_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long TIMER_WAIT_NS = TimeUnit.MICROSECONDS.toNanos(200);
    /** Datagrams the progress thread handles per duty cycle before it looks at its timers. */
    private static final int RECEIVE_BATCH = 64;
    /** Datagrams a poller handles per empty poll, so one poll stays short. */
    private static final int INLINE_BATCH = 16;
    /**
     * In polling mode, a poll this recent means a thread is polling: the progress thread then waits at most
     * this long and without asking same-host senders for a wake-up, since the poller reads their datagrams.
     */
    private static final long POLLER_ACTIVE_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final SoftDevice device;
    private final Link link;
    private final DeviceLimits limits;
    private final Mtu activeMtu;
    private final Gid gid;
    private final int localIpv4;
    private final boolean ipv6;
    private final MrTable mrTable;
    private final McastGroupTable<SoftQp> mcast;
    /** The counters file another process reads ({@code rdma4j stat}); null where it could not be made. */
    private final StatFile statFile;
    private final Counters counters;
    private final Gid[] groupGidCache = new Gid[64];
    private final GsiPort gsi = new GsiPort(this);
    private final ReceivePath receivePath;
    /**
     * Held while datagrams are received and handled, and while timers run: the progress thread
     * and, in polling mode, threads polling a CQ take turns, so transports see one thread at a time.
     */
    private final ReentrantLock receiveLock = new ReentrantLock();
    private final ByteBuffer rxBuffer = ByteBuffer.allocateDirect(65536);
    private final MemorySegment rxSegment = MemorySegment.ofBuffer(rxBuffer);
    private final DatagramInfo rxInfo = new DatagramInfo();
    private final PacketParser rxParser = new PacketParser();
    private final PacketInfo rxPacket = new PacketInfo();
    private final boolean pollsInline;
    private final LinkedBlockingQueue<AsyncEvent> asyncEvents = new LinkedBlockingQueue<>();
    private final TransportFactory transportFactory;
    private final Thread progressThread;
    private final QpTable qpTable;
    private final LongSupplier clock;
    private final ProgressErrorLog errorLog;
    private volatile boolean running = true;
    /** The earliest deadline of any QP's timer: armed by posting threads, run under the receive lock. */
    private final TimerDeadline timerDeadline = new TimerDeadline();
    /** When a thread last polled a CQ in polling mode ({@link #pollBegins}), in {@link #nanoTime()}'s clock. */
    private volatile long lastInlinePollNs = Long.MIN_VALUE / 2;
    /**
     * Polling mode: a poll that received left what its packets queued (their ACKs) unsent, for the
     * poller's next post (a reply then leaves with the ACK, one system call on a batching link) or next
     * poll to send; the progress thread's next cycle, at most {@link #POLLER_ACTIVE_NS} away, sends it
     * if neither comes.
     */
    private volatile boolean flushOwed;
    /**
     * The latest the progress thread's current wait ends, in {@link #nanoTime()}'s clock: Long.MAX_VALUE
     * while it may wait long (or with no progress thread, or another idle strategy), so that a poll
     * leaves a flush owed only when that thread's next cycle is near.
     */
    private volatile long progressWaitEndNs = Long.MAX_VALUE;
    /** Set by {@link #wakeup}: the next duty cycle runs the timers whether one is due or not. */
    private volatile boolean timersRequested;
    private final IdleStrategy idleStrategy;
    private volatile java.util.function.BiConsumer<SoftEngine, Gid> unreachableHandler;

    SoftEngine(final SoftDevice device, final Link link, final DeviceLimits limits, final TransportFactory factory,
        final boolean pollsInline, final LongSupplier clock, final System.Logger logger, final boolean startsThread)
    {
        this.device = device;
        this.clock = clock;
        this.statFile = StatPublisher.openFile(device.name(), link.localAddress().getHostAddress(), logger);
        this.counters = new Counters();
        this.errorLog = new ProgressErrorLog(device.name(), counters, logger, clock);
        this.pollsInline = pollsInline;
        this.link = link;
        link.bindCounters(counters);
        link.unreachableListener(this::peerUnreachable);
        this.limits = limits;
        this.activeMtu = Mtu.forEthernet(limits.ethernetMtu());
        this.gid = Gid.fromInet(link.localAddress());
        this.localIpv4 = Ipv4.toInt(link.localAddress());
        this.ipv6 = !gid.isIpv4Mapped();
        this.mrTable = new MrTable(limits.maxMr(), counters);
        this.qpTable = new QpTable(limits.maxQp());
        this.mcast = new McastGroupTable<>(limits.maxMcastGrp(), limits.maxMcastQpAttach(),
            limits.maxTotalMcastQpAttach());
        this.transportFactory = factory != null ? factory : Transports::create;
        this.receivePath = new ReceivePath(this);
        this.idleStrategy = this::awaitWork;
        this.progressThread = Thread.ofPlatform().daemon().name("rdma4j-" + device.name()).unstarted(this::run);
        if (startsThread)
        {
            progressThread.start();
        }
        if (statFile != null)
        {
            StatPublisher.add(this);
        }
    }

    /**
     * @return the counters file, or null.
     */
    StatFile statFile()
    {
        return statFile;
    }

    /**
     * @return what the device holds now, for the stat file: a line per QP and per multicast group.
     *         Allocates; the stat publisher calls it about once a second, never the data path.
     */
    String describe()
    {
        final StringBuilder text = new StringBuilder();
        for (final SoftQp qp : qpTable.snapshot())
        {
            if (qp != null)
            {
                final Map<String, Long> qpCounters = qp.counters();
                text.append(String.format("qp 0x%06x %s %s", qp.qpNum(), qp.type(), qp.state()));
                qpCounters.forEach((name, value) ->
                {
                    if (value != 0)
                    {
                        text.append(' ').append(name).append(' ').append(value);
                    }
                });
                text.append('\n');
            }
        }
        mcast.groupSizes().forEach((group, members) ->
            text.append("group ").append(group.toInet().getHostAddress()).append(' ')
                .append(Counted.of(members, "QP")).append(" attached\n"));
        return text.toString();
    }

    public SoftDevice device()
    {
        return device;
    }

    public Link link()
    {
        return link;
    }

    /**
     * @return the device's limits.
     */
    public DeviceLimits limits()
    {
        return limits;
    }

    /**
     * @return the port's active MTU.
     */
    public Mtu activeMtu()
    {
        return activeMtu;
    }

    /**
     * @return GID index 0: the device's IP address.
     */
    public Gid gid()
    {
        return gid;
    }

    /**
     * @return the device's IPv4 address as an int, 0 on an IPv6 device.
     */
    public int localIpv4()
    {
        return localIpv4;
    }

    /**
     * @return true if the device's address is IPv6: every datagram it sends and receives is IPv6, and its
     * addresses are {@link #gid()}'s halves, not {@link #localIpv4()}.
     */
    public boolean ipv6()
    {
        return ipv6;
    }

    /**
     * Set the addressing of a packet this device sends: from its address and port to {@code destination} on the
     * same port (the link's, {@link Link#ROCE_V2_PORT} outside tests), in the device's IP family (IPv4 with the
     * link's identification and DF).
     *
     * @param spec        the packet's description.
     * @param destination the destination's GID, of the device's family (checked where it was configured); null
     *                    stands for the zero GID.
     * @return {@code spec}.
     */
    public PacketInfo network(final PacketInfo spec, final Gid destination)
    {
        final Gid to = destination != null ? destination : Gid.ZERO;
        // a link sends to its own port on the destination (4791 but in tests), and the ICRC covers that port
        final int port = link.localPort();
        if (ipv6)
        {
            return spec.networkIpv6(gid.high(), gid.low(), port, to.high(), to.low(), port);
        }
        return spec.network(localIpv4, port, to.isIpv4Mapped() ? to.ipv4() : 0, port, link.ipIdentification());
    }

    /**
     * @return the memory region table.
     */
    public MrTable mrTable()
    {
        return mrTable;
    }

    /**
     * @return the multicast group table.
     */
    public McastGroupTable<SoftQp> mcast()
    {
        return mcast;
    }

    /**
     * @return the device counters.
     */
    public Counters counters()
    {
        return counters;
    }

    public TransportFactory transportFactory()
    {
        return transportFactory;
    }

    /**
     * @return the clock transports use.
     */
    public long nanoTime()
    {
        return clock.getAsLong();
    }

    /**
     * @param event an event for {@link io.rdma4j.verbs.Context#getAsyncEvent}.
     */
    public void postAsyncEvent(final AsyncEvent event)
    {
        asyncEvents.offer(event);
    }

    AsyncEvent takeAsyncEvent(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        return asyncEvents.poll(timeout, unit);
    }

    /**
     * Send a datagram, counting it.
     *
     * @param datagram    the bytes, position to limit.
     * @param destination where.
     * @param hopLimit    the TTL.
     * @return true if handed to the link.
     */
    public boolean send(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        if (link.send(datagram, destination, hopLimit))
        {
            counters.increment(SoftCounter.SENT_PKTS);
            return true;
        }
        counters.increment(SoftCounter.DROP_LINK_SEND);
        return false;
    }

    /**
     * Queue a datagram for the link's next flush (see {@link Link#queue}), counting it. The caller owes a
     * {@link #flushSends()} when its burst ends; the progress loop flushes at the end of every duty cycle.
     *
     * @param datagram    the bytes, position to limit; copied before this returns.
     * @param destination where.
     * @param hopLimit    the TTL.
     * @return true if the link took it.
     */
    public boolean queue(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        if (link.queue(datagram, destination, hopLimit))
        {
            counters.increment(SoftCounter.SENT_PKTS);
            return true;
        }
        counters.increment(SoftCounter.DROP_LINK_SEND);
        return false;
    }

    /**
     * Queue a datagram whose payload the link reads in place (see {@link Link#queueGathered}), counting it.
     *
     * @return true if the link took it.
     */
    public boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit)
    {
        if (link.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit))
        {
            counters.increment(SoftCounter.SENT_PKTS);
            return true;
        }
        counters.increment(SoftCounter.DROP_LINK_SEND);
        return false;
    }

    /**
     * Hand what was queued to the network: one system call for a burst on a batching link.
     */
    public void flushSends()
    {
        flushOwed = false;
        link.flush();
    }

    /**
     * A CQ's poll begins, whether or not the CQ holds completions. In polling mode this marks a poller
     * active, so that the progress thread leaves receiving and the timers to it (a poller that finds
     * completions the progress thread produced would otherwise never look like one, and the two threads
     * would trade every packet); and it sends what an earlier poll left queued ({@link #progressInline}),
     * so that a poller that only polls still sends its ACKs at once.
     */
    public void pollBegins()
    {
        if (pollsInline)
        {
            lastInlinePollNs = nanoTime();
        }
        if (flushOwed)
        {
            flushSends();
        }
    }

    /**
     * A transport armed a timer: wake the progress thread if it may be waiting past the deadline,
     * so a timer armed by a posting thread fires on time without the progress thread polling.
     *
     * @param deadlineNs the deadline, in {@link #nanoTime()}'s clock.
     */
    public void timerArmed(final long deadlineNs)
    {
        // read after the deadline is written, as the thread publishes its wait's end before reading the
        // deadline: a thread that will wake before the deadline anyway costs no system call here
        if (timerDeadline.lower(deadlineNs) && deadlineNs < progressWaitEndNs)
        {
            wakeProgressThread();
        }
    }

    /**
     * Wake the progress thread from either of its waits: the link's (watching the socket) or the park
     * of polling mode ({@link Link#awaitReadableWhilePolled}).
     */
    private void wakeProgressThread()
    {
        link.wakeup();
        LockSupport.unpark(progressThread);
    }

    /**
     * Make the progress thread look at its timers now (a QP that entered ERR has receives to flush).
     */
    public void wakeup()
    {
        timersRequested = true;
        wakeProgressThread();
    }

    SoftQp createQp(final SoftPd pd, final QpInitAttr init)
    {
        if (init.type() == null)
        {
            throw new RdmaException(Errno.EINVAL, "the QP type is missing");
        }
        if (!(init.sendCq() instanceof SoftCq sendCq) || !(init.recvCq() instanceof SoftCq recvCq))
        {
            throw new RdmaException(Errno.EINVAL, "a QP needs a send CQ and a receive CQ of this device");
        }
        final QpCap granted = QpCreation.grant(init, limits);
        final SoftSrq qpSrq = QpCreation.srq(init, pd);
        return qpTable.add(qpn ->
        {
            final SoftQp qp = new SoftQp(this, pd, qpn, init.type(), sendCq, recvCq, qpSrq, granted, init.sqSigAll());
            sendCq.addUser();
            if (recvCq != sendCq)
            {
                recvCq.addUser();
            }
            if (qpSrq != null)
            {
                qpSrq.addUser();
            }
            return qp;
        });
    }

    void removeQp(final SoftQp qp)
    {
        qpTable.remove(qp);
    }

    /**
     * @param qpn a QP number.
     * @return the QP, or null.
     */
    public SoftQp qp(final int qpn)
    {
        return qpTable.get(qpn);
    }

    /**
     * The progress thread, in Agrona's shape: a duty cycle that reports the work it did, and an idle
     * strategy that waits when it did none. Nothing thrown ends it (see {@link ProgressErrorLog}).
     */
    private void run()
    {
        while (running)
        {
            int work;
            try
            {
                // while a thread polls (polling mode) it receives, runs the timers that fall due and sends
                // what they queue: this thread keeps out of its way, and takes over when the polls stop
                work = pollerActive(nanoTime()) ? 0 : doWork();
            }
            catch (final Throwable ex)
            {
                // whatever it is, even an Error, the device keeps its thread; the idle strategy
                // still runs, so a fault that recurs on every cycle cannot spin a core
                errorLog.onError(ex);
                work = 0;
            }
            try
            {
                idleStrategy.idle(work);
            }
            catch (final Throwable ex)
            {
                errorLog.onError(ex);
            }
        }
    }

    /**
     * One duty cycle: receive and handle up to a batch of datagrams, then run the QPs' timers if one
     * is due, if datagrams came (their ACKs were coalesced), or if {@link #wakeup} asked. The progress
     * thread calls it in a loop; a device built without a progress thread
     * ({@link SoftDevice.Builder#progressThread}) is driven by calling it, with an injected clock, so
     * timers fire exactly when a test advances time.
     *
     * @return datagrams handled plus 1 if timers ran: 0 means there was nothing to do.
     */
    public int doWork()
    {
        if (!receiveLock.tryLock())
        {
            // a poller holds it (polling mode; no other thread takes it): that poller receives and runs the
            // timers that fall due, so this cycle has nothing to do, and the idle strategy parks as for any
            // active poller. Trying again at once would spin against a poller descheduled with the lock, on
            // the core it needs to finish.
            lastInlinePollNs = nanoTime();
            return 0;
        }
        try
        {
            final int received = receiveBatch(RECEIVE_BATCH);
            final long now = nanoTime();
            if (timerDeadline.get() <= now || received > 0 || timersRequested)
            {
                // cleared before running: a wake-up during the run buys one more run, none is lost
                timersRequested = false;
                runTimers(now);
                return received + 1;
            }
            return received;
        }
        finally
        {
            // what the cycle's packets and timers queued (ACKs, responses, retransmissions) leaves in one
            // go, with anything a poll left owed
            flushSends();
            receiveLock.unlock();
        }
    }

    /**
     * The default idle strategy: after an empty cycle, wait on the link for a datagram or a wake-up,
     * but no longer than until the next timer (and at most {@link #TIMER_WAIT_NS} with one armed, since
     * a transport may arm a shorter one without waking the thread). While a thread polls (polling mode),
     * park instead until it may have stopped: one wake-up per {@link #POLLER_ACTIVE_NS} at most, none per
     * packet.
     */
    private void awaitWork(final int workCount)
    {
        if (workCount > 0)
        {
            return;
        }
        // "may wait long" until the wait is chosen: written before the deadline and lastInlinePollNs are read,
        // as a transport arming a timer and a poller write those before reading this, so that either this
        // thread sees what they wrote or they see it may wait long (and wake it, or flush themselves)
        progressWaitEndNs = Long.MAX_VALUE;
        final long next = timerDeadline.get();
        final long now = nanoTime();
        final long wait = next == Long.MAX_VALUE ? IDLE_WAIT_NS : Math.min(TIMER_WAIT_NS, Math.max(0, next - now));
        if (pollerActive(now))
        {
            // nothing to do until the poller may have stopped, POLLER_ACTIVE_NS after its last poll
            final long brief = POLLER_ACTIVE_NS - (now - lastInlinePollNs);
            progressWaitEndNs = now + brief;
            link.awaitReadableWhilePolled(brief);
        }
        else
        {
            progressWaitEndNs = now + wait;
            link.awaitReadable(wait);
        }
        progressWaitEndNs = Long.MAX_VALUE;
    }

    /** Lock held: receive and handle up to {@code max} datagrams waiting on the link. */
    private int receiveBatch(final int max)
    {
        int received = 0;
        while (received < max && link.receive(rxBuffer, rxInfo))
        {
            received++;
            receivePath.onDatagram(rxSegment, rxBuffer.limit(), rxInfo, rxParser, rxPacket);
        }
        return received;
    }

    /**
     * @param now the clock.
     * @return true in polling mode while a thread polls a CQ of this device: one did within
     *     {@link #POLLER_ACTIVE_NS}.
     */
    private boolean pollerActive(final long now)
    {
        return pollsInline && now - lastInlinePollNs < POLLER_ACTIVE_NS;
    }

    /**
     * @return true if polling a CQ of this device also receives from the network (polling mode).
     */
    public boolean pollsInline()
    {
        return pollsInline;
    }

    /**
     * In polling mode, receive what the link holds on the calling thread, the one polling a CQ,
     * instead of waiting for the progress thread to wake: a busy-polling receiver then sees a
     * packet's completion without a thread hand-off. Does nothing if the progress thread (or
     * another poller) is receiving at the moment, and never blocks.
     *
     * @return datagrams handled.
     */
    public int progressInline()
    {
        if (!pollsInline)
        {
            return 0;
        }
        if (!receiveLock.tryLock())
        {
            return 0;
        }
        int received = 0;
        try
        {
            received = receiveBatch(INLINE_BATCH);
            // the poll's own time (pollBegins) tells whether a timer fell due: no clock read for an empty poll
            if (received > 0 || timerDeadline.get() <= lastInlinePollNs || timersRequested)
            {
                // as the progress thread does after a batch: queue the ACKs the batch coalesced; and the
                // timers that fell due, which the progress thread leaves to an active poller
                timersRequested = false;
                runTimers(nanoTime());
            }
            return received;
        }
        catch (final Throwable ex)
        {
            errorLog.onError(ex);
            return 0;
        }
        finally
        {
            if (received > 0 && progressThreadNear())
            {
                // the poller is about to see these packets' completions and, in a ping-pong, to post
                // its reply: the ACKs wait for it, or for its next poll, or for the progress thread's
                // next cycle, which is near
                flushOwed = true;
            }
            else
            {
                flushSends();
            }
            receiveLock.unlock();
        }
    }

    /**
     * @return true if the progress thread is in a wait that ends within {@link #POLLER_ACTIVE_NS}, so
     * that what a poll leaves queued goes out by then even if nobody polls again.
     */
    private boolean progressThreadNear()
    {
        final long end = progressWaitEndNs;
        return end != Long.MAX_VALUE && end - nanoTime() <= POLLER_ACTIVE_NS;
    }

    /**
     * Lock held: run every QP's timers.
     *
     * @param now the clock.
     */
    private void runTimers(final long now)
    {
        timerDeadline.runBegins();
        long next = TimerDeadline.NONE;
        final SoftQp[] table = qpTable.snapshot();
        for (final SoftQp qp : table)
        {
            if (qp != null && qp.type() != QpType.UD)
            {
                next = Math.min(next, qp.transport().onTimer(now));
            }
        }
        timerDeadline.runEnded(next);
    }

    /**
     * @return QP1's port: MADs in and out.
     */
    GsiPort gsi()
    {
        return gsi;
    }

    /**
     * Route what arrives for QP1 to a handler: the connection manager installs one on each device
     * it uses. Without one, QP1 traffic is dropped as for a QP that does not exist.
     *
     * @param handler the handler, or null to remove it.
     */
    public void gsiHandler(final GsiHandler handler)
    {
        gsi.handler(handler);
    }

    /**
     * Be told, on the progress thread, of each peer whose host says no RoCEv2 device listens on it (ICMP port
     * unreachable, on a link that sees ICMP errors): the connection manager fails its requests to it at once.
     *
     * @param handler told the device and the peer's GID; or null to tell nobody.
     */
    public void unreachableHandler(final java.util.function.BiConsumer<SoftEngine, Gid> handler)
    {
        unreachableHandler = handler;
    }

    /**
     * @param peer a connected peer.
     * @return true if the link knows its process is gone (a same-host peer killed without closing): see
     *         {@link Link#peerProcessGone}. Allocates.
     */
    public boolean peerProcessGone(final Gid peer)
    {
        return link.peerProcessGone(peer.toInet());
    }

    private void peerUnreachable(final java.net.InetAddress peer)
    {
        counters.increment(SoftCounter.ICMP_PORT_UNREACHABLE);
        final java.util.function.BiConsumer<SoftEngine, Gid> handler = unreachableHandler;
        if (handler != null)
        {
            handler.accept(this, Gid.fromInet(peer));
        }
    }

    /**
     * Send a MAD from QP1 to the QP1 of a peer, as a UD SEND_ONLY with the GSI Q_Key. Safe from
     * any thread.
     *
     * @param mad             the 256 bytes.
     * @param destination the peer's GID, of this device's IP family.
     * @return true if handed to the link.
     */
    public boolean sendMad(final byte[] mad, final Gid destination)
    {
        return gsi.sendMad(mad, destination);
    }

    /**
     * The MGID of an IPv4 group, from a small direct-mapped cache so that receiving on a handful of
     * groups builds no {@link Gid} per packet. Only the progress thread calls it.
     */
    Gid groupGid(final int groupIpv4)
    {
        final int slot = groupIpv4 & (groupGidCache.length - 1);
        Gid gid = groupGidCache[slot];
        if (gid == null || gid.ipv4() != groupIpv4 || !gid.isIpv4Mapped())
        {
            gid = Gid.fromIpv4(groupIpv4);
            groupGidCache[slot] = gid;
        }
        return gid;
    }

    /**
     * The MGID of an IPv6 group, from the same cache as {@link #groupGid(int)}. Only the progress thread calls it.
     */
    Gid groupGid(final long groupHigh, final long groupLow)
    {
        final int slot = (int)groupLow & (groupGidCache.length - 1);
        Gid gid = groupGidCache[slot];
        if (gid == null || gid.high() != groupHigh || gid.low() != groupLow)
        {
            gid = new Gid(groupHigh, groupLow);
            groupGidCache[slot] = gid;
        }
        return gid;
    }

    /**
     * Give a multicast packet to every QP attached to its group on this device.
     *
     * @param group  the group's MGID.
     * @param packet the decoded packet.
     * @param info   its addressing.
     * @return how many QPs it was offered to.
     */
    public int deliverMulticast(final Gid group, final PacketInfo packet, final DatagramInfo info)
    {
        if (!packet.has(OpcodeMask.UD))
        {
            counters.increment(SoftCounter.DROP_WRONG_TRANSPORT);
            return 0;
        }
        final Object[] members = mcast.members(group);
        if (members.length == 0)
        {
            counters.increment(SoftCounter.DROP_NOT_A_MEMBER);
            return 0;
        }
        final long now = nanoTime();
        for (final Object member : members)
        {
            final SoftQp qp = (SoftQp)member;
            counters.increment(SoftCounter.MCAST_FANOUT);
            qp.transport().onPacket(packet, info, now);
        }
        return members.length;
    }

    /**
     * @return the thread that receives packets and runs timers, for tests that measure it.
     */
    Thread progressThread()
    {
        return progressThread;
    }

    /**
     * @return QPs in existence.
     */
    public int qpCount()
    {
        return qpTable.count();
    }

    @Override
    public void close()
    {
        running = false;
        wakeProgressThread();
        try
        {
            if (progressThread.isAlive())
            {
                progressThread.join(TimeUnit.SECONDS.toMillis(5));
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        link.close();
        if (statFile != null)
        {
            StatPublisher.remove(this);
            statFile.close();
        }
    }
}
