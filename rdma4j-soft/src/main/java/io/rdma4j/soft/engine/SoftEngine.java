package io.rdma4j.soft.engine;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.mcast.McastGroupTable;
import io.rdma4j.soft.receive.MadPort;
import io.rdma4j.soft.receive.ReceivePath;
import io.rdma4j.soft.resource.MrTable;
import io.rdma4j.soft.resource.SoftAh;
import io.rdma4j.soft.transport.BatchEndWork;
import io.rdma4j.soft.transport.TransportDevice;
import io.rdma4j.soft.transport.TransportFactory;
import io.rdma4j.soft.transport.TransportQp;
import io.rdma4j.soft.transport.Transports;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.soft.verbs.SoftContext;
import io.rdma4j.soft.verbs.VerbsDevice;
import io.rdma4j.soft.wire.DeferredIcrc;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.spi.Counted;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.WaitDriver;
import org.agrona.concurrent.IdleStrategy;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * The running software device: its link, its tables (QPs in {@link QpTable}, memory regions, multicast
 * groups), its counters, QP1 ({@link GsiPort}), its async events, and the device as the transports see it
 * ({@link TransportDevice}: addressing and sending packets, counting). Its agent ({@link ProgressAgent}) runs
 * the duty cycle: datagrams in through the {@link ReceivePath}, batch-end work, timers. Shared by every
 * context opened on the device.
 */
public final class SoftEngine implements VerbsDevice, AutoCloseable
{
    /** QP1, the general services interface: the connection manager's MADs come and go there. */
    public static final int GSI_QPN = MadPort.GSI_QPN;
    /** Bytes in a management datagram: the MAD format's (IBA 13.4.1), which {@code CmMad} lays out. */
    public static final int MAD_LENGTH = MadPort.MAD_LENGTH;

    private final String name;
    private final Link link;
    private final DeviceLimits limits;
    private final Mtu activeMtu;
    private final Gid gid;
    private final int localIpv4;
    private final boolean ipv6;
    private final MrTable mrTable;
    private final McastGroupTable<TransportQp> mcast;
    private final Counters counters;
    private final GsiPort gsi = new GsiPort(this);
    private final ReceivePath receivePath;
    private final ProgressAgent agent;
    private final LinkedBlockingQueue<AsyncEvent> asyncEvents = new LinkedBlockingQueue<>();
    private final TransportFactory transportFactory;
    private final QpTable qpTable;
    private final LongSupplier clock;
    private final ProgressErrorLog errorLog;
    private volatile java.util.function.BiConsumer<SoftEngine, Gid> unreachableHandler;
    private volatile long keepaliveIdleNs;

    /**
     * @param name         the device's name, for its progress thread and its log lines.
     * @param link         the link it sends and receives on; the engine closes it.
     * @param limits       the device's limits.
     * @param factory      makes each QP's transport; null for the real ones.
     * @param pollsInline  true if a thread polling an empty CQ receives itself (polling mode).
     * @param waitsInline  true if a thread waiting for a CQ event or a completion receives itself (polling and
     *                     waiting modes): see {@link #await}.
     * @param waitSpinNs   how long such a waiter, when its last wait found work, polls the link before it blocks.
     * @param clock        the clock of timers and the transports.
     * @param logger       where progress errors are said.
     * @param startsThread false for a device driven by calling {@link #doWork()}.
     * @param idleStrategy what the progress thread does when a duty cycle found nothing.
     */
    public SoftEngine(final String name, final Link link, final DeviceLimits limits, final TransportFactory factory,
        final boolean pollsInline, final boolean waitsInline, final long waitSpinNs, final LongSupplier clock,
        final System.Logger logger,
        final boolean startsThread, final IdleStrategy idleStrategy)
    {
        this.name = name;
        this.clock = clock;
        this.counters = new Counters();
        this.errorLog = new ProgressErrorLog(name, counters, logger, clock);
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
        this.receivePath = new ReceivePath(this, link, this::qp, mcast, gsi);
        this.agent = new ProgressAgent(link, receivePath, qpTable, clock, errorLog, pollsInline, waitsInline,
            waitSpinNs, counters, "rdma4j-" + name, idleStrategy);
        if (startsThread)
        {
            agent.start();
        }
    }

    /**
     * @param context a context on a software device.
     * @return the engine behind it: for the connection manager, the provider and tests, which use more of
     *         the running device (its link, QP1) than a verb does.
     */
    public static SoftEngine of(final Context context)
    {
        return (SoftEngine)((SoftContext)context).engine();
    }

    /**
     * Append a QP number as the stat lines and ibv_devinfo write it, {@code 0x} and six hex digits: by hand, since
     * {@code String.format} parses its pattern on each call, a hundred times a describe, in code run too rarely to
     * be compiled soon.
     *
     * @param text where to append.
     * @param qpn  a 24-bit QP number.
     * @return {@code text}.
     */
    public static StringBuilder appendQpn(final StringBuilder text, final int qpn)
    {
        text.append("0x");
        for (int shift = 20; shift >= 0; shift -= 4)
        {
            text.append(Character.forDigit((qpn >>> shift) & 0xF, 16));
        }
        return text;
    }

