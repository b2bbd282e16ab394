package io.rdma4j.bench.compare;

import io.rdma4j.bench.compare.mcast.McastPlan;
import io.rdma4j.tools.perf.MachineLine;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The comparison harness: the same ping-pong (RC, and UD as {@code bin/perf-targets}' rtt-UD-udp), stream,
 * 64 B message rate ({@code -l 32}, as rate-UD-udp-l32) and 1 → N multicast fan-out on rdma4j (soft
 * device, progress thread and polling mode, busy polling and completion events), on a raw
 * {@code DatagramChannel}, and on Aeron with an embedded media driver (its own thread, or invoked from the
 * application's thread as rdma4j's polling mode is), each side a process of its own, printed as one table
 * with every figure over the raw UDP figure of the same workload and idle mode. rdma4j runs over UDP (its
 * same-host inbox off), as Aeron's channels here do. The defaults warm up as
 * {@code bin/perf-targets} does: the JIT-compiled loops are compared, not the interpreter.
 * <p>
 * rdma4j's rows come from {@code rdma4j perf} (send_lat, send_bw, send_lat -M), which measures its
 * UDP baseline in the same processes and the same run, so rdma4j's ratios are against the UDP figure
 * taken minutes, not hours, apart on the same loaded machine; the raw UDP rows are those baselines,
 * and Aeron's ratios use them too.
 */
@Command(name = "bench-compare", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"rdma4j (soft device) vs raw DatagramChannel vs Aeron: ping-pong, stream, multicast fan-out.",
        "Ratio = figure / raw UDP figure of the same workload and idle mode: above 1 is slower for latency,",
        "below 1 is slower for bandwidth."})
public final class Compare implements Callable<Integer>
{
    private static final Pattern PERF_LATENCY = Pattern.compile(
        "\\w+ \\w+ \\d+B(?: mcast x\\d+)?: p50 ([\\d.]+) us p99 ([\\d.]+) us .*baseline udp p50 ([\\d.]+) us p99 " +
        "([\\d.]+) us .*");
    private static final Pattern PERF_BANDWIDTH = Pattern.compile(
        "\\w+ \\w+ \\d+B(?: mcast x\\d+)?: ([\\d.]+) MB/s (\\d+) msgs/s  baseline udp ([\\d.]+) MB/s (\\d+) msgs/s.*");
    private static final Pattern AERON_LATENCY = Pattern.compile("aeron \\w+ \\d+B(?: x\\d+)?: p50 ([\\d.]+) us p99 " +
        "([\\d.]+) us .*");
    private static final Pattern AERON_BANDWIDTH = Pattern.compile("aeron stream \\d+B: ([\\d.]+) MB/s (\\d+) msgs/s");
    /**
     * rdma4j over UDP, as Aeron's {@code aeron:udp} channels: the same-host inbox, which would carry every
     * packet here since both ends share the host, is off (it is compared with UDP nowhere in this table).
     */
    private static final List<String> PERF_JVM = List.of("--enable-native-access=ALL-UNNAMED",
        "-Drdma4j.soft.shm=off");
    /** Agrona reaches into the JDK for its buffers and Unsafe. */
    static final List<String> AERON_JVM = List.of("--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED");

    @Option(names = {"-n", "--iterations"}, defaultValue = "100000",
        description = "ping-pong exchanges measured (default 100000, as bin/perf-targets)")
    private int iterations;

    @Option(names = "--warmup", defaultValue = "100000", description = "ping-pong exchanges before measuring "
        + "(default 100000: the JIT-compiled loop is what is compared)")
    private int warmup;

    @Option(names = "--stream-messages", defaultValue = "60000", description = "messages streamed (default 60000)")
    private int streamMessages;

    @Option(names = "--stream-warmup", defaultValue = "30000", description = "messages streamed before measuring "
        + "(default 30000: after 5000 the JIT was still compiling the receive path on 2 cores)")
    private int streamWarmup;

