package io.rdma4j.tools.pingpong;

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
import io.rdma4j.verbs.PortAttr;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.SharedReceiveQueue;
import io.rdma4j.verbs.SrqAttr;
import io.rdma4j.verbs.Verbs;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * One run of a pingpong tool, in the order rdma-core's tools do things, so output, failure
 * messages and wire traffic match them: open the device, make the resources, pre-post receives,
 * print the local address, exchange addresses over TCP, connect, ping-pong {@code iters} SENDs,
 * print the rate.
 */
public final class PingPongSession implements AutoCloseable
{
    /** wr_id of every receive, as rdma-core's PINGPONG_RECV_WRID. */
    static final int RECV_WRID = 1;
    /** wr_id of every send, as rdma-core's PINGPONG_SEND_WRID. */
    static final int SEND_WRID = 2;
    /** rdma-core's page_size for --chk and buffer alignment (sysconf(_SC_PAGESIZE) on x86-64). */
    static final int PAGE_SIZE = 4096;
    /** Hop limit of RC/UC/SRQ paths; ud_pingpong's address handle uses {@link #UD_HOP_LIMIT}. */
    static final int CONNECTED_HOP_LIMIT = 1;
    /** Hop limit of ud_pingpong's address handle. */
    static final int UD_HOP_LIMIT = 64;
    /** The RC ack timeout exponent rdma-core's tool sets: 4.096 µs × 2^14. */
    private static final int ACK_TIMEOUT = 14;
    /** The retransmit period that {@link #ACK_TIMEOUT} gives, about 67 ms. */
    private static final long RETRANSMIT_PERIOD_NS = 4096L << ACK_TIMEOUT;
    /** Retransmit periods without a packet after which no peer can still be retrying. */
    private static final int LINGER_QUIET_PERIODS = 5;
    /** The longest the tool keeps its QPs after its last completion. */
    private static final long LINGER_LIMIT_NS = TimeUnit.SECONDS.toNanos(5);
    /** Empty polls spent spinning before yielding the core between polls. */
    private static final int SPIN_POLLS = 2000;

    private final PingPongConfig cfg;
    private final PrintWriter out;
    private final PingPongKind kind;
    private final int numQp;
    private final Random random = new SecureRandom();

    private Context ctx;
    private CompletionChannel channel;
    private ProtectionDomain pd;
    private Arena arena;
    private MemorySegment buf;
    private MemoryRegion mr;
    private CompletionQueue cq;
    private SharedReceiveQueue srq;
    private final List<QueuePair> qps = new ArrayList<>();
    private AddressHandle ah;
    private PortAttr portInfo;
    private int sendFlags = SendFlags.SIGNALED;
    private int remoteUdQpn;
    private int numCqEvents;

    private final SendWr sendWr = new SendWr();
    private final RecvWr recvWr = new RecvWr();

    /**
     * @param config the run's parameters.
     * @param stdout where the address and result lines go.
     */
    public PingPongSession(final PingPongConfig config, final PrintWriter stdout)
    {
        this.cfg = config;
        this.out = stdout;
        this.kind = config.kind();
        this.numQp = kind == PingPongKind.SRQ ? config.numQp() : 1;
    }