    /**
     * @return what the device holds now, for the stat file: a line per QP and per multicast group.
     *         Allocates; the stat publisher calls it about once a second, never the data path.
     */
    public String describe()
    {
        final StringBuilder text = new StringBuilder();
        for (final TransportQp qp : qpTable.snapshot())
        {
            if (qp != null)
            {
                // the values read where they are: a map of every counter a QP, each second, was most of what
                // the stat thread allocated
                final Counters qpCounters = qp.qpCounters();
                appendQpn(text.append("qp "), qp.qpNum()).append(' ').append(qp.type()).append(' ').append(qp.state());
                final List<SoftCounter> all = SoftCounter.inIdOrder();
                for (int i = 0; i < all.size(); i++)
                {
                    final SoftCounter counter = all.get(i);
                    final long value = qpCounters.get(counter);
                    if (value != 0)
                    {
                        text.append(' ').append(counter.counterName()).append(' ').append(value);
                    }
                }
                text.append('\n');
            }
        }
        mcast.groupSizes().forEach((group, members) ->
            text.append("group ").append(group.toInet().getHostAddress()).append(' ')
                .append(Counted.of(members, "QP")).append(" attached\n"));
        return text.toString();
    }

    /**
     * @return the device's name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return the device's IP address: its link's.
     */
    public InetAddress address()
    {
        return link.localAddress();
    }

    public Link link()
    {
        return link;
    }

    /**
     * @return the device's limits.
     */
    @Override
    public DeviceLimits limits()
    {
        return limits;
    }

    /**
     * @return the port's active MTU.
     */
    @Override
    public Mtu activeMtu()
    {
        return activeMtu;
    }

    /**
     * @return GID index 0: the device's IP address.
     */
    @Override
    public Gid gid()
    {
        return gid;
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
    @Override
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
    @Override
    public MrTable mrTable()
    {
        return mrTable;
    }

    /**
     * @return the multicast group table.
     */
    @Override
    public McastGroupTable<TransportQp> mcast()
    {
        return mcast;
    }

    /**
     * @return the device counters.
     */
    @Override
    public Counters counters()
    {
        return counters;
    }

    @Override
    public TransportFactory transportFactory()
    {
        return transportFactory;
    }

    /**
     * @return the clock transports use.
     */
    @Override
    public long nanoTime()
    {
        return clock.getAsLong();
    }

    @Override
    public long keepaliveIdleNs()
    {
        return keepaliveIdleNs;
    }

    /**
     * @param idleNs how long an RC QP that enters RTS from now on may hear nothing from its peer before it probes
     *               it; 0 for never (the settings' {@code rdma4j.soft.keepalive}).
     */
    public void keepaliveIdleNs(final long idleNs)
    {
        keepaliveIdleNs = idleNs;
    }

    /**
     * @param event an event for {@link io.rdma4j.verbs.Context#getAsyncEvent}.
     */
    @Override
    public void postAsyncEvent(final AsyncEvent event)
    {
        asyncEvents.offer(event);
    }

    /**
     * @param timeout how long to wait.
     * @param unit    its unit.
     * @return the oldest async event not yet taken, or null after the timeout.
     * @throws InterruptedException if interrupted while waiting.
     */
    @Override
    public AsyncEvent takeAsyncEvent(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        return asyncEvents.poll(timeout, unit);
    }

    /** Count a datagram the link took ({@code sent_pkts}) or refused ({@code drop_link_send}). */
    private boolean counted(final boolean taken)
    {
        counters.increment(taken ? SoftCounter.SENT_PKTS : SoftCounter.DROP_LINK_SEND);
        return taken;
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
        return counted(link.send(datagram, destination, hopLimit));
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
    @Override
    public boolean queue(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
    {
        return counted(link.queue(datagram, destination, hopLimit));
    }

    /**
     * As {@link #queue(ByteBuffer, InetAddress, int)}, the ICRC computed where the link's path needs it.
     *
     * @return true if the link took it.
     */
    @Override
    public boolean queue(
        final ByteBuffer datagram, final InetAddress destination, final int hopLimit, final DeferredIcrc icrc)
    {
        return counted(link.queue(datagram, destination, hopLimit, icrc));
    }

    /**
     * As {@link #queueGathered(ByteBuffer, MemorySegment, long, int, ByteBuffer, InetAddress, int)}, the ICRC
     * written into the tail where the link's path needs it.
     *
     * @return true if the link took it.
     */
    @Override
    public boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit, final DeferredIcrc icrc)
    {
        return counted(
            link.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit, icrc));
    }

    /**
     * Queue a datagram whose payload the link reads in place (see {@link Link#queueGathered}), counting it.
     *
     * @return true if the link took it.
     */
    @Override
    public boolean queueGathered(
        final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
        final ByteBuffer tail, final InetAddress destination, final int hopLimit)
    {
        return counted(
            link.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit));
    }