    @Option(names = "--fanout-iterations", defaultValue = "20000", description = "fan-out exchanges measured "
        + "(default 20000: with a progress thread each of three processes spins two threads on the cores)")
    private int fanoutIterations;

    @Option(names = "--fanout-warmup", defaultValue = "20000", description = "fan-out exchanges before measuring "
        + "(default 20000)")
    private int fanoutWarmup;

    @Option(names = "--rate-messages", defaultValue = "500000", description = "64 B messages of the rate "
        + "workload (default 500000)")
    private int rateMessages;

    @Option(names = "--rate-warmup", defaultValue = "300000", description = "messages of the rate workload "
        + "before measuring (default 300000)")
    private int rateWarmup;

    @Option(names = "--stream-size", defaultValue = "65536", description = "stream message size (default 65536)")
    private int streamSize;

    @Option(names = "--ping-size", defaultValue = "64", description = "ping-pong message size (default 64)")
    private int pingSize;

    @Option(names = "--fanout-size", defaultValue = "64", description = "fan-out message size (default 64)")
    private int fanoutSize;

    @Option(names = "--receivers", defaultValue = "2", description = "fan-out receivers, one process each "
        + "(default 2)")
    private int receivers;

    @Option(names = "--first-host", defaultValue = "120", description = "first 127.0.0.x this harness uses; "
        + "it takes 2 x receivers + 2 from there (default 120)")
    private int firstHost;

    @Option(names = "--first-port", defaultValue = "19100", description = "first TCP/UDP port; it uses 23 "
        + "from there, and the multicast rows 30 + 12 a size beyond it (default 19100)")
    private int firstPort;

    @Option(names = "--timeout", defaultValue = "180", description = "seconds one workload may take (default 180)")
    private int timeoutSeconds;

    @Option(names = "--only", split = ",", description = "workloads to run: pingpong, ud-pingpong, stream, rate, "
        + "fanout, rmcast (the multicast comparison alone: --only rmcast; default all)")
    private List<String> only;

    @Option(names = "--mcast-net", defaultValue = "0.0", description = "rmcast rows: the middle octets A.B of "
        + "their hosts 127.A.B.x (from --first-host) and groups 239.A.B.129, 131, ... (default 0.0)")
    private String mcastNet;

    @Option(names = "--mcast-subscribers", defaultValue = "4", description = "rmcast rows: subscriber processes "
        + "(default 4)")
    private int mcastSubscribers;

    @Option(names = "--mcast-sizes", split = ",", defaultValue = "64,65536", description = "rmcast rows: message "
        + "sizes, 24 B or more (default 64,65536)")
    private List<Integer> mcastSizes;

    @Option(names = "--mcast-loss", defaultValue = "0.01", description = "rmcast rows: the lossy rows' injected "
        + "loss, a fraction (default 0.01)")
    private double mcastLoss;

    @Option(names = "--mcast-messages", defaultValue = "200000", description = "rmcast rows: messages of up to "
        + "4 KiB measured (default 200000)")
    private int mcastMessages;

    @Option(names = "--mcast-warmup", defaultValue = "100000", description = "rmcast rows: messages of up to 4 KiB "
        + "before (default 100000)")
    private int mcastWarmup;

    @Option(names = "--mcast-large-messages", defaultValue = "4000", description = "rmcast rows: larger messages "
        + "measured (default 4000)")
    private int mcastLargeMessages;

    @Option(names = "--mcast-large-warmup", defaultValue = "2000", description = "rmcast rows: larger messages "
        + "before (default 2000)")
    private int mcastLargeWarmup;

    @Option(names = "--mcast-latency", defaultValue = "2000", description = "rmcast rows: paced messages for the "
        + "latency, after the rate's (default 2000; the first tenth not recorded)")
    private int mcastLatency;