    /**
     * Run the tool.
     *
     * @throws PingPongException with rdma-core's message on any failure.
     * @throws InterruptedException if interrupted while sleeping on completion events.
     */
    public void run() throws PingPongException, InterruptedException
    {
        final Device device = findDevice();
        init(device);
        int routs = postRecv(cfg.rxDepth());
        if (routs < cfg.rxDepth())
        {
            throw new PingPongException("Couldn't post receive (" + routs + ")");
        }
        if (cfg.useEvents())
        {
            cq.requestNotify(false);
        }
        final List<PingPongDest> mine = localDests();
        // Bound before the local address is printed, so that line also says the port is open.
        final ServerSocket listener = cfg.isClient() ? null : DestExchange.listen(cfg.tcpPort());
        for (final PingPongDest dest : mine)
        {
            out.println(dest.describe("local address: ", kind == PingPongKind.UD ? ": " : ", "));
        }
        out.flush();
        final List<PingPongDest> wire = padded(mine);
        final List<PingPongDest> remote = cfg.isClient()
            ? DestExchange.client(cfg.serverName(), cfg.tcpPort(), wire)
            : DestExchange.server(listener, wire, r -> connect(mine, r));
        for (int i = 0; i < numQp; i++)
        {
            out.println(remote.get(i).describe("remote address:", ", "));
        }
        out.flush();
        if (cfg.isClient())
        {
            connect(mine, remote);
        }
        final int[] pending = new int[numQp];
        Arrays.fill(pending, RECV_WRID);
        if (cfg.isClient())
        {
            if (cfg.validate())
            {
                // rdma-core writes i / page_size % sizeof(char), which is always 0, at each page start.
                for (int i = 0; i < cfg.size(); i += PAGE_SIZE)
                {
                    buf.set(ValueLayout.JAVA_BYTE, kind.payloadOffset() + i, (byte)0);
                }
            }
            for (int i = 0; i < numQp; i++)
            {
                postSend(i);
                pending[i] |= SEND_WRID;
            }
        }
        final long start = System.nanoTime();
        routs = loop(pending, routs);
        final long end = System.nanoTime();
        printResult(end - start);
        if (!cfg.isClient() && cfg.validate())
        {
            for (int i = 0; i < cfg.size(); i += PAGE_SIZE)
            {
                if (buf.get(ValueLayout.JAVA_BYTE, kind.payloadOffset() + i) != 0)
                {
                    out.printf(Locale.ROOT, "invalid data in page %d%n", i / PAGE_SIZE);
                }
            }
        }
        out.flush();
        cq.ackEvents(numCqEvents);
        numCqEvents = 0;
        lingerWhileThePeerMayRetransmit();
        printInjectedLoss();
        out.flush();
    }

    /**
     * RC's TIME_WAIT. The peer is done only once its last SEND is acknowledged; if that ACK is lost
     * the peer retransmits, and only a QP that still exists can acknowledge again. rdma-core's tool
     * destroys its QPs at once and leaves such a peer retrying for ever (retry_cnt 7). This one keeps
     * its QPs while packets still arrive and lets go once none has for {@link #LINGER_QUIET_PERIODS}
     * retransmit periods (about a third of a second), or after {@link #LINGER_LIMIT_NS}.
     */
    private void lingerWhileThePeerMayRetransmit() throws InterruptedException
    {
        final Long first = ctx.counters().get("rcvd_pkts");
        if (!kind.reliable() || first == null)
        {
            return;
        }
        final long period = RETRANSMIT_PERIOD_NS;
        final long deadline = System.nanoTime() + LINGER_LIMIT_NS;
        long seen = first;
        long quietSince = System.nanoTime();
        while (true)
        {
            final long now = System.nanoTime();
            if (now - quietSince >= LINGER_QUIET_PERIODS * period || now - deadline >= 0)
            {
                return;
            }
            TimeUnit.NANOSECONDS.sleep(period / 4);
            final long count = ctx.counters().get("rcvd_pkts");
            if (count != seen)
            {
                seen = count;
                quietSince = System.nanoTime();
            }
        }
    }

    private Device findDevice() throws PingPongException
    {
        final List<Device> devices = Verbs.getDeviceList();
        if (cfg.deviceName() == null)
        {
            if (devices.isEmpty())
            {
                throw new PingPongException("No IB devices found");
            }
            return devices.getFirst();
        }
        for (final Device device : devices)
        {
            if (device.name().equals(cfg.deviceName()))
            {
                return device;
            }
        }
        throw new PingPongException("IB device " + cfg.deviceName() + " not found");
    }

    private static PingPongException failed(final String message, final RuntimeException cause)
    {
        return new PingPongException(message + System.lineSeparator() + "  (rdma4j: " + cause.getMessage() + ")",
            cause);
    }

