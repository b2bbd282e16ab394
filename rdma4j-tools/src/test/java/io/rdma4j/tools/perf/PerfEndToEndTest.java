package io.rdma4j.tools.perf;

import io.rdma4j.testing.TestNet;
import io.rdma4j.tools.ToolProcess;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdma4j perf} as it is used: a server process, then a client process given its address,
 * each with its own soft device on its own loopback address, TCP port and group, all the test JVM's own
 * ({@link TestNet}: the control connection's server listens on every address, and two builds at once met
 * on fixed ports and groups). Asserts the result lines' shape, that every figure is
 * positive and the percentiles ordered, that the ratio is the two printed figures divided, that both
 * sides print the same line, and that the histogram log reads back. Never how fast anything is.
 */
class PerfEndToEndTest
{
    private static final String NUMBER = "(\\d+\\.\\d\\d)";
    private static final Pattern LATENCY = Pattern.compile("(\\w+) (RC|UC|UD) (\\d+)B: p50 " + NUMBER + " us p99 " +
        NUMBER + " us p99\\.9 " + NUMBER + " us max " + NUMBER + " us  baseline udp p50 " + NUMBER + " us p99 " +
        NUMBER + " us p99\\.9 " + NUMBER + " us max " + NUMBER + " us  ratio " + NUMBER);
    private static final Pattern BANDWIDTH = Pattern.compile("(\\w+) (RC|UC|UD) (\\d+)B: " + NUMBER +
        " MB/s (\\d+) msgs/s  baseline udp " + NUMBER + " MB/s (\\d+) msgs/s  ratio " + NUMBER);
    private static final Pattern MACHINE = Pattern.compile(
        "# machine: cpu .+, (?:\\d+|\\?) online \\(\\d+ for this JVM\\), kernel .+, JVM .+, load .+");
    private static final Pattern WAITING = Pattern.compile("# \\w+ server: waiting for a client on TCP port \\d+.*");

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    /**
     * @param host the server's host number, odd, 211..249 (the client is the next).
     * @return the run's TCP port, the test JVM's own.
     */
    private static int port(final int host)
    {
        return TestNet.tcpPort(10 + (host - 211) / 2);
    }

    /**
     * @return the client's and the server's result lines, both having exited 0.
     */
    private List<List<String>> run(final int host, final List<String> args) throws Exception
    {
        final String serverAddress = TestNet.host(host);
        final String port = String.valueOf(port(host));
        final List<String> server = new ArrayList<>(List.of("perf"));
        server.addAll(args);
        server.addAll(List.of("--address", serverAddress, "-p", port));
        final ToolProcess s = start("server", server, line -> WAITING.matcher(line).matches());
        assertTrue(s.ready().get(60, TimeUnit.SECONDS), "the server never said it was listening");
        final List<String> client = new ArrayList<>(List.of("perf"));
        client.addAll(args);
        client.addAll(List.of("--address", TestNet.host(host + 1), "-p", port, serverAddress));
        final ToolProcess c = start("client", client, line -> false);
        assertEquals(0, c.await(180, TimeUnit.SECONDS), "client exit status");
        assertEquals(0, s.await(60, TimeUnit.SECONDS), "server exit status");
        assertSaysWhereItRan(c, args);
        assertSaysWhereItRan(s, args);
        return List.of(results(c), results(s));
    }