    @Option(names = "--mcast-interval-us", defaultValue = "500", description = "rmcast rows: the paced messages' "
        + "interval up to 4 KiB (default 500)")
    private int mcastIntervalUs;

    @Option(names = "--mcast-large-interval-us", defaultValue = "2000", description = "rmcast rows: the paced "
        + "messages' interval above 4 KiB (default 2000: 64 KiB every 500 us is 128 MB/s to each subscriber, near "
        + "what two loaded cores carry, and the latency would be its queue)")
    private int mcastLargeIntervalUs;

    @Option(names = "--mcast-offers-per-flush", defaultValue = "64", description = "rmcast rows: rdma4j rmcast's "
        + "offers packed into one datagram, up to the MTU (MulticastConfig.offersPerFlush; default 64: as full as "
        + "Aeron packs its datagrams)")
    private int mcastOffersPerFlush;

    private final PrintStream out;

    /**
     * @param out where the progress and the table go.
     */
    public Compare(final PrintStream out)
    {
        this.out = out;
    }

    /**
     * @param args the command line.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new Compare(System.out)).execute(args));
    }

    private String host(final int offset)
    {
        return "127.0.0." + (firstHost + offset);
    }

    /**
     * @return rdma4j's fan-out group, apart from other harness runs that start elsewhere.
     */
    private String group()
    {
        return "239.18.53." + firstHost;
    }

    private boolean wanted(final String workload)
    {
        return only == null || only.contains(workload);
    }

    /**
     * @return 0 if every row has a figure, 1 otherwise.
     */
    @Override
    public Integer call() throws InterruptedException
    {
        final List<Row> rows = new ArrayList<>();
        final List<McastRow> mcastRows = new ArrayList<>();
        if (only == null || !List.of("rmcast").containsAll(only))
        {
            out.printf(Locale.ROOT, "# comparison harness: %d exchanges (+%d warm-up), stream %d x %d B (+%d), " +
                "rate %d x 64 B (+%d), fan-out 1 -> %d %d exchanges (+%d), %d cores%n", iterations, warmup,
                streamMessages, streamSize, streamWarmup, rateMessages, rateWarmup, receivers, fanoutIterations,
                fanoutWarmup, Runtime.getRuntime().availableProcessors());
        }
        out.println(MachineLine.current().text());
        if (wanted("pingpong"))
        {
            final String workload = "pingpong " + pingSize + "B p50";
            final List<String> args = List.of("send_lat", "-c", "RC", "-s", String.valueOf(pingSize));
            workload(rows, new Workload(workload, args, Kind.LATENCY, "ping", "pong", pingSize, iterations, warmup,
                ALL_MODES, BUSY_AND_BLOCKING));
        }
        if (wanted("ud-pingpong"))
        {
            // the issue's comparison: bin/perf-targets' rtt-UD-udp against Aeron's best on the same cores
            final String workload = "ud-pingpong 64B p50";
            final List<String> args = List.of("send_lat", "-c", "UD", "-s", "64");
            workload(rows, new Workload(workload, args, Kind.LATENCY, "ping", "pong", 64, iterations, warmup,
                POLLING_AND_THREAD, INVOKER_AND_BUSY));
        }
        if (wanted("stream"))
        {
            final String workload = "stream " + streamSize + "B";
            final List<String> args = List.of("send_bw", "-c", "RC", "-s", String.valueOf(streamSize));
            workload(rows, new Workload(workload, args, Kind.BANDWIDTH, "stream-send", "stream-receive", streamSize,
                streamMessages, streamWarmup, ALL_MODES, BUSY_AND_BLOCKING));
        }
        if (wanted("rate"))
        {
            // bin/perf-targets' rate-UD-udp-l32: Aeron packs messages into datagrams, -l 32 is rdma4j's way there
            final String workload = "rate 64B";
            final List<String> args = List.of("send_bw", "-c", "UD", "-s", "64", "-l", "32");
            workload(rows, new Workload(workload, args, Kind.RATE, "stream-send", "stream-receive", 64,
                rateMessages, rateWarmup, POLLING_AND_THREAD, INVOKER_AND_BUSY));
        }
        if (wanted("fanout"))
        {
            final String workload = "fanout 1->" + receivers + " " + fanoutSize + "B p50";
            final List<String> args = List.of("send_lat", "-c", "UD", "-s", String.valueOf(fanoutSize), "-M",
                String.valueOf(receivers));
            workload(rows, new Workload(workload, args, Kind.LATENCY, "fanout-send", "fanout-receive", fanoutSize,
                fanoutIterations, fanoutWarmup, ALL_MODES, BUSY_AND_BLOCKING));
        }
        if (wanted("rmcast"))
        {
            if (mcastSizes.size() > 10)
            {
                throw new CommandLine.ParameterException(new CommandLine(this), "--mcast-sizes: at most 10 sizes " +
                    "(each takes 12 group addresses of 239.A.B.129-254), not " + mcastSizes.size());
            }
            final long interval = TimeUnit.MICROSECONDS.toNanos(mcastIntervalUs);
            final McastComparison mcast = new McastComparison(out, new McastComparison.Settings(mcastSubscribers,
                mcastSizes, mcastLoss, new McastPlan(64, mcastWarmup, mcastMessages, mcastLatency, interval),
                new McastPlan(64, mcastLargeWarmup, mcastLargeMessages, mcastLatency,
                    TimeUnit.MICROSECONDS.toNanos(mcastLargeIntervalUs)), mcastOffersPerFlush,
                mcastNet, firstHost, firstPort + 30, timeoutSeconds));
            mcastRows.addAll(mcast.run());
            mcast.print(mcastRows);
        }
        if (rows.isEmpty())
        {
            return mcastRows.stream().allMatch(McastRow::ok) ? 0 : 1;
        }
        out.println();
        out.println("# ratio = figure / raw UDP figure of the same workload and idle mode (latency: > 1 is slower; " +
            "MB/s: < 1 is slower)");
        out.printf(Locale.ROOT, "%-28s %-44s %14s %8s  %s%n", "workload", "system", "figure", "ratio", "");
        for (final Row row : rows)
        {
            out.println(row.format());
        }
        out.flush();
        return rows.stream().allMatch(Row::ok) && mcastRows.stream().allMatch(McastRow::ok) ? 0 : 1;
    }

