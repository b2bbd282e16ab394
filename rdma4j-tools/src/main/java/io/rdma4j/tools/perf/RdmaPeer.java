package io.rdma4j.tools.perf;

import io.rdma4j.soft.provider.DevicePath;
import io.rdma4j.tools.common.DeviceOption;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.GlobalRoute;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.Verbs;
import io.rdma4j.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One side's verbs resources for a perf run: device, PD, one CQ (on a completion channel with -e),
 * the QPs, one registered buffer, and for UD the address handle of the peer. It also owns the one
 * way of waiting for completions, busy polling or sleeping on the channel, which every test uses.
 * <p>
 * The buffer has two areas: the <em>landing</em> area at offset 0, where receives land (after the
 * 40-byte GRH on UD) and where the peer's WRITEs, READs and atomics point; and the <em>source</em>
 * area after it, where SENDs and WRITEs take their payload and READs and atomics put their result.
 */
final class RdmaPeer implements AutoCloseable
{
    /** The GRH in front of every UD receive. */
    static final int GRH_BYTES = 40;
    /** The Q_Key both sides' UD QPs use. */
    static final int QKEY = 0x11111111;
    /** wr_id of receives. */
    static final long RECV_WRID = 1;
    /** wr_id of sends, reads, writes and atomics. */
    static final long SEND_WRID = 2;
    /** Outstanding RDMA READs and atomics each side allows; the bandwidth test keeps this many in flight. */
    static final int MAX_RD_ATOMIC = 16;
    /** How long a wait may see no completion at all before the run is declared stuck. */
    private static final long STALL_NS = TimeUnit.SECONDS.toNanos(20);
    private static final int PAGE = 4096;

    private final PerfConfig cfg;
    private final Context ctx;
    private final CompletionChannel channel;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final Arena arena;
    private final MemorySegment buf;
    private final MemoryRegion mr;
    private final QueuePair[] qps;
    private final int[] psns;
    private final long landingBytes;
    private final int gidIndex;
    /** True when connection manager ids own the QPs and the context. */
    private final boolean cmQps;
    private Mtu mtu;
    private final WorkCompletion[] wcs;
    private final RecvWr recvWr = new RecvWr();
    private final IdleSpin spin = new IdleSpin();
    private AddressHandle ah;
    /** The Q_Key the peer's UD QPs expect: {@link #QKEY}, or rdma_cm's when the connection manager said so. */
    private int remoteQkey = QKEY;
    private PerfEndpoint remote;
    private int unackedEvents;
    private boolean armed;

    /**
     * Open the first device (the one {@code rdma4j.soft.address} names) and make the resources.
     *
     * @param config the run.
     * @throws PerfException if the device refuses any of them.
     */
    RdmaPeer(final PerfConfig config) throws PerfException
    {
        this(config, open(config), false);
    }

    /**
     * The resources on the device context the connection manager chose, without QPs: perftest's {@code -R} makes
     * each QP on its connection's id ({@link #qpInitAttr}, {@link #adoptQp}), and the ids take it through its
     * states and destroy it; the context stays the connection manager's.
     *
     * @param config    the run.
     * @param cmContext the ids' device context.
     * @throws PerfException if the device refuses any of them.
     */
    RdmaPeer(final PerfConfig config, final Context cmContext) throws PerfException
    {
        this(config, cmContext, true);
    }

    private static Context open(final PerfConfig config) throws PerfException
    {
        final List<Device> devices = Verbs.getDeviceList();
        if (devices.isEmpty())
        {
            throw new PerfException("no RDMA device found");
        }
        try
        {
            return (config.device() == null ? devices.getFirst() : DeviceOption.find(config.device())).open();
        }
        catch (final RdmaException ex)
        {
            throw new PerfException("couldn't open the device: " + ex.getMessage(), ex);
        }
    }

