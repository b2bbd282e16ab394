package io.rdma4j.tools.perf;

import io.rdma4j.tools.common.HistogramLogFile;
import io.rdma4j.verbs.QpType;
import org.HdrHistogram.Histogram;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One {@code rdma4j perf} run on one side, in perftest's order: set up the device and the baseline
 * socket, meet the peer on the control connection, check both were given the same test, swap
 * endpoints, connect, then for each size measure rdma4j and at once the UDP baseline, in alternating blocks,
 * and print the result line on both sides.
 */
final class PerfRun
{
    /** Latencies are recorded in nanoseconds up to a minute, to three significant digits. */
    private static final long HIGHEST_NS = TimeUnit.SECONDS.toNanos(60);
    private static final int DIGITS = 3;
    /** The most blocks a test's timed exchanges or messages alternate in, between rdma4j and the baseline. */
    static final int BLOCKS = 10;
    /** The fewest exchanges or messages of a block: fewer make fewer blocks. */
    static final int BLOCK_MIN = 5000;
    /** READ's request datagram in the baseline: what an RDMA READ request carries (RETH). */
    private static final int READ_REQUEST_BYTES = 16;

    private final PerfConfig cfg;
    private final InetAddress bindAddress;
    private final PrintWriter out;
    private final String progress;
    private final String perftestCommand;

    /**
     * @param config          the run.
     * @param bindAddress     where the server listens (null: every address).
     * @param out             where the lines go.
     * @param progress        the soft device's progress mode, for the header.
     * @param perftestCommand the command line that runs this side with perftest's exchange, told to a user whose
     *                        peer is perftest.
     */
    PerfRun(final PerfConfig config, final InetAddress bindAddress, final PrintWriter out, final String progress,
        final String perftestCommand)
    {
        this.cfg = config;
        this.bindAddress = bindAddress;
        this.out = out;
        this.progress = progress;
        this.perftestCommand = perftestCommand;
    }

    /**
     * @return the settings both sides must share, as one string the server compares.
     */
    String signature()
    {
        return String.join(" ", cfg.test().label(), cfg.transport().name(), "sizes=" + cfg.sizes(),
            "n=" + cfg.iterations(), "warmup=" + cfg.warmup(), "q=" + cfg.numQp(), "rx=" + cfg.rxDepth(),
            "events=" + cfg.events(), "baseline-datagram=" + cfg.baselineDatagram());
    }

    /**
     * Run it.
     *
     * @throws PerfException        if the run fails.
     * @throws IOException          if the control connection or the baseline socket fails.
     * @throws InterruptedException if interrupted.
     */
    void run() throws PerfException, IOException, InterruptedException
    {
        try (RdmaPeer peer = new RdmaPeer(cfg);
             UdpBaseline udp = new UdpBaseline(peer.endpoint(0).gid().toInet(), cfg.maxSize(), cfg.events(),
                 cfg.baselineDatagram());
             ControlChannel control = open())
        {
            final PerfEndpoint remote = exchange(control, peer.endpoint(udp.port()));
            peer.connect(remote);
            udp.peer(remote.gid().toInet(), remote.udpPort());
            if (cfg.test().usesReceives())
            {
                for (int i = 0; i < peer.qpCount(); i++)
                {
                    peer.postRecvs(i, cfg.rxDepth(), cfg.maxSize());
                }
            }
            control.barrier(1);
            out.println(MachineLine.current().text());
            out.println(peer.deviceLine());
            out.println(header());
            out.flush();
            final RdmaLoops loops = new RdmaLoops(peer, cfg);
            try (HistogramLog log = cfg.isClient() && cfg.histogram() != null ? new HistogramLog(cfg) : null)
            {
                for (final int size : cfg.sizes())
                {
                    final String line = cfg.test().isLatency()
                        ? latency(loops, udp, control, size, log)
                        : bandwidth(loops, udp, control, size);
                    out.println(line);
                    out.flush();
                }
            }
            control.barrier(9);
        }
    }

    /**
     * Swap signatures and endpoints. The client writes first, as perftest's does; the server reads and checks what
     * the client sent before it sends anything of its own, so a client that is no perf tool (or another test)
     * learns neither this side's QPs nor its rkey and buffer address. A peer that is perftest, known by the
     * version it writes first, is told nothing either, and the user is told what to type instead.
     */
    private PerfEndpoint exchange(final ControlChannel control, final PerfEndpoint mine)
        throws PerfException, IOException
    {
        if (cfg.isClient())
        {
            control.out().writeUTF(signature());
            mine.write(control.out());
            control.flush();
            final ControlChannel.FirstMessage first = control.readFirst(signature(), true);
            refusePerftest(first);
            if (first.signature() == null)
            {
                throw new PerfException("the server's first message is no signature: not rdma4j perf");
            }
            checkSignature(first.signature());
            return PerfEndpoint.read(control.in());
        }
        final ControlChannel.FirstMessage first = control.readFirst(signature(), false);
        final String theirs = first.signature();
        if (theirs == null || !theirs.equals(signature()))
        {
            // the client is told which test this side runs, and nothing more
            control.out().writeUTF(signature());
            control.flush();
            refusePerftest(first);
            if (theirs == null)
            {
                throw new PerfException("the client's first message is not this test's signature ('" + signature() +
                    "'): not rdma4j perf with the same test and flags; nothing of this side's QPs was sent");
            }
            checkSignature(theirs);
        }
        final PerfEndpoint remote = PerfEndpoint.read(control.in());
        control.out().writeUTF(signature());
        mine.write(control.out());
        return remote;
    }