    /** What a workload's figure is. */
    private enum Kind
    {
        LATENCY("us"), BANDWIDTH("MB/s"), RATE("msgs/s");

        private final String unit;

        Kind(final String unit)
        {
            this.unit = unit;
        }
    }

    /** rdma4j's modes: the row's words, {@code --progress}, and an extra flag or "". */
    private static final String[][] ALL_MODES = {
        {"progress thread, busy poll", "thread", ""},
        {"polling mode, busy poll", "polling", ""},
        {"progress thread, CQ events", "thread", "-e"}};
    private static final String[][] POLLING_AND_THREAD = {
        {"polling mode, busy poll", "polling", ""},
        {"progress thread, busy poll", "thread", ""}};
    private static final String[] BUSY_AND_BLOCKING = {"busy", "blocking"};
    private static final String[] INVOKER_AND_BUSY = {"invoker", "busy"};

    /**
     * One workload: rdma4j perf's arguments and Aeron's roles for it, its counts, and the modes it runs in.
     */
    private record Workload(String name, List<String> perfArgs, Kind kind, String aeronInitiator,
        String aeronResponder, int size, int count, int warmup, String[][] modes, String[] aeronModes)
    {
        String transport()
        {
            return perfArgs.get(perfArgs.indexOf("-c") + 1);
        }
    }

    private static String aeronSystem(final String mode)
    {
        return switch (mode)
        {
            case "busy" -> "Aeron yielding driver, busy poll";
            case "invoker" -> "Aeron driver on the app thread, busy poll";
            default -> "Aeron back-off driver, back-off poll";
        };
    }