    private void init(final Device device) throws PingPongException
    {
        final int bufLen = cfg.size() + kind.payloadOffset();
        try
        {
            ctx = device.open();
        }
        catch (final RdmaException ex)
        {
            throw failed("Couldn't get context for " + device.name(), ex);
        }
        if (kind == PingPongKind.UD)
        {
            // ud_pingpong refuses messages that do not fit one packet: UD has no segmentation.
            final int mtu;
            try
            {
                mtu = ctx.queryPort(cfg.ibPort()).activeMtu().bytes();
            }
            catch (final RdmaException ex)
            {
                throw failed("Unable to query port info for port " + cfg.ibPort(), ex);
            }
            if (cfg.size() > mtu)
            {
                throw new PingPongException("Requested size larger than port MTU (" + mtu + ")");
            }
        }
        if (cfg.useEvents())
        {
            try
            {
                channel = ctx.createCompChannel();
            }
            catch (final RdmaException ex)
            {
                throw failed("Couldn't create completion channel", ex);
            }
        }
        try
        {
            pd = ctx.allocPd();
        }
        catch (final RdmaException ex)
        {
            throw failed("Couldn't allocate PD", ex);
        }
        if (cfg.unsupported() != null)
        {
            // rdma-core finds out from ibv_query_device_ex at this point; the soft device has no such feature.
            throw new PingPongException(cfg.unsupported());
        }
        arena = Arena.ofShared();
        buf = arena.allocate(Math.max(1, bufLen), PAGE_SIZE);
        buf.fill((byte)0x7b);
        try
        {
            mr = pd.regMr(buf, EnumSet.of(AccessFlag.LOCAL_WRITE));
        }
        catch (final RdmaException ex)
        {
            throw failed("Couldn't register MR", ex);
        }
        try
        {
            cq = ctx.createCq(cfg.rxDepth() + numQp, channel, 0);
        }
        catch (final RdmaException ex)
        {
            throw failed("Couldn't create CQ", ex);
        }
        if (kind == PingPongKind.SRQ)
        {
            try
            {
                srq = pd.createSrq(new SrqAttr(cfg.rxDepth(), 1, 0));
            }
            catch (final RdmaException ex)
            {
                throw failed("Couldn't create SRQ", ex);
            }
        }
        for (int i = 0; i < numQp; i++)
        {
            createQp(i);
        }
        for (int i = 0; i < numQp; i++)
        {
            final QpAttr attr = new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(cfg.ibPort());
            if (kind == PingPongKind.UD)
            {
                attr.qkey(PingPongKind.UD_QKEY);
            }
            else
            {
                attr.accessFlags(0);
            }
            try
            {
                qps.get(i).modify(attr);
            }
            catch (final RdmaException ex)
            {
                throw failed("Failed to modify QP" + qpSuffix(i) + " to INIT", ex);
            }
        }
    }

    private void createQp(final int index) throws PingPongException
    {
        final QpInitAttr init = srq != null
            ? QpInitAttr.of(kind.qpType(), cq, new QpCap(1, 0, 1, 0, 0)).withSrq(srq)
            : QpInitAttr.of(kind.qpType(), cq, new QpCap(1, cfg.rxDepth(), 1, 1, 0));
        final QueuePair qp;
        try
        {
            qp = pd.createQp(init);
        }
        catch (final RdmaException ex)
        {
            throw failed("Couldn't create QP" + qpSuffix(index), ex);
        }
        qps.add(qp);
        if (qp.cap().maxInlineData() >= cfg.size())
        {
            sendFlags |= SendFlags.INLINE;
        }
    }

    private String qpSuffix(final int index)
    {
        return kind == PingPongKind.SRQ ? "[" + index + "]" : "";
    }

    private List<PingPongDest> localDests() throws PingPongException
    {
        try
        {
            portInfo = ctx.queryPort(cfg.ibPort());
        }
        catch (final RdmaException ex)
        {
            throw failed("Couldn't get port info", ex);
        }
        final int lid = portInfo.lid();
        if (kind != PingPongKind.UD && !"Ethernet".equals(portInfo.linkLayer()) && lid == 0)
        {
            throw new PingPongException("Couldn't get local LID");
        }
        Gid gid = Gid.ZERO;
        if (cfg.gidIndex() >= 0)
        {
            try
            {
                gid = ctx.queryGid(cfg.ibPort(), cfg.gidIndex());
            }
            catch (final RdmaException ex)
            {
                throw failed(kind == PingPongKind.RC || kind == PingPongKind.UC
                    ? "can't read sgid of index " + cfg.gidIndex()
                    : "Could not get local gid for gid index " + cfg.gidIndex(), ex);
            }
        }
        final List<PingPongDest> mine = new ArrayList<>(numQp);
        for (int i = 0; i < numQp; i++)
        {
            // lrand48() & 0xffffff: a random 24-bit first PSN per QP.
            mine.add(new PingPongDest(lid, qps.get(i).qpNum(), random.nextInt() & 0xFFFFFF, gid));
        }
        return mine;
    }