    /**
     * Choose a free QP number and add the QP {@code maker} builds for it: see {@link QpTable#add}.
     *
     * @param maker builds the QP once its number is chosen; nothing is added if it throws.
     * @param <Q>   the QP's class.
     * @return the QP.
     */
    @Override
    public <Q extends TransportQp> Q addQp(final IntFunction<Q> maker)
    {
        return qpTable.add(maker);
    }

    /**
     * @param qp a QP being destroyed: packets for its number find nothing from now on.
     */
    @Override
    public void removeQp(final TransportQp qp)
    {
        qpTable.remove(qp);
    }

    /**
     * @param qpn a QP number.
     * @return the QP, or null.
     */
    public TransportQp qp(final int qpn)
    {
        return qpTable.get(qpn);
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

    /**
     * @return true if some peer's process is known to be gone: see {@link Link#anyPeerProcessGone}.
     */
    public boolean anyPeerProcessGone()
    {
        return link.anyPeerProcessGone();
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

    @Override
    public void loopbackMulticast(final MemorySegment packet, final int length, final SoftAh group)
    {
        if (mcast.hasGroup(group.destinationGid()))
        {
            counters.increment(SoftCounter.MCAST_LOOPBACK);
            receivePath.onLoopback(packet, length, group);
        }
    }

    @Override
    public void batchEndOwed(final BatchEndWork work)
    {
        agent.batchEndOwed(work);
    }

    @Override
    public void timerArmed(final long deadlineNs)
    {
        agent.timerArmed(deadlineNs);
    }

    @Override
    public void wakeup()
    {
        agent.wakeup();
    }

    /**
     * Hand what was queued to the network: one system call for a burst on a batching link.
     */
    @Override
    public void flushSends()
    {
        agent.flushSends();
    }

    /**
     * See {@link ProgressAgent#sendsPosted}.
     */
    @Override
    public void sendsPosted()
    {
        agent.sendsPosted();
    }

    /**
     * A CQ's poll begins: see {@link ProgressAgent#pollBegins}.
     */
    @Override
    public void pollBegins()
    {
        agent.pollBegins();
    }

    /**
     * @return true if the progress thread stands back now for a thread that polls a CQ (polling mode): see
     *         {@link ProgressAgent#pollerWaits}. For tests.
     */
    public boolean defersToPoller()
    {
        return agent.defersToPoller();
    }

    /**
     * A CQ armed for an event is polled: see {@link ProgressAgent#pollerWaits}.
     */
    @Override
    public void pollerWaits()
    {
        agent.pollerWaits();
    }

    /**
     * @return true if polling a CQ of this device also receives from the network (polling mode).
     */
    @Override
    public boolean pollsInline()
    {
        return agent.pollsInline();
    }

    /**
     * In polling mode, receive on the calling thread: see {@link ProgressAgent#progressInline}.
     *
     * @return datagrams handled.
     */
    @Override
    public int progressInline()
    {
        return agent.progressInline();
    }

    /**
     * @return true if a thread waiting for an event or a completion receives itself (polling and waiting modes).
     */
    @Override
    public boolean waitsInline()
    {
        return agent.waitsInline();
    }

    @Override
    public int await(final WaitDriver.Wait wait, final long timeoutNs)
    {
        return agent.awaitReceiving(wait, timeoutNs);
    }

    @Override
    public void stopSeeking(final WaitDriver.Wait wait)
    {
        agent.stopSeeking(wait);
    }

    @Override
    public void wakeReceiver(final Thread receiver)
    {
        agent.wakeReceiver(receiver);
    }

    /**
     * One duty cycle of the device's agent: see {@link ProgressAgent#doWork}. A device built without a progress
     * thread ({@code SoftDevice.Builder.progressThread}) is driven by calling it.
     *
     * @return work done: 0 means there was nothing to do.
     */
    public int doWork()
    {
        return agent.dutyCycle();
    }

    @Override
    public boolean sameHostPathTo(final Gid peer)
    {
        return link.sameHostPathTo(peer.toInet());
    }

    @Override
    public int maxQpRdAtom()
    {
        return limits.maxQpRdAtom();
    }

    @Override
    public boolean gathers()
    {
        return !ipv6 && link.gathers();
    }

    /**
     * @return the thread that receives packets and runs timers, for tests that measure it.
     */
    @Override
    public Thread progressThread()
    {
        return agent.progressThread();
    }

    /**
     * @return a number that changes when a QP comes, goes or changes state, or a group's membership changes, for
     *     the stat file's publisher, which rewrites the QPs' and groups' lines only then (or when packets moved).
     *     Allocates an iterator of the groups.
     */
    public long describeKey()
    {
        long key = mcast.groupsKey();
        for (final TransportQp qp : qpTable.snapshot())
        {
            if (qp != null)
            {
                key = key * 31 + ((long)qp.qpNum() << 4 | qp.state().ordinal());
            }
        }
        return key;
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
        agent.stop();
        // a polling thread may still be reading a datagram in the link's memory
        agent.whileNoneReceives(link::close);
    }
}