    /**
     * The rows of one workload: rdma4j in its modes (each run with its UDP baseline), raw UDP, Aeron in its modes.
     */
    private void workload(final List<Row> rows, final Workload w) throws InterruptedException
    {
        final String unit = w.kind().unit;
        final boolean latency = w.kind() == Kind.LATENCY;
        final int figure = w.kind() == Kind.RATE ? 2 : 1;
        final double[] udpBusy = {Double.NaN};
        final double[] udpBlocking = {Double.NaN};
        final List<Row> rdma = new ArrayList<>();
        for (final String[] mode : w.modes())
        {
            final List<String> args = new ArrayList<>(w.perfArgs());
            args.addAll(List.of("--progress", mode[1], "-n", String.valueOf(w.count()), "--warmup",
                String.valueOf(w.warmup())));
            if (!mode[2].isEmpty())
            {
                args.add(mode[2]);
            }
            final String system = "rdma4j " + w.transport() + " " + mode[0];
            out.printf(Locale.ROOT, "# %s: %s ...%n", w.name(), system);
            out.flush();
            final String[] result = perf(args);
            if (result[0] == null)
            {
                rdma.add(new Row(w.name(), system, Double.NaN, unit, Double.NaN, result[1]));
                continue;
            }
            final Matcher m = (latency ? PERF_LATENCY : PERF_BANDWIDTH).matcher(result[0]);
            if (!m.matches())
            {
                rdma.add(new Row(w.name(), system, Double.NaN, unit, Double.NaN, "unparsed: " + result[0]));
                continue;
            }
            final double ours = Double.parseDouble(m.group(figure));
            final double udp = Double.parseDouble(m.group(figure + 2));
            final String note = "vs udp " + m.group(figure + 2) + "; " + (latency
                ? "p99 " + m.group(2) + " us (udp p99 " + m.group(4) + " us)"
                : figure == 1 ? m.group(2) + " msgs/s (udp " + m.group(4) + " msgs/s)"
                : m.group(1) + " MB/s (udp " + m.group(3) + " MB/s)");
            rdma.add(new Row(w.name(), system, ours, unit, udp, note));
            final double[] baseline = mode[2].isEmpty() ? udpBusy : udpBlocking;
            if (Double.isNaN(baseline[0]))
            {
                baseline[0] = udp;
            }
        }
        rows.add(new Row(w.name(), "raw UDP DatagramChannel, busy poll", udpBusy[0], unit, udpBusy[0],
            "the baseline of the first busy-polling rdma4j row's run"));
        if (Arrays.stream(w.modes()).anyMatch(mode -> !mode[2].isEmpty()))
        {
            rows.add(new Row(w.name(), "raw UDP DatagramChannel, blocking", udpBlocking[0], unit, udpBlocking[0],
                "the baseline of the CQ-events run"));
        }
        rows.addAll(rdma);
        for (final String mode : w.aeronModes())
        {
            final String system = aeronSystem(mode);
            out.printf(Locale.ROOT, "# %s: %s ...%n", w.name(), system);
            out.flush();
            final double udp = mode.equals("blocking") ? udpBlocking[0] : udpBusy[0];
            final String[] result = aeron(w, mode);
            if (result[0] == null)
            {
                rows.add(new Row(w.name(), system, Double.NaN, unit, udp, result[1]));
                continue;
            }
            final Matcher m = (latency ? AERON_LATENCY : AERON_BANDWIDTH).matcher(result[0]);
            if (!m.matches())
            {
                rows.add(new Row(w.name(), system, Double.NaN, unit, udp, "unparsed: " + result[0]));
                continue;
            }
            rows.add(new Row(w.name(), system, Double.parseDouble(m.group(figure)), unit, udp,
                latency ? "p99 " + m.group(2) + " us" : figure == 1 ? m.group(2) + " msgs/s" : m.group(1) + " MB/s"));
        }
    }

