package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.Verbs;
import io.rdma4j.verbs.WorkCompletion;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.security.SecureRandom;
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
 * print the rate. What sets the four tools apart (their QPs, how they connect and post, a few
 * words of output) is the {@link PingPongQps} of the run's {@link PingPongKind}.
 */
public final class PingPongSession implements AutoCloseable
{
    /** rdma-core's page_size for --chk and buffer alignment (sysconf(_SC_PAGESIZE) on x86-64). */
    static final int PAGE_SIZE = 4096;
    /** Retransmit periods without a packet after which no peer can still be retrying. */
    private static final int LINGER_QUIET_PERIODS = 5;
    /** The longest the tool keeps its QPs after its last completion. */
    private static final long LINGER_LIMIT_NS = TimeUnit.SECONDS.toNanos(5);
    /** Empty polls spent spinning before yielding the core between polls (soft device only). */
    private static final int SPIN_POLLS = 2000;
    /** {@link #spinPollsFor}'s answer for a native device: poll again at once, never pause or yield. */
    static final int PLAIN_SPIN = Integer.MAX_VALUE;

    private final PingPongConfig cfg;
    private final PrintWriter out;
    private final PingPongQps qps;
    private final Random random = new SecureRandom();

    private Context ctx;
    /** Empty polls before a yield: {@link #SPIN_POLLS} on the soft device, never on a native one. */
    private int spinPolls;
    private CompletionChannel channel;
    private ProtectionDomain pd;
    private Arena arena;
    private MemorySegment buf;
    private MemoryRegion mr;
    private CompletionQueue cq;
    private int numCqEvents;
    /** When the timed exchanges began: once the warm-up's last exchange completed (at once without one). */
    private long timedStart;