    /** A perftest peer speaks only perftest's exchange: say, in one line, what runs this side with it. */
    private void refusePerftest(final ControlChannel.FirstMessage first) throws PerfException
    {
        if (first.perftestVersion() != null)
        {
            throw new PerfException("the peer is perftest " + first.perftestVersion() + ", which speaks only " +
                "perftest's exchange: type " + perftestCommand);
        }
    }

    private void checkSignature(final String theirs) throws PerfException
    {
        if (!theirs.equals(signature()))
        {
            throw new PerfException("the peer runs '" + theirs + "' and this side '" + signature() +
                "': give both the same test and flags");
        }
    }

    private ControlChannel open() throws IOException, InterruptedException
    {
        if (cfg.isClient())
        {
            return ControlChannel.connect(cfg.serverName(), cfg.tcpPort());
        }
        try (ServerSocket listener = ControlChannel.listen(bindAddress, cfg.tcpPort()))
        {
            out.printf(Locale.ROOT, "# %s server: waiting for a client on TCP port %d%n", cfg.test().label(),
                listener.getLocalPort());
            out.flush();
            return ControlChannel.accept(listener);
        }
    }

    private String header()
    {
        final String mode = cfg.events() ? "completion events, baseline UDP blocking"
            : "busy polling, baseline UDP non-blocking busy polling";
        final String blocks = String.format(Locale.ROOT, ", rdma4j and baseline alternating in %d block(s)",
            blocks(cfg.iterations()));
        return String.format(Locale.ROOT, "# rdma4j perf %s: %s, %d QP(s), %d iterations after %d warm-up, -t %d, " +
            "-r %d, inline %d, %s, baseline datagrams up to %d B, soft device progress %s%s", cfg.test().label(),
            cfg.transport(), cfg.numQp(), cfg.iterations(), cfg.warmup(), cfg.txDepth(), cfg.rxDepth(), cfg.inline(),
            mode, cfg.baselineDatagram(), progress, blocks);
    }

    private String latency(final RdmaLoops loops, final UdpBaseline udp, final ControlChannel control,
        final int size, final HistogramLog log) throws PerfException, IOException, InterruptedException
    {
        final PerfTest test = cfg.test();
        final Histogram ours = new Histogram(HIGHEST_NS, DIGITS);
        final Histogram baseline = new Histogram(HIGHEST_NS, DIGITS);
        final int request = switch (test)
        {
            case READ_LAT -> READ_REQUEST_BYTES;
            default -> size;
        };
        ours.setStartTimeStamp(System.currentTimeMillis());
        baseline.setStartTimeStamp(System.currentTimeMillis());
        // the warm-ups, unrecorded, then the timed exchanges in blocks that alternate between rdma4j and the
        // baseline, so that a machine whose speed changes during the run (a VM whose host moves it) slows
        // both figures alike and their ratio holds
        latencyBlock(loops, udp, control, size, request, 0, cfg.warmup(), ours, baseline, false);
        final int blocks = blocks(cfg.iterations());
        int done = cfg.warmup();
        for (int b = 0; b < blocks; b++)
        {
            final int count = blockSize(cfg.iterations(), blocks, b);
            latencyBlock(loops, udp, control, size, request, done, count, ours, baseline, true);
            done += count;
        }
        ours.setEndTimeStamp(System.currentTimeMillis());
        baseline.setEndTimeStamp(System.currentTimeMillis());
        return result(control, () ->
        {
            if (log != null)
            {
                log.write(size, ours, baseline);
            }
            return ResultLine.latency(test, cfg.transport(), size, ours, baseline);
        });
    }

    /**
     * @return how many alternating blocks the timed exchanges (or messages) of a test run in: one per
     *     {@value #BLOCK_MIN}, at most {@value #BLOCKS}, at least one.
     */
    static int blocks(final int iterations)
    {
        return Math.max(1, Math.min(BLOCKS, iterations / BLOCK_MIN));
    }

    /** @return the exchanges or messages of block {@code b} of {@code blocks}: the first ones take the remainder. */
    static int blockSize(final int iterations, final int blocks, final int b)
    {
        return iterations / blocks + (b < iterations % blocks ? 1 : 0);
    }