    private List<PingPongDest> padded(final List<PingPongDest> mine)
    {
        if (kind != PingPongKind.SRQ)
        {
            return mine;
        }
        final List<PingPongDest> all = new ArrayList<>(mine);
        while (all.size() < PingPongKind.SRQ_MAX_QP)
        {
            all.add(PingPongDest.EMPTY);
        }
        return all;
    }

    private boolean hasInterfaceId(final Gid gid)
    {
        // rdma-core adds a GRH only when dest->gid.global.interface_id (the low 64 bits) is set.
        return gid.low() != 0;
    }

    private AhAttr addressVector(final PingPongDest dest, final int hopLimit) throws PingPongException
    {
        if (!hasInterfaceId(dest.gid()))
        {
            if ("Ethernet".equals(portInfo.linkLayer()))
            {
                // What rxe would refuse too, said plainly: RoCE addresses only by GID.
                throw new PingPongException("the peer sent no GID, and RoCE needs one: run both sides with a GID " +
                    "index (-g 0 for the rdma-core tool; rdma4j's default is 0)");
            }
            return new AhAttr(null, dest.lid(), cfg.sl(), 0, 0, cfg.ibPort());
        }
        return new AhAttr(new GlobalRoute(dest.gid(), 0, cfg.gidIndex(), hopLimit, 0), dest.lid(), cfg.sl(), 0, 0,
            cfg.ibPort());
    }

    private void connect(final List<PingPongDest> mine, final List<PingPongDest> remote) throws PingPongException
    {
        if (kind == PingPongKind.UD)
        {
            connectUd(mine.getFirst(), remote.getFirst());
            return;
        }
        for (int i = 0; i < numQp; i++)
        {
            final QueuePair qp = qps.get(i);
            final PingPongDest dest = remote.get(i);
            final QpAttr rtr = new QpAttr().state(QpState.RTR).pathMtu(cfg.mtu()).destQpNum(dest.qpn())
                .rqPsn(dest.psn());
            if (kind.reliable())
            {
                rtr.maxDestRdAtomic(1).minRnrTimer(12);
            }
            try
            {
                // srq_pingpong takes the GRH's GID from the first remote entry for every QP; they are all the same.
                final AhAttr av = addressVector(new PingPongDest(dest.lid(), dest.qpn(), dest.psn(),
                    remote.getFirst().gid()), CONNECTED_HOP_LIMIT);
                qp.modify(rtr.ahAttr(av));
            }
            catch (final RdmaException | PingPongException ex)
            {
                throw new PingPongException("Failed to modify QP" + qpSuffix(i) + " to RTR" + System.lineSeparator() +
                    "  (rdma4j: " + ex.getMessage() + ")", ex);
            }
            final QpAttr rts = new QpAttr().state(QpState.RTS).sqPsn(mine.get(i).psn());
            if (kind.reliable())
            {
                rts.timeout(ACK_TIMEOUT).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
            }
            try
            {
                qp.modify(rts);
            }
            catch (final RdmaException ex)
            {
                throw failed("Failed to modify QP" + qpSuffix(i) + " to RTS", ex);
            }
        }
    }