    /**
     * The header names the machine, and the path the device took as the device reports it, with the run's warm-up.
     */
    private static void assertSaysWhereItRan(final ToolProcess p, final List<String> args)
    {
        final List<String> lines = p.lines();
        assertTrue(lines.stream().anyMatch(l -> MACHINE.matcher(l).matches()), "a machine line: " + lines);
        final String progress = args.contains("--progress") ? args.get(args.indexOf("--progress") + 1)
            : "(?:thread|polling)";
        final Pattern device = Pattern.compile("# device: soft\\d+ \\(soft\\), socket (?:linux|nio), shm (?:on|off), " +
            "progress " + progress + ", warm-up " + args.get(args.indexOf("--warmup") + 1));
        assertTrue(lines.stream().anyMatch(l -> device.matcher(l).matches()), device + " in " + lines);
        // every run, point-to-point or fan-out (-M), alternates with its baseline in blocks
        final int iterations = Integer.parseInt(args.get(args.indexOf("-n") + 1));
        final String blocks = ", rdma4j and baseline alternating in " + PerfRun.blocks(iterations) + " block(s)";
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("# rdma4j perf ") && l.endsWith(blocks)),
            "a header ending '" + blocks + "': " + lines);
    }

    private ToolProcess start(final String role, final List<String> args,
        final java.util.function.Predicate<String> ready) throws IOException
    {
        final ToolProcess p = ToolProcess.start(role, args, ready);
        children.add(p);
        return p;
    }

    /** @return the histograms of a --histogram log, by tag. */
    private static Map<String, Histogram> histogramsByTag(final Path log) throws IOException
    {
        final Map<String, Histogram> tagged = new HashMap<>();
        final HistogramLogReader reader = new HistogramLogReader(log.toFile());
        EncodableHistogram next;
        while ((next = reader.nextIntervalHistogram()) != null)
        {
            tagged.put(next.getTag(), (Histogram)next);
        }
        return tagged;
    }

    private static List<String> results(final ToolProcess p)
    {
        return p.lines().stream().filter(l -> !l.startsWith("#") && !l.startsWith("rdma4j: building")).toList();
    }

    private static double[] figures(final Matcher m, final int from, final int to)
    {
        final double[] values = new double[to - from + 1];
        for (int i = from; i <= to; i++)
        {
            values[i - from] = Double.parseDouble(m.group(i));
        }
        return values;
    }

    private static void assertRatio(final String ours, final String baseline, final String ratio)
    {
        assertEquals(String.format(Locale.ROOT, "%.2f", Double.parseDouble(ours) / Double.parseDouble(baseline)),
            ratio, "ratio = " + ours + " / " + baseline);
    }

    private static void assertLatencyLine(final String line, final String test, final String transport,
        final int size)
    {
        final Matcher m = LATENCY.matcher(line);
        assertTrue(m.matches(), line);
        assertEquals(test, m.group(1));
        assertEquals(transport, m.group(2));
        assertEquals(size, Integer.parseInt(m.group(3)));
        for (final int first : new int[] {4, 8})
        {
            final double[] p = figures(m, first, first + 3);
            assertTrue(p[0] > 0, line);
            assertTrue(p[0] <= p[1] && p[1] <= p[2] && p[2] <= p[3], "p50 <= p99 <= p99.9 <= max: " + line);
        }
        assertRatio(m.group(4), m.group(8), m.group(12));
    }

    @Test
    void shouldPrintLatencyLinesAndWriteAReadableHistogramLog(@TempDir final Path dir) throws Exception
    {
        final Path log = dir.resolve("send_lat.hlog");
        final List<List<String>> out = run(211, List.of("send_lat", "-c", "RC", "-n", "200", "--warmup", "50",
            "-s", "64", "-I", "64", "--histogram", log.toString()));
        assertEquals(1, out.get(0).size(), "one line per size: " + out.get(0));
        assertLatencyLine(out.get(0).getFirst(), "send_lat", "RC", 64);
        assertEquals(out.get(0), out.get(1), "the server prints the client's line");

        final Map<String, Histogram> tagged = histogramsByTag(log);
        assertEquals(2, tagged.size(), "tags: " + tagged.keySet());
        assertEquals(200, tagged.get("rdma4j.send_lat.RC.64").getTotalCount());
        assertEquals(200, tagged.get("udp.send_lat.RC.64").getTotalCount());
        final Matcher m = LATENCY.matcher(out.get(0).getFirst());
        assertTrue(m.matches());
        assertEquals(m.group(4), String.format(Locale.ROOT, "%.2f",
            tagged.get("rdma4j.send_lat.RC.64").getValueAtPercentile(50) / 1000.0), "the log holds what was printed");
    }

    /**
     * Past 10000 exchanges the timed part alternates between rdma4j and the baseline in blocks (here two, of 5001
     * and 5000): the header says so, every exchange is recorded once on each side (with a block per test, as
     * before, rdma4j's exchanges all ran before the baseline's, and a VM that changed speed between the two changed
     * the ratio: 1.50 for UD in one sitting where the pairs around it gave 1.23), and write_lat, whose marks number
     * the exchanges, runs through its blocks.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "write_lat -c RC -s 32 -n 10001 --warmup 300 --progress polling | 245 | write_lat.RC.32",
        "send_lat -c UD -s 64 -n 10001 --warmup 300 --progress polling | 247 | send_lat.UD.64"})
    void shouldAlternateLongRunsWithTheBaselineInBlocks(final String args, final int host, final String tag,
        @TempDir final Path dir) throws Exception
    {
        final Path log = dir.resolve("blocks.hlog");
        final List<String> argv = new ArrayList<>(Arrays.asList(args.trim().split(" +")));
        argv.addAll(List.of("--histogram", log.toString()));
        assertEquals(2, PerfRun.blocks(10001));
        final List<List<String>> out = run(host, argv);
        assertEquals(1, out.get(0).size(), "one line: " + out.get(0));
        final Map<String, Histogram> tagged = histogramsByTag(log);
        assertEquals(10001, tagged.get("rdma4j." + tag).getTotalCount(), "rdma4j exchanges recorded");
        assertEquals(10001, tagged.get("udp." + tag).getTotalCount(), "baseline exchanges recorded");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "write_lat -c UC -s 32 -n 100 --warmup 20 --progress polling | 213 | 32",
        "atomic_lat -n 100 --warmup 20 -e | 215 | 8",
        "send_lat -c UD -n 50 --warmup 10 -s 2 -a | 217 | 0"})
    void shouldMeasureEveryLatencyTestAgainstTheBaseline(final String args, final int host, final int size)
        throws Exception
    {
        final List<String> argv = Arrays.asList(args.trim().split(" +"));
        final List<List<String>> out = run(host, argv);
        final String transport = argv.contains("-c") ? argv.get(argv.indexOf("-c") + 1) : "RC";
        final List<Integer> sizes = new ArrayList<>();
        if (size == 0)
        {
            for (int s = 2; s <= 4096; s <<= 1)
            {
                sizes.add(s);
            }
        }
        else
        {
            sizes.add(size);
        }
        assertEquals(sizes.size(), out.get(0).size(), "one line per size: " + out.get(0));
        for (int i = 0; i < sizes.size(); i++)
        {
            assertLatencyLine(out.get(0).get(i), argv.getFirst(), transport, sizes.get(i));
        }
        assertEquals(out.get(0), out.get(1), "the server prints the client's lines");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "send_bw -c UD -s 1024 -n 300 --warmup 30 -e | 219 | UD | 1024",
        "read_bw -q 2 -s 8192 -n 200 --warmup 20 | 221 | RC | 8192",
        "write_bw -c UC -s 100000 -n 50 --warmup 5 --progress polling | 223 | UC | 100000",
        "send_bw -c RC -s 4096 -n 300 --warmup 30 -q 2 -t 8 -r 16 | 225 | RC | 4096",
        "send_bw -c UD -s 64 -n 300 --warmup 30 -l 16 | 241 | UD | 64",
        "write_bw -c RC -s 4096 -n 301 --warmup 30 -q 2 -t 24 -l 10 | 243 | RC | 4096",
        "send_bw -c RC -s 64 -n 10001 --warmup 100 --progress polling | 249 | RC | 64"})
    void shouldMeasureBandwidthAgainstTheBaseline(final String args, final int host, final String transport,
        final int size) throws Exception
    {
        final List<String> argv = Arrays.asList(args.trim().split(" +"));
        final List<List<String>> out = run(host, argv);
        assertEquals(1, out.get(0).size(), "one line: " + out.get(0));
        final String line = out.get(0).getFirst();
        final Matcher m = BANDWIDTH.matcher(line);
        assertTrue(m.matches(), line);
        assertEquals(argv.getFirst(), m.group(1));
        assertEquals(transport, m.group(2));
        assertEquals(size, Integer.parseInt(m.group(3)));
        for (final int group : new int[] {4, 5, 6, 7})
        {
            assertTrue(Double.parseDouble(m.group(group)) > 0, "figure " + group + " positive: " + line);
        }
        assertRatio(m.group(4), m.group(6), m.group(8));
        assertEquals(out.get(0), out.get(1), "the server prints the client's line");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "send_lat -c UD -s 256 -n 100 --warmup 20 | 227",
        "send_bw -c UD -s 2048 -n 300 --warmup 30 -e | 231",
        "send_bw -c UD -s 2048 -n 301 --warmup 30 -l 16 | 235",
        "send_lat -c UD -s 256 -n 10000 --warmup 20 -e | 195",
        "send_bw -c UD -s 2048 -n 10001 --warmup 30 | 251"})
    void shouldFanOutToEveryReceiverOfAGroup(final String args, final int host) throws Exception
    {
        final List<String> argv = new ArrayList<>(Arrays.asList(args.trim().split(" +")));
        argv.addAll(List.of("-M", "2", "--group", TestNet.group(host), "-p", String.valueOf(port(host))));
        final String sender = TestNet.host(host);
        final List<String> server = new ArrayList<>(List.of("perf"));
        server.addAll(argv);
        server.addAll(List.of("--address", sender));
        final ToolProcess s = start("sender", server, line -> WAITING.matcher(line).matches());
        assertTrue(s.ready().get(60, TimeUnit.SECONDS), "the sender never said it was listening");
        final List<ToolProcess> receivers = new ArrayList<>();
        for (int i = 1; i <= 2; i++)
        {
            final List<String> client = new ArrayList<>(List.of("perf"));
            client.addAll(argv);
            client.addAll(List.of("--address", TestNet.host(host + i), sender));
            receivers.add(start("receiver" + i, client, line -> false));
        }
        for (final ToolProcess r : receivers)
        {
            assertEquals(0, r.await(180, TimeUnit.SECONDS), "receiver exit status");
        }
        assertEquals(0, s.await(60, TimeUnit.SECONDS), "sender exit status");
        assertSaysWhereItRan(s, argv);
        receivers.forEach(r -> assertSaysWhereItRan(r, argv));
        final List<String> lines = results(s);
        assertEquals(1, lines.size(), "one line: " + lines);
        final String line = lines.getFirst();
        if (argv.getFirst().equals("send_lat"))
        {
            assertTrue(line.startsWith("send_lat UD 256B mcast x2: p50 "), line);
            assertLatencyLine(line.replace(" mcast x2", ""), "send_lat", "UD", 256);
        }
        else
        {
            assertTrue(line.startsWith("send_bw UD 2048B mcast x2: "), line);
            final Matcher m = BANDWIDTH.matcher(line.replace(" mcast x2", ""));
            assertTrue(m.matches(), line);
            assertRatio(m.group(4), m.group(6), m.group(8));
        }
        for (final ToolProcess r : receivers)
        {
            assertEquals(lines, results(r), "each receiver prints the sender's line");
        }
    }
}