    /**
     * Run {@code rdma4j perf}: the server, then once it listens the client (or the -M receivers).
     *
     * @return {the result line, null} or {null, why not}.
     */
    private String[] perf(final List<String> args) throws InterruptedException
    {
        final boolean fanOut = args.contains("-M");
        final String port = String.valueOf(firstPort);
        final List<Child> children = new ArrayList<>();
        try
        {
            final List<String> server = new ArrayList<>(List.of("perf"));
            server.addAll(args);
            server.addAll(List.of("--address", host(0), "-p", port, "--group", group()));
            final Child s = Child.start(PERF_JVM, "io.rdma4j.tools.Main", server);
            children.add(s);
            if (!s.awaitLine(l -> l.contains("waiting for a client"), timeoutSeconds, TimeUnit.SECONDS))
            {
                return new String[] {null, "server: " + s.lastLine()};
            }
            final int clients = fanOut ? receivers : 1;
            for (int i = 1; i <= clients; i++)
            {
                final List<String> client = new ArrayList<>(List.of("perf"));
                client.addAll(args);
                client.addAll(List.of("--address", host(i), "-p", port, "--group", group(), host(0)));
                children.add(Child.start(PERF_JVM, "io.rdma4j.tools.Main", client));
            }
            for (final Child child : children)
            {
                if (child.await(timeoutSeconds, TimeUnit.SECONDS) != 0)
                {
                    return new String[] {null, child.lastLine()};
                }
            }
            for (final String line : s.lines())
            {
                if (!line.startsWith("#"))
                {
                    return new String[] {line, null};
                }
            }
            return new String[] {null, "no result line: " + s.lastLine()};
        }
        catch (final IOException ex)
        {
            return new String[] {null, ex.getMessage()};
        }
        finally
        {
            children.forEach(Child::close);
        }
    }

    /**
     * Run an Aeron workload: the responders, then the initiator, which prints the figure.
     *
     * @return {the result line, null} or {null, why not}.
     */
    private String[] aeron(final Workload w, final String mode) throws InterruptedException
    {
        final String initiator = w.aeronInitiator();
        final String responder = w.aeronResponder();
        final boolean fanOut = initiator.startsWith("fanout");
        // After rdma4j's sender and receivers.
        final int aeronHost = receivers + 1;
        final String port = String.valueOf(firstPort + 20);
        final List<String> common = List.of("mode=" + mode, "port=" + port, "size=" + w.size(), "n=" + w.count(),
            "warmup=" + w.warmup(), "group=239.18.54." + (firstHost | 1), "receivers=" + receivers);
        final List<Child> children = new ArrayList<>();
        try
        {
            final int responders = fanOut ? receivers : 1;
            for (int i = 1; i <= responders; i++)
            {
                final List<String> args = new ArrayList<>(common);
                args.addAll(List.of("role=" + responder, "local=" + host(aeronHost + i), "remote=" + host(aeronHost)));
                children.add(Child.start(AERON_JVM, AeronPeer.class.getName(), args));
            }
            final List<String> args = new ArrayList<>(common);
            args.addAll(List.of("role=" + initiator, "local=" + host(aeronHost), "remote=" + host(aeronHost + 1)));
            final Child first = Child.start(AERON_JVM, AeronPeer.class.getName(), args);
            children.addFirst(first);
            for (final Child child : children)
            {
                if (child.await(timeoutSeconds, TimeUnit.SECONDS) != 0)
                {
                    return new String[] {null, child.lastLine()};
                }
            }
            for (final String line : first.lines())
            {
                if (line.startsWith("aeron "))
                {
                    return new String[] {line, null};
                }
            }
            return new String[] {null, "no result line: " + first.lastLine()};
        }
        catch (final IOException ex)
        {
            return new String[] {null, ex.getMessage()};
        }
        finally
        {
            children.forEach(Child::close);
        }
    }
}