    private RdmaPeer(final PerfConfig config, final Context context, final boolean cmQps) throws PerfException
    {
        this.cfg = config;
        this.ctx = context;
        this.cmQps = cmQps;
        try
        {
            mtu = ctx.queryPort(1).activeMtu();
            gidIndex = cfg.gidIndex() >= 0 ? cfg.gidIndex() : cfg.perftest() ? firstIpv4Gid(ctx) : 0;
            if (cfg.transport() == QpType.UD && cfg.maxSize() > mtu.bytes())
            {
                if (!cmQps)
                {
                    ctx.close();
                }
                throw new PerfException("message size " + cfg.maxSize() + " exceeds the port MTU " + mtu.bytes() +
                    ": UD sends one packet per message");
            }
            channel = cfg.events() ? ctx.createCompChannel() : null;
            pd = ctx.allocPd();
            landingBytes = align(GRH_BYTES + (long)Math.max(cfg.maxSize(), Long.BYTES), PAGE);
            arena = Arena.ofShared();
            buf = arena.allocate(landingBytes + align(Math.max(cfg.maxSize(), Long.BYTES), PAGE), PAGE);
            buf.fill((byte)0);
            mr = pd.regMr(buf, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC));
            final int depth = cfg.txDepth() + cfg.rxDepth();
            cq = ctx.createCq(cfg.numQp() * depth + 16, channel, 0);
            wcs = WorkCompletion.array(Math.min(64, cfg.numQp() * depth + 16));
            qps = new QueuePair[cfg.numQp()];
            psns = new int[cfg.numQp()];
            final SecureRandom random = new SecureRandom();
            for (int i = 0; i < qps.length && !cmQps; i++)
            {
                qps[i] = pd.createQp(qpInitAttr());
                psns[i] = random.nextInt() & 0xFFFFFF;
                final QpAttr init = new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1);
                if (cfg.transport() == QpType.UD)
                {
                    init.qkey(QKEY);
                }
                else if (cfg.transport() == QpType.UC)
                {
                    init.accessFlags(AccessFlag.REMOTE_WRITE);
                }
                else
                {
                    init.accessFlags(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
                }
                qps[i].modify(init);
            }
        }
        catch (final RdmaException ex)
        {
            throw new PerfException("couldn't set up the device: " + ex.getMessage(), ex);
        }
    }

    /**
     * @return the attributes every QP of the run is made with.
     */
    QpInitAttr qpInitAttr()
    {
        return QpInitAttr.of(cfg.transport(), cq, new QpCap(cfg.txDepth(), cfg.rxDepth(), 1, 1, cfg.inline()));
    }

    /**
     * @param index which QP of the run.
     * @param qp    the QP a connection manager id made with {@link #qpInitAttr} on this side's PD.
     */
    void adoptQp(final int index, final QueuePair qp)
    {
        qps[index] = qp;
    }

    /**
     * @param peer the peer's QPs and buffer, once the connection manager connected the QPs (instead of
     *             {@link #connect}).
     */
    void connected(final PerfEndpoint peer)
    {
        this.remote = peer;
    }

    /**
     * On UD with rdma_cm (instead of {@link #connect}): the peer's QPNs, Q_Key and address as the connection manager
     * gave them.
     *
     * @param peer    the peer's endpoint, its QPNs the ones the connections taught.
     * @param address the route to the peer.
     * @param qkey    the Q_Key its QPs expect.
     * @throws PerfException if the device refuses the address handle.
     */
    void connectedUd(final PerfEndpoint peer, final AhAttr address, final int qkey) throws PerfException
    {
        this.remote = peer;
        this.remoteQkey = qkey;
        try
        {
            ah = pd.createAh(address);
        }
        catch (final RdmaException ex)
        {
            throw new PerfException("couldn't make the address handle rdma_cm gave: " + ex.getMessage(), ex);
        }
    }

    /**
     * @return the Q_Key to put on datagrams to the peer.
     */
    int remoteQkey()
    {
        return remoteQkey;
    }

    /**
     * perftest's choice of GID on RoCE without -x, near enough: the first IPv4-mapped entry (RoCEv2 over IPv4),
     * since perftest refuses a peer whose GID is of the other family and rdma4j's soft device has only that one.
     */
    private static int firstIpv4Gid(final Context ctx)
    {
        final int entries = ctx.queryPort(1).gidTblLen();
        for (int i = 0; i < entries; i++)
        {
            try
            {
                if (ctx.queryGid(1, i).isIpv4Mapped())
                {
                    return i;
                }
            }
            catch (final RdmaException ex)
            {
                // an entry the device cannot report is no candidate
            }
        }
        return 0;
    }

    /**
     * @return the port's active MTU, what this side offers in perftest's exchange.
     */
    Mtu activeMtu()
    {
        return mtu;
    }

    /**
     * @param agreed the path MTU both sides agreed on (perftest's exchange takes the smaller), set before
     *               {@link #connect}.
     */
    void pathMtu(final Mtu agreed)
    {
        mtu = agreed;
    }

    /**
     * @return the GID index this side uses.
     */
    int gidIndex()
    {
        return gidIndex;
    }

    private static long align(final long value, final long to)
    {
        return (value + to - 1) / to * to;
    }

    /**
     * @param udpPort the baseline socket's port, sent along.
     * @return this side's endpoint for the exchange.
     */
    PerfEndpoint endpoint(final int udpPort)
    {
        final int[] qpns = new int[qps.length];
        for (int i = 0; i < qps.length; i++)
        {
            qpns[i] = qps[i].qpNum();
        }
        return new PerfEndpoint(qpns, psns.clone(), ctx.queryGid(1, gidIndex), mr.address(), mr.rkey(), landingBytes,
            udpPort);
    }

    /**
     * Take the QPs to RTR and RTS towards the peer (for UD: make its address handle).
     *
     * @param peer the peer's endpoint.
     * @throws PerfException if the peer's QP count differs or a transition is refused.
     */
    void connect(final PerfEndpoint peer) throws PerfException
    {
        if (peer.qpns().length != qps.length)
        {
            throw new PerfException("the peer has " + peer.qpns().length + " QPs and this side " + qps.length +
                ": give both the same -q");
        }
        this.remote = peer;
        try
        {
            if (cfg.transport() == QpType.UD)
            {
                activateUd();
            }
            for (int i = 0; i < qps.length && cfg.transport() != QpType.UD; i++)
            {
                final QpAttr rtr = new QpAttr().state(QpState.RTR).pathMtu(mtu).destQpNum(peer.qpns()[i])
                    .rqPsn(peer.psns()[i]).ahAttr(route(peer.gid(), 1, gidIndex));
                final QpAttr rts = rts(cfg, psns[i]);
                if (cfg.transport() == QpType.RC)
                {
                    rtr.maxDestRdAtomic(MAX_RD_ATOMIC).minRnrTimer(1);
                }
                qps[i].modify(rtr);
                qps[i].modify(rts);
            }
            if (cfg.transport() == QpType.UD)
            {
                ah = pd.createAh(route(peer.gid(), 64, gidIndex));
            }
        }
        catch (final RdmaException ex)
        {
            throw new PerfException("couldn't connect the QPs: " + ex.getMessage(), ex);
        }
    }

    /**
     * @param config the run.
     * @param sqPsn  the QP's first PSN.
     * @return the move of one of the run's RC or UC QPs to RTS; an RC QP's ACK timeout is -u's (perftest's
     *         default 14: 4.096 us x 2^14, about 67 ms), its retry counts perftest's.
     */
    static QpAttr rts(final PerfConfig config, final int sqPsn)
    {
        final QpAttr rts = new QpAttr().state(QpState.RTS).sqPsn(sqPsn);
        if (config.transport() == QpType.RC)
        {
            rts.timeout(config.qpTimeout()).retryCnt(7).rnrRetry(7).maxRdAtomic(MAX_RD_ATOMIC);
        }
        return rts;
    }

    /**
     * Take UD QPs to RTR and RTS: all they need, with no peer in particular (a multicast sender).
     */
    void activateUd()
    {
        for (int i = 0; i < qps.length; i++)
        {
            if (qps[i].state() == QpState.RTS)
            {
                continue;
            }
            qps[i].modify(new QpAttr().state(QpState.RTR));
            qps[i].modify(new QpAttr().state(QpState.RTS).sqPsn(psns[i]));
        }
    }

    /**
     * @return the protection domain, for a multicast group's address handle.
     */
    ProtectionDomain pd()
    {
        return pd;
    }

    /**
     * @param gid a GID.
     * @param hopLimit the GRH's hop limit.
     * @return an address vector to it through port 1.
     */
    static AhAttr route(final Gid gid, final int hopLimit)
    {
        return route(gid, hopLimit, 0);
    }

    /**
     * @param gid       a GID.
     * @param hopLimit  the GRH's hop limit.
     * @param sgidIndex this side's GID index.
     * @return an address vector to it through port 1 from that GID.
     */
    static AhAttr route(final Gid gid, final int hopLimit, final int sgidIndex)
    {
        return new AhAttr(new GlobalRoute(gid, 0, sgidIndex, hopLimit, 0), 0, 0, 0, 0, 1);
    }

    /**
     * Post receives on a QP into the landing area (what lands there is never read).
     *
     * @param qp    the QP's index.
     * @param count how many.
     * @param bytes the payload size they must hold.
     */
    void postRecvs(final int qp, final int count, final int bytes)
    {
        final int length = (cfg.transport() == QpType.UD ? GRH_BYTES : 0) + Math.max(bytes, 1);
        recvWr.wrId(RECV_WRID).sge(mr, 0, length);
        for (int i = 0; i < count; i++)
        {
            qps[qp].postRecv(recvWr);
        }
    }

    /**
     * Wait for at least one completion, busy polling or on the channel; check every one's status.
     *
     * @return how many completions are now in {@link #completions()}.
     * @throws PerfException if a completion failed or none came for {@link #STALL_NS}.
     * @throws InterruptedException if interrupted while sleeping on the channel.
     */
    int await() throws PerfException, InterruptedException
    {
        final int n = cfg.events() ? awaitEvent() : spinPoll();
        for (int i = 0; i < n; i++)
        {
            if (!wcs[i].isSuccess())
            {
                throw new PerfException(String.format(Locale.ROOT, "completion failed: %s (%d), opcode %s, QPN 0x%06x",
                    wcs[i].status().description(), wcs[i].status().value(), wcs[i].opcode(), wcs[i].qpNum()));
            }
        }
        return n;
    }

    /**
     * One poll, no waiting: what write_lat does between looks at its buffer (on a polling-mode device
     * the poll is also what receives the WRITE).
     *
     * @return completions found.
     * @throws PerfException if one failed.
     */
    int pollOnce() throws PerfException
    {
        final int n = cq.poll(wcs);
        for (int i = 0; i < n; i++)
        {
            if (!wcs[i].isSuccess())
            {
                throw new PerfException(String.format(Locale.ROOT, "completion failed: %s (%d), opcode %s",
                    wcs[i].status().description(), wcs[i].status().value(), wcs[i].opcode()));
            }
        }
        return n;
    }

    private int spinPoll() throws PerfException
    {
        long since = 0;
        int empty = 0;
        while (true)
        {
            final int n = cq.poll(wcs);
            if (n > 0)
            {
                spin.reset();
                return n;
            }
            spin.idle();
            if ((++empty & 0xFFF) == 0)
            {
                final long now = System.nanoTime();
                if (since == 0)
                {
                    since = now;
                }
                else if (now - since > STALL_NS)
                {
                    throw stalled();
                }
            }
        }
    }

    private int awaitEvent() throws PerfException, InterruptedException
    {
        while (true)
        {
            int n = cq.poll(wcs);
            if (n > 0)
            {
                return n;
            }
            if (!armed)
            {
                // Arm, then poll once more: a completion that came before the arm raises no event.
                cq.requestNotify(false);
                armed = true;
                continue;
            }
            final CompletionQueue fired = channel.getCqEvent(STALL_NS, TimeUnit.NANOSECONDS);
            if (fired == null)
            {
                throw stalled();
            }
            armed = false;
            if (++unackedEvents >= 64)
            {
                cq.ackEvents(unackedEvents);
                unackedEvents = 0;
            }
        }
    }

    private PerfException stalled()
    {
        final StringBuilder counters = new StringBuilder();
        ctx.counters().forEach((name, value) ->
        {
            if (value != 0)
            {
                counters.append(counters.isEmpty() ? "" : ", ").append(name).append(' ').append(value);
            }
        });
        return new PerfException("no completion for " + TimeUnit.NANOSECONDS.toSeconds(STALL_NS) +
            " s: the peer stopped, or an unreliable transport lost a message (device counters: " + counters + ")");
    }

    /**
     * @return the completions the last {@link #await()} or {@link #pollOnce()} filled.
     */
    WorkCompletion[] completions()
    {
        return wcs;
    }

    /**
     * @param index a QP's index.
     * @return the QP.
     */
    QueuePair qp(final int index)
    {
        return qps[index];
    }

    /**
     * @return the number of QPs.
     */
    int qpCount()
    {
        return qps.length;
    }

    /**
     * @return the header line naming the device, the path its datagrams take and the run's warm-up; the path is
     *         asked of the open device, since the settings may say {@code auto} or ask for a path it could not have.
     */
    String deviceLine()
    {
        final String path = DevicePath.of(ctx).map(p -> ", " + p).orElse("");
        return String.format(Locale.ROOT, "# device: %s (%s)%s, warm-up %d", ctx.device().name(),
            ctx.device().provider(), path, cfg.warmup());
    }

    /**
     * @return the registered buffer.
     */
    MemorySegment buffer()
    {
        return buf;
    }

    /**
     * @return its memory region.
     */
    MemoryRegion mr()
    {
        return mr;
    }

    /**
     * @return the offset of the source area in the buffer.
     */
    long sourceOffset()
    {
        return landingBytes;
    }

    /**
     * @return the peer's endpoint, once connected.
     */
    PerfEndpoint remote()
    {
        return remote;
    }

    /**
     * @return the UD address handle of the peer, or null on RC and UC.
     */
    AddressHandle ah()
    {
        return ah;
    }

    /**
     * @return the device's counters (the drops and retransmissions to print when a run fails).
     */
    Context context()
    {
        return ctx;
    }

    /**
     * Destroy everything, the QPs first.
     */
    @Override
    public void close()
    {
        if (unackedEvents > 0)
        {
            cq.ackEvents(unackedEvents);
        }
        for (final QueuePair qp : qps)
        {
            if (qp != null && !cmQps)
            {
                qp.close();
            }
        }
        if (ah != null)
        {
            ah.close();
        }
        cq.close();
        mr.close();
        if (channel != null)
        {
            channel.close();
        }
        pd.close();
        if (!cmQps)
        {
            ctx.close();
        }
        arena.close();
    }
}
