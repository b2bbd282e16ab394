package io.rdma4j.bench.compare;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The comparison harness: the same ping-pong, stream and 1 → N multicast fan-out on rdma4j (soft
 * device, progress thread and polling mode, busy polling and completion events), on a raw
 * {@code DatagramChannel}, and on Aeron with an embedded media driver, each side a process of its
 * own, printed as one table with every figure over the raw UDP figure of the same workload and
 * idle mode.
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
    private static final List<String> PERF_JVM = List.of("--enable-native-access=ALL-UNNAMED");
    /** Agrona reaches into the JDK for its buffers and Unsafe. */
    private static final List<String> AERON_JVM = List.of("--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED");

    @Option(names = {"-n", "--iterations"}, defaultValue = "2000",
        description = "ping-pong and fan-out exchanges measured (default 2000)")
    private int iterations;

    @Option(names = "--warmup", defaultValue = "500", description = "exchanges or messages before measuring "
        + "(default 500)")
    private int warmup;

    @Option(names = "--stream-messages", defaultValue = "2000", description = "messages streamed (default 2000)")
    private int streamMessages;

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
        + "from there (default 19100)")
    private int firstPort;

    @Option(names = "--timeout", defaultValue = "180", description = "seconds one workload may take (default 180)")
    private int timeoutSeconds;

    @Option(names = "--only", split = ",", description = "workloads to run: pingpong, stream, fanout (default all)")
    private List<String> only;

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
        out.printf(Locale.ROOT, "# comparison harness: %d exchanges (+%d warm-up), stream %d x %d B, " +
            "fan-out 1 -> %d, " +
            "%d cores%n", iterations, warmup, streamMessages, streamSize, receivers,
            Runtime.getRuntime().availableProcessors());
        if (wanted("pingpong"))
        {
            final String workload = "pingpong " + pingSize + "B p50";
            final List<String> args = List.of("send_lat", "-c", "RC", "-s", String.valueOf(pingSize));
            workload(rows, workload, args, true, "ping", "pong", pingSize, iterations);
        }
        if (wanted("stream"))
        {
            final String workload = "stream " + streamSize + "B";
            final List<String> args = List.of("send_bw", "-c", "RC", "-s", String.valueOf(streamSize));
            workload(rows, workload, args, false, "stream-send", "stream-receive", streamSize, streamMessages);
        }
        if (wanted("fanout"))
        {
            final String workload = "fanout 1->" + receivers + " " + fanoutSize + "B p50";
            final List<String> args = List.of("send_lat", "-c", "UD", "-s", String.valueOf(fanoutSize), "-M",
                String.valueOf(receivers));
            workload(rows, workload, args, true, "fanout-send", "fanout-receive", fanoutSize, iterations);
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
        return rows.stream().allMatch(Row::ok) ? 0 : 1;
    }

    /**
     * The rows of one workload: rdma4j in three modes (each with its UDP baseline), raw UDP in two, Aeron in two.
     */
    private void workload(final List<Row> rows, final String workload, final List<String> perfArgs,
        final boolean isLatency, final String aeronInitiator, final String aeronResponder, final int size,
        final int count) throws InterruptedException
    {
        final String unit = isLatency ? "us" : "MB/s";
        final double[] udpBusy = {Double.NaN};
        final double[] udpBlocking = {Double.NaN};
        final String[][] modes = {
            {"rdma4j RC progress thread, busy poll", "thread", ""},
            {"rdma4j RC polling mode, busy poll", "polling", ""},
            {"rdma4j RC progress thread, CQ events", "thread", "-e"}};
        final List<Row> rdma = new ArrayList<>();
        for (final String[] mode : modes)
        {
            final List<String> args = new ArrayList<>(perfArgs);
            args.addAll(List.of("--progress", mode[1], "-n", String.valueOf(count), "--warmup",
                String.valueOf(warmup)));
            if (!mode[2].isEmpty())
            {
                args.add(mode[2]);
            }
            final String system = workload.startsWith("fanout") ? mode[0].replace("RC", "UD") : mode[0];
            out.printf(Locale.ROOT, "# %s: %s ...%n", workload, system);
            out.flush();
            final String[] result = perf(args);
            if (result[0] == null)
            {
                rdma.add(new Row(workload, system, Double.NaN, unit, Double.NaN, result[1]));
                continue;
            }
            final Matcher m = (isLatency ? PERF_LATENCY : PERF_BANDWIDTH).matcher(result[0]);
            if (!m.matches())
            {
                rdma.add(new Row(workload, system, Double.NaN, unit, Double.NaN, "unparsed: " + result[0]));
                continue;
            }
            final double ours = Double.parseDouble(m.group(1));
            final double udp = Double.parseDouble(m.group(3));
            final String note = "vs udp " + m.group(3) + "; " + (isLatency
                ? "p99 " + m.group(2) + " us (udp p99 " + m.group(4) + " us)"
                : m.group(2) + " msgs/s (udp " + m.group(4) + " msgs/s)");
            rdma.add(new Row(workload, system, ours, unit, udp, note));
            if (mode[1].equals("thread"))
            {
                (mode[2].isEmpty() ? udpBusy : udpBlocking)[0] = udp;
            }
        }
        rows.add(new Row(workload, "raw UDP DatagramChannel, busy poll", udpBusy[0], unit, udpBusy[0],
            "the baseline of the first rdma4j row's run"));
        rows.add(new Row(workload, "raw UDP DatagramChannel, blocking", udpBlocking[0], unit, udpBlocking[0],
            "the baseline of the CQ-events run"));
        rows.addAll(rdma);
        for (final String mode : new String[] {"busy", "blocking"})
        {
            final String system = "Aeron " + (mode.equals("busy") ? "yielding driver, busy poll"
                : "back-off driver, back-off poll");
            out.printf(Locale.ROOT, "# %s: %s ...%n", workload, system);
            out.flush();
            final double udp = mode.equals("busy") ? udpBusy[0] : udpBlocking[0];
            final String[] result = aeron(aeronInitiator, aeronResponder, mode, size, count);
            if (result[0] == null)
            {
                rows.add(new Row(workload, system, Double.NaN, unit, udp, result[1]));
                continue;
            }
            final Matcher m = (isLatency ? AERON_LATENCY : AERON_BANDWIDTH).matcher(result[0]);
            if (!m.matches())
            {
                rows.add(new Row(workload, system, Double.NaN, unit, udp, "unparsed: " + result[0]));
                continue;
            }
            rows.add(new Row(workload, system, Double.parseDouble(m.group(1)), unit, udp,
                isLatency ? "p99 " + m.group(2) + " us" : m.group(2) + " msgs/s"));
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
    private String[] aeron(final String initiator, final String responder, final String mode, final int size,
        final int count) throws InterruptedException
    {
        final boolean fanOut = initiator.startsWith("fanout");
        // After rdma4j's sender and receivers.
        final int aeronHost = receivers + 1;
        final String port = String.valueOf(firstPort + 20);
        final List<String> common = List.of("mode=" + mode, "port=" + port, "size=" + size, "n=" + count,
            "warmup=" + warmup, "group=239.18.54." + (firstHost | 1), "receivers=" + receivers);
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