    /**
     * @param config the run's parameters.
     * @param stdout where the address and result lines go.
     */
    public PingPongSession(final PingPongConfig config, final PrintWriter stdout)
    {
        this.cfg = config;
        this.out = stdout;
        this.qps = config.kind().qps(config);
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
        int routs = qps.postRecv(cfg.rxDepth());
        if (routs < cfg.rxDepth())
        {
            throw new PingPongException("Couldn't post receive (" + routs + ")");
        }
        if (cfg.useEvents())
        {
            cq.requestNotify(false);
        }
        final List<PingPongDest> mine = qps.localDests(ctx, random);
        // Bound before the local address is printed, so that line also says the port is open.
        final ServerSocket listener = cfg.isClient() ? null : DestExchange.listen(cfg.tcpPort());
        for (final PingPongDest dest : mine)
        {
            out.println(dest.describe("local address: ", qps.localSeparator()));
        }
        out.flush();
        final List<PingPongDest> wire = qps.wire(mine);
        final List<PingPongDest> remote = cfg.isClient()
            ? DestExchange.client(cfg.serverName(), cfg.tcpPort(), wire)
            : DestExchange.server(listener, wire, r -> qps.connect(mine, r));
        for (int i = 0; i < qps.count(); i++)
        {
            out.println(remote.get(i).describe("remote address:", ", "));
        }
        out.flush();
        if (cfg.isClient())
        {
            qps.connect(mine, remote);
        }
        final int[] pending = new int[qps.count()];
        Arrays.fill(pending, PingPongQps.RECV_WRID);
        if (cfg.isClient())
        {
            if (cfg.validate())
            {
                // rdma-core writes i / page_size % sizeof(char), which is always 0, at each page start.
                for (int i = 0; i < cfg.size(); i += PAGE_SIZE)
                {
                    buf.set(ValueLayout.JAVA_BYTE, qps.payloadOffset() + i, (byte)0);
                }
            }
            for (int i = 0; i < qps.count(); i++)
            {
                qps.postSend(i);
                pending[i] |= PingPongQps.SEND_WRID;
            }
        }
        final long start = System.nanoTime();
        timedStart = start;
        routs = loop(pending, routs);
        final long end = System.nanoTime();
        if (cfg.warmup() > 0)
        {
            printRate("warm-up", cfg.warmup(), timedStart - start);
        }
        printResult(end - timedStart);
        if (!cfg.isClient() && cfg.validate())
        {
            for (int i = 0; i < cfg.size(); i += PAGE_SIZE)
            {
                if (buf.get(ValueLayout.JAVA_BYTE, qps.payloadOffset() + i) != 0)
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
        if (!qps.reliable() || first == null)
        {
            return;
        }
        final long period = ReliableAttrs.RETRANSMIT_PERIOD_NS;
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

    /**
     * rdma-core's tools poll an empty CQ again at once, and so do ours on a native device, whose work is
     * done by the kernel or the NIC: no yield (a system call per empty poll) and no spin-wait hint (an
     * x86 PAUSE, which an emulator such as qemu's TCG turns into an exit from its translated code on
     * every empty poll). Two JVMs sharing two cores with the soft device's own threads need those cores,
     * so on the soft device the tools spin a little and then yield between polls.
     *
     * @param device the device the tool polls.
     * @return empty polls spent spinning before each yield, or {@link #PLAIN_SPIN}.
     */
    static int spinPollsFor(final Device device)
    {
        return "soft".equals(device.provider()) ? SPIN_POLLS : PLAIN_SPIN;
    }

    private void init(final Device device) throws PingPongException
    {
        final int bufLen = cfg.size() + qps.payloadOffset();
        try
        {
            ctx = device.open();
            spinPolls = spinPollsFor(device);
        }
        catch (final RdmaException ex)
        {
            throw PingPongException.withCause("Couldn't get context for " + device.name(), ex);
        }
        qps.checkSize(ctx);
        if (cfg.useEvents())
        {
            try
            {
                channel = ctx.createCompChannel();
            }
            catch (final RdmaException ex)
            {
                throw PingPongException.withCause("Couldn't create completion channel", ex);
            }
        }
        try
        {
            pd = ctx.allocPd();
        }
        catch (final RdmaException ex)
        {
            throw PingPongException.withCause("Couldn't allocate PD", ex);
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
            throw PingPongException.withCause("Couldn't register MR", ex);
        }
        try
        {
            cq = ctx.createCq(cfg.rxDepth() + qps.count(), channel, 0);
        }
        catch (final RdmaException ex)
        {
            throw PingPongException.withCause("Couldn't create CQ", ex);
        }
        qps.create(pd, cq, mr);
    }

    private int loop(final int[] pending, final int initialRouts) throws PingPongException, InterruptedException
    {
        int routs = initialRouts;
        int rcnt = 0;
        int scnt = 0;
        // the warm-up's exchanges and the timed ones in one stream: the peer sees no pause between them
        final int warmup = cfg.warmup();
        final int iters = warmup + cfg.iters();
        boolean warm = warmup == 0;
        final WorkCompletion[] wc = WorkCompletion.array(qps.pollBatch());
        final int refillAt = qps.refillAt();
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
                if (ne < 1 && !cfg.useEvents() && spinPolls != PLAIN_SPIN)
                {
                    if (++idle < spinPolls)
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
                final int qpIndex = qps.qpIndex(c.qpNum());
                if (qpIndex < 0)
                {
                    throw new PingPongException(String.format(Locale.ROOT, "Couldn't find QPN %06x", c.qpNum()));
                }
                switch ((int)c.wrId())
                {
                    case PingPongQps.SEND_WRID -> ++scnt;
                    case PingPongQps.RECV_WRID ->
                    {
                        if (--routs <= refillAt)
                        {
                            routs += qps.postRecv(cfg.rxDepth() - routs);
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
                if (!warm && rcnt >= warmup && scnt >= warmup)
                {
                    // the clock starts where rdma-core's does, before the first timed send is posted
                    warm = true;
                    timedStart = System.nanoTime();
                }
                if (scnt < iters && pending[qpIndex] == 0)
                {
                    try
                    {
                        qps.postSend(qpIndex);
                    }
                    catch (final PingPongException ex)
                    {
                        throw parseFailed(ex.getMessage(), ne);
                    }
                    pending[qpIndex] = PingPongQps.RECV_WRID | PingPongQps.SEND_WRID;
                }
            }
        }
        return routs;
    }

    private PingPongException parseFailed(final String message, final int ne)
    {
        return new PingPongException(qps.parseFailed(message, ne));
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
            throw PingPongException.withCause("Failed to get cq_event", ex);
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
            throw PingPongException.withCause("Couldn't request CQ notification", ex);
        }
    }

    private void printResult(final long nanos)
    {
        // gettimeofday resolution, and rdma-core keeps the microseconds in a float.
        final float usec = nanos / 1000;
        final long bytes = (long)cfg.size() * cfg.iters() * 2;
        out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1000000.,
            bytes * 8. / usec);
        printRate("", cfg.iters(), nanos);
    }

    // "N iters in S seconds = U usec/iter", rdma-core's line, with what comes before "iters"
    private void printRate(final String what, final int count, final long nanos)
    {
        final float usec = nanos / 1000;
        out.printf(Locale.ROOT, "%s%d iters in %.2f seconds = %.2f usec/iter%n", what.isEmpty() ? "" : what + ": ",
            count, usec / 1000000., (double)usec / count);
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
        final FirstFailure first = new FirstFailure();
        qps.close(first);
        first.close(cq, "Couldn't destroy CQ");
        first.close(mr, "Couldn't deregister MR");
        first.close(pd, "Couldn't deallocate PD");
        first.close(channel, "Couldn't destroy completion channel");
        first.close(ctx, "Couldn't release context");
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
        if (first.failure != null)
        {
            throw first.failure;
        }
    }

    /**
     * Destroys resources one after the other, whatever happens, and keeps the first refusal.
     */
    private static final class FirstFailure implements PingPongQps.Closer
    {
        private PingPongException failure;

        @Override
        public void close(final AutoCloseable resource, final String message)
        {
            if (resource == null)
            {
                return;
            }
            try
            {
                resource.close();
            }
            catch (final Exception ex)
            {
                if (failure == null)
                {
                    failure = PingPongException.withCause(message, ex);
                }
            }
        }
    }
}