    private void connectUd(final PingPongDest me, final PingPongDest dest) throws PingPongException
    {
        final QueuePair qp = qps.getFirst();
        try
        {
            qp.modify(new QpAttr().state(QpState.RTR));
        }
        catch (final RdmaException ex)
        {
            throw failed("Failed to modify QP to RTR", ex);
        }
        try
        {
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(me.psn()));
        }
        catch (final RdmaException ex)
        {
            throw failed("Failed to modify QP to RTS", ex);
        }
        try
        {
            ah = pd.createAh(addressVector(dest, UD_HOP_LIMIT));
        }
        catch (final RdmaException | PingPongException ex)
        {
            throw new PingPongException("Failed to create AH" + System.lineSeparator() + "  (rdma4j: " +
                ex.getMessage() + ")", ex);
        }
        remoteUdQpn = dest.qpn();
    }

    /** pp_post_recv: post up to n receives of the whole buffer, stopping at the first refusal. */
    private int postRecv(final int n)
    {
        recvWr.wrId(RECV_WRID).sge(mr, 0, cfg.size() + kind.payloadOffset());
        int i = 0;
        try
        {
            for (; i < n; i++)
            {
                if (srq != null)
                {
                    srq.postRecv(recvWr);
                }
                else
                {
                    qps.getFirst().postRecv(recvWr);
                }
            }
        }
        catch (final RdmaException ex)
        {
            // As rdma-core: the count says how many went; the caller reports the shortfall.
        }
        return i;
    }

    private void postSend(final int qpIndex) throws PingPongException
    {
        sendWr.wrId(SEND_WRID).opcode(WrOpcode.SEND).sendFlags(sendFlags)
            .sge(mr, kind.payloadOffset(), cfg.size());
        if (kind == PingPongKind.UD)
        {
            sendWr.ud(ah, remoteUdQpn, PingPongKind.UD_QKEY);
        }
        try
        {
            qps.get(qpIndex).postSend(sendWr);
        }
        catch (final RdmaException ex)
        {
            throw failed("Couldn't post send", ex);
        }
    }

    private int loop(final int[] pending, final int initialRouts) throws PingPongException, InterruptedException
    {
        int routs = initialRouts;
        int rcnt = 0;
        int scnt = 0;
        final int iters = cfg.iters();
        // srq_pingpong polls everything there can be at once; the others two at a time.
        final WorkCompletion[] wc = WorkCompletion.array(kind == PingPongKind.SRQ ? numQp + cfg.rxDepth() : 2);
        final int refillAt = kind == PingPongKind.SRQ ? numQp : 1;
        int idle = 0;
        while (rcnt < iters || scnt < iters)
        {
            if (cfg.useEvents())
            {
                awaitCqEvent();
            }
            int ne;
            do
            {
                ne = cq.poll(wc);
                if (ne < 1 && !cfg.useEvents())
                {
                    // rdma-core spins; two JVMs sharing two cores with the soft device's own threads
                    // need those cores, so spin a little and then yield between polls.
                    if (++idle < SPIN_POLLS)
                    {
                        Thread.onSpinWait();
                    }
                    else
                    {
                        Thread.yield();
                    }
                }
            }
            while (!cfg.useEvents() && ne < 1);
            idle = 0;
            for (int i = 0; i < ne; i++)
            {
                final WorkCompletion c = wc[i];
                if (!c.isSuccess())
                {
                    throw parseFailed(String.format(Locale.ROOT, "Failed status %s (%d) for wr_id %d",
                        c.status().description(), c.status().value(), (int)c.wrId()), ne);
                }
                final int qpIndex = qpIndex(c.qpNum());
                if (qpIndex < 0)
                {
                    throw new PingPongException(String.format(Locale.ROOT, "Couldn't find QPN %06x", c.qpNum()));
                }
                switch ((int)c.wrId())
                {
                    case SEND_WRID -> ++scnt;
                    case RECV_WRID ->
                    {
                        if (--routs <= refillAt)
                        {
                            routs += postRecv(cfg.rxDepth() - routs);
                            if (routs < cfg.rxDepth())
                            {
                                throw parseFailed("Couldn't post receive (" + routs + ")", ne);
                            }
                        }
                        ++rcnt;
                    }
                    default -> throw parseFailed("Completion for unknown wr_id " + (int)c.wrId(), ne);
                }
                pending[qpIndex] &= ~(int)c.wrId();
                if (scnt < iters && pending[qpIndex] == 0)
                {
                    try
                    {
                        postSend(qpIndex);
                    }
                    catch (final PingPongException ex)
                    {
                        throw parseFailed(ex.getMessage(), ne);
                    }
                    pending[qpIndex] = RECV_WRID | SEND_WRID;
                }
            }
        }
        return routs;
    }

    private PingPongException parseFailed(final String message, final int ne)
    {
        // rc_pingpong's parse_single_wc reports, then main adds "parse WC failed"; the others stop at the first line.
        return new PingPongException(kind == PingPongKind.RC
            ? message + System.lineSeparator() + "parse WC failed " + ne : message);
    }

    private int qpIndex(final int qpn)
    {
        if (kind != PingPongKind.SRQ)
        {
            return 0;
        }
        for (int i = 0; i < qps.size(); i++)
        {
            if (qps.get(i).qpNum() == qpn)
            {
                return i;
            }
        }
        return -1;
    }

    private void awaitCqEvent() throws PingPongException, InterruptedException
    {
        CompletionQueue evCq;
        try
        {
            // ibv_get_cq_event blocks without limit; wait in slices so an interrupt is noticed.
            do
            {
                evCq = channel.getCqEvent(1, TimeUnit.SECONDS);
            }
            while (evCq == null);
        }
        catch (final RdmaException ex)
        {
            throw failed("Failed to get cq_event", ex);
        }
        ++numCqEvents;
        if (evCq != cq)
        {
            throw new PingPongException("CQ event for unknown CQ " + evCq);
        }
        try
        {
            cq.requestNotify(false);
        }
        catch (final RdmaException ex)
        {
            throw failed("Couldn't request CQ notification", ex);
        }
    }

    private void printResult(final long nanos)
    {
        // gettimeofday resolution, and rdma-core keeps the microseconds in a float.
        final float usec = nanos / 1000;
        final long bytes = (long)cfg.size() * cfg.iters() * 2;
        out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1000000., bytes * 8. / usec);
        out.printf(Locale.ROOT, "%d iters in %.2f seconds = %.2f usec/iter%n", cfg.iters(), usec / 1000000.,
            (double)usec / cfg.iters());
    }

    /**
     * When the software device was told to lose datagrams (rdma4j.soft.loss), say how many it lost
     * and what the transport did about it; rdma-core's tool has no such line because its loss is
     * never injected.
     */
    private void printInjectedLoss()
    {
        final Map<String, Long> counters = ctx.counters();
        final long dropped = counters.getOrDefault("drop_injected", 0L);
        if (dropped > 0)
        {
            out.printf(Locale.ROOT, "injected loss: %d of %d datagrams sent were dropped; retransmitted_pkts %d, " +
                "sent_naks %d, rcvd_seq_err %d, completer_retry_err %d%n", dropped,
                counters.getOrDefault("sent_pkts", 0L), counters.getOrDefault("retransmitted_pkts", 0L),
                counters.getOrDefault("sent_naks", 0L), counters.getOrDefault("rcvd_seq_err", 0L),
                counters.getOrDefault("completer_retry_err", 0L));
        }
    }

    /**
     * Destroy everything in rdma-core's pp_close_ctx order: QPs, SRQ, AH, CQ, MR, PD, channel,
     * context.
     *
     * @throws PingPongException "Couldn't destroy QP" and the like if a resource refuses to go.
     */
    @Override
    public void close() throws PingPongException
    {
        try
        {
            if (cq != null && numCqEvents > 0)
            {
                cq.ackEvents(numCqEvents);
            }
        }
        catch (final RdmaException ex)
        {
            // Acknowledging only lets the CQ be destroyed; a failure shows up there.
        }
        PingPongException first = null;
        for (final QueuePair qp : qps)
        {
            first = closeStep(first, qp, "Couldn't destroy QP");
        }
        qps.clear();
        first = closeStep(first, srq, "Couldn't destroy SRQ");
        first = closeStep(first, ah, "Couldn't destroy AH");
        first = closeStep(first, cq, "Couldn't destroy CQ");
        first = closeStep(first, mr, "Couldn't deregister MR");
        first = closeStep(first, pd, "Couldn't deallocate PD");
        first = closeStep(first, channel, "Couldn't destroy completion channel");
        first = closeStep(first, ctx, "Couldn't release context");
        srq = null;
        ah = null;
        cq = null;
        mr = null;
        pd = null;
        channel = null;
        ctx = null;
        if (arena != null)
        {
            arena.close();
            arena = null;
        }
        if (first != null)
        {
            throw first;
        }
    }

    private static PingPongException closeStep(
        final PingPongException first, final AutoCloseable resource, final String message)
    {
        if (resource == null)
        {
            return first;
        }
        try
        {
            resource.close();
            return first;
        }
        catch (final Exception ex)
        {
            return first != null ? first : new PingPongException(message + System.lineSeparator() + "  (rdma4j: " +
                ex.getMessage() + ")", ex);
        }
    }
}