    /**
     * {@code count} rdma4j exchanges, then as many over the UDP baseline, numbered from {@code first}; recorded
     * when {@code record}, else warm-up. Both sides run the same blocks, with a barrier after each half.
     */
    private void latencyBlock(final RdmaLoops loops, final UdpBaseline udp, final ControlChannel control,
        final int size, final int request, final int first, final int count, final Histogram ours,
        final Histogram baseline, final boolean record) throws PerfException, IOException, InterruptedException
    {
        if (count == 0)
        {
            return;
        }
        final int warmup = record ? 0 : count;
        if (cfg.isClient())
        {
            loops.latencyClient(size, first, count, warmup, ours);
        }
        else
        {
            loops.latencyServer(size, first, count);
        }
        control.barrier(2);
        if (cfg.isClient())
        {
            udp.pingClient(request, size, count, warmup, !cfg.test().halvesRoundTrip(), baseline);
        }
        else
        {
            udp.pingServer(request, size, count);
        }
        control.barrier(3);
    }

    private String bandwidth(final RdmaLoops loops, final UdpBaseline udp, final ControlChannel control,
        final int size) throws PerfException, IOException, InterruptedException
    {
        // The receiving side's socket buffer sets the baseline's window.
        final boolean clientReceives = cfg.test() == PerfTest.READ_BW;
        final int window;
        if (cfg.isClient() == clientReceives)
        {
            window = udp.streamWindow(size, cfg.rxDepth());
            control.out().writeInt(window);
            control.flush();
        }
        else
        {
            window = control.in().readInt();
        }
        // the warm-ups, untimed, then the timed messages in blocks that alternate between rdma4j and the baseline,
        // as a latency test's do, each figure the sum of its blocks' times
        bandwidthBlock(loops, udp, control, size, cfg.warmup(), window, clientReceives);
        final int blocks = blocks(cfg.iterations());
        long ours = 0;
        long baseline = 0;
        for (int b = 0; b < blocks; b++)
        {
            final long[] times = bandwidthBlock(loops, udp, control, size, blockSize(cfg.iterations(), blocks, b),
                window, clientReceives);
            ours += times[0];
            baseline += times[1];
        }
        control.barrier(6);
        final long oursNs = ours;
        final long baselineNs = baseline;
        return result(control, () -> ResultLine.bandwidth(cfg.test(), cfg.transport(), size, cfg.iterations(),
            oursNs, baselineNs));
    }

    /**
     * {@code count} rdma4j messages, then as many over the UDP baseline; both sides run the same blocks.
     *
     * @return the nanoseconds each took, as this side measures them (rdma4j's on the client only).
     */
    private long[] bandwidthBlock(final RdmaLoops loops, final UdpBaseline udp, final ControlChannel control,
        final int size, final int count, final int window, final boolean clientReceives)
        throws PerfException, IOException, InterruptedException
    {
        final long[] times = new long[2];
        if (count == 0)
        {
            return times;
        }
        if (cfg.isClient())
        {
            times[0] = loops.bandwidthClient(size, count);
        }
        else
        {
            loops.bandwidthServer(size, count);
        }
        control.barrier(4);
        if (cfg.isClient() != clientReceives)
        {
            times[1] = udp.streamSend(size, count, window);
        }
        else
        {
            final long start = System.nanoTime();
            udp.streamReceive(size, count, window);
            times[1] = System.nanoTime() - start;
        }
        control.barrier(5);
        return times;
    }

    /**
     * The client makes the line and hands it over; the server prints what it is given.
     */
    private String result(final ControlChannel control, final LineMaker maker) throws IOException
    {
        if (cfg.isClient())
        {
            final String line = maker.make();
            control.out().writeUTF(line);
            control.flush();
            return line;
        }
        return control.in().readUTF();
    }

    /**
     * Makes the result line on the client.
     */
    @FunctionalInterface
    private interface LineMaker
    {
        String make() throws IOException;
    }

    /**
     * The --histogram file: one rdma4j histogram and one baseline histogram per size, tagged
     * {@code rdma4j.<test>.<transport>.<size>} and {@code udp.<...>}.
     */
    private static final class HistogramLog implements AutoCloseable
    {
        private final PerfConfig cfg;
        private final HistogramLogFile file;

        HistogramLog(final PerfConfig cfg) throws IOException
        {
            this.cfg = cfg;
            file = new HistogramLogFile(cfg.histogram(), "rdma4j perf " + cfg.test().label() + " " + cfg.transport() +
                ", values in ns");
        }

        void write(final int size, final Histogram ours, final Histogram baseline)
        {
            final String suffix = "." + cfg.test().label() + "." + cfg.transport() + "." + size;
            file.write("rdma4j" + suffix, ours);
            file.write("udp" + suffix, baseline);
        }

        @Override
        public void close()
        {
            file.close();
        }
    }

    /**
     * @param type a transport.
     * @return the largest message it carries on the soft device over loopback (UD: one packet).
     */
    static int largestSize(final QpType type)
    {
        return type == QpType.UD ? 4096 : 1 << 23;
    }
}
