package io.rdma4j.bench.netty;

import io.rdma4j.bench.compare.Child;
import io.rdma4j.bench.connect.FirstConnect;
import io.rdma4j.tools.perf.MachineLine;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The new user's measurements of issue 43 in one sitting, each against the socket (epoll, or NIO where epoll does
 * not load) in the same run: multicast delivered per receiver at 550/s and 5 000/s on defaults
 * ({@link MulticastBurst}), the first, refused and no-device connect ({@link FirstConnect}), how long an idle
 * client with {@code SO_KEEPALIVE} takes to notice its peer's process was killed ({@link DeadPeerClient} against an
 * {@link EchoServer}), and the 16 MiB echo cold and warm with a 64 KiB stream ({@link BulkClient}). Every part runs
 * in JVMs of its own; this one prints the machine line, each part's raw lines (prefixed {@code #}) and one table.
 */
@Command(name = "bench-habits", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Issue 43's new-user measurements in one sitting, rdma4j against the socket (epoll, or NIO",
        "without it) in the same run: multicast on defaults, connect times, an idle dead peer, 16 MiB echo."})
public final class Habits implements Callable<Integer>
{
    private static final Pattern BURST = Pattern.compile("run \\d+ burst (\\d+): sender \\[sent \\d+ .*? own (\\d+) "
        + "dropped (-?\\d+)[^]]*](.*) load .*");
    private static final Pattern RECEIVED = Pattern.compile("\\[received (\\d+) dropped (-?\\d+)");
    private static final Pattern CONNECT_ROW = Pattern.compile("(tcp socket|rdma4j cm|netty \\w+|netty rdma4j) "
        + "(listener|refused|no-device) +(\\S+) +(\\d+) \\[(\\d+)-(\\d+)].*");
    private static final Pattern LISTENING = Pattern.compile("listening (\\d+)");
    private static final Pattern BULK_RUN = Pattern.compile("run (\\d+) big_ms ([\\d.]+) stream_mb_per_s ([\\d.]+)");
    private static final Pattern BULK_RESULT = Pattern.compile("result big_ms ([\\d.]+) stream_mb_per_s ([\\d.]+)");
    private static final List<String> PARTS = List.of("multicast", "connect", "dead-peer", "bulk");

    @Option(names = "--only", split = ",", description = "parts to run, of multicast, connect, dead-peer, bulk "
        + "(default all)")
    private List<String> only = PARTS;

    @Option(names = "--bursts", defaultValue = "3", description = "multicast bursts per JVM set: the first is "
        + "cold (default 3)")
    private int bursts;

    @Option(names = "--connect-runs", defaultValue = "3", description = "fresh JVMs per connect row (default 3)")
    private int connectRuns;

    @Option(names = "--keepalive-idle-ms", defaultValue = "1000", description = "SO_KEEPALIVE's silence before "
        + "the first probe, both transports (TCP rounds it up to seconds; default 1000)")
    private int keepAliveIdleMs;

    @Option(names = "--tcp-keepalive-interval", defaultValue = "2", description = "TCP_KEEPINTVL, s: rdma4j's "
        + "probe is retried every ACK timeout, about 2.1 s (default 2)")
    private int tcpInterval;

    @Option(names = "--tcp-keepalive-count", defaultValue = "7", description = "TCP_KEEPCNT: rdma4j's probe is "
        + "sent once and retried RETRY_COUNT (6) times (default 7)")
    private int tcpCount;

    @Option(names = "--bulk-total-mib", defaultValue = "256", description = "MiB of the 64 KiB stream (default 256)")
    private int bulkTotalMib;

    @Option(names = "--bulk-runs", defaultValue = "3", description = "warm runs after the cold one (default 3)")
    private int bulkRuns;

    @Option(names = "--subnet", defaultValue = "43", description = "loopback addresses 127.<subnet>.x.y and the "
        + "multicast group 239.77.<subnet>.7 (default 43)")
    private int subnet;

    @Option(names = "--timeout", defaultValue = "180", description = "seconds a part may take (default 180)")
    private int timeoutSeconds;

    private final PrintStream out;
    private final List<String[]> table = new ArrayList<>();
    private String socket;
    /** The socket's bulk figures, measured once for both of rdma4j's paths. */
    private double[] lastBulkBase;
    private int nextHost;

    /**
     * @param out where the progress and the table go.
     */
    public Habits(final PrintStream out)
    {
        this.out = out;
    }

    /**
     * @param args the command line.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new Habits(System.out)).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        for (final String part : only)
        {
            if (!PARTS.contains(part))
            {
                throw new CommandLine.ParameterException(new CommandLine(this), "no part '" + part + "': " + PARTS);
            }
        }
        out.println(MachineLine.current().text());
        socket = Transport.EPOLL.unavailableReason() == null ? "epoll" : "nio";
        if (!socket.equals("epoll"))
        {
            out.println("# epoll does not load (" + Transport.EPOLL.unavailableReason() + "): NIO is the socket");
        }
        out.flush();
        if (only.contains("multicast"))
        {
            multicast(550, 1000, 1024);
            multicast(5000, 5000, 64);
        }
        if (only.contains("connect"))
        {
            connect();
        }
        if (only.contains("dead-peer"))
        {
            deadPeer();
        }
        if (only.contains("bulk"))
        {
            bulk("auto");
            bulk("off");
        }
        print();
        out.println("# done, load " + MachineLine.current().load());
        out.flush();
        return 0;
    }

    // ---- multicast ----

    private void multicast(final int rate, final int count, final int size) throws Exception
    {
        final List<List<int[]>> rdma = burstRun("rdma", rate, count, size);
        final List<List<int[]>> nio = burstRun("nio", rate, count, size);
        for (int burst = 0; burst < bursts; burst++)
        {
            final String what = String.format(Locale.ROOT, "multicast %d/s, %d x %d B: delivered per receiver "
                + "(sender's own), burst %d%s", rate, count, size, burst + 1, burst == 0 ? " (cold)" : "");
            final int[][] r = burst < rdma.size() ? rdma.get(burst).toArray(int[][]::new) : null;
            final int[][] n = burst < nio.size() ? nio.get(burst).toArray(int[][]::new) : null;
            table.add(new String[] {what, delivered(r), delivered(n), "nio udp",
                r == null || n == null ? "" : ratio(least(r), least(n))});
        }
    }

    /** @return per burst, each receiver's {received, dropped} and last the sender's {own, dropped}. */
    private List<List<int[]>> burstRun(final String transport, final int rate, final int count, final int size)
        throws Exception
    {
        final List<String> args = List.of("run", "--transport", transport, "--rate", String.valueOf(rate),
            "--count", String.valueOf(count), "--size", String.valueOf(size), "--subnet", String.valueOf(subnet),
            "--sender-joins", "--bursts", String.valueOf(bursts), "--jvm", "--enable-native-access=ALL-UNNAMED");
        final List<List<int[]>> result = new ArrayList<>();
        try (Child child = Child.start(jvm(List.of()), MulticastBurst.class.getName(), args))
        {
            final int status = child.await(timeoutSeconds, TimeUnit.SECONDS);
            for (final String line : child.lines())
            {
                out.println("# " + line);
                final List<int[]> members = burstLine(line);
                if (members != null)
                {
                    result.add(members);
                }
            }
            if (status != 0)
            {
                out.println("# MulticastBurst " + transport + " exited " + status);
            }
        }
        out.flush();
        return result;
    }

    /**
     * @param line a line of {@link MulticastBurst}'s driver.
     * @return for a burst's line, each receiver's {received, dropped} and last the sender's {own, dropped}; else
     *     null.
     */
    static List<int[]> burstLine(final String line)
    {
        final Matcher m = BURST.matcher(line);
        if (!m.matches())
        {
            return null;
        }
        final List<int[]> members = new ArrayList<>();
        final Matcher r = RECEIVED.matcher(m.group(4));
        while (r.find())
        {
            members.add(new int[] {Integer.parseInt(r.group(1)), Integer.parseInt(r.group(2))});
        }
        members.add(new int[] {Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))});
        return members;
    }

    private static String delivered(final int[][] members)
    {
        if (members == null)
        {
            return "FAILED";
        }
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < members.length - 1; i++)
        {
            text.append(i == 0 ? "" : " ").append(members[i][0]);
        }
        return text.append(" (").append(members[members.length - 1][0]).append(")").toString();
    }

    private static int least(final int[][] members)
    {
        int least = Integer.MAX_VALUE;
        for (int i = 0; i < members.length - 1; i++)
        {
            least = Math.min(least, members[i][0]);
        }
        return least;
    }

    // ---- connect ----

    private void connect()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream capture = new PrintStream(new Tee(bytes, out), true, StandardCharsets.UTF_8);
        final int status = new CommandLine(new FirstConnect(capture)).execute("-r", String.valueOf(connectRuns),
            "--network", "127." + subnet + ".1.10", "--timeout", String.valueOf(timeoutSeconds));
        final List<Matcher> rows = connectRows(bytes.toString(StandardCharsets.UTF_8));
        for (final String outcome : List.of("listener", "refused", "no-device"))
        {
            final String what = switch (outcome)
            {
                case "listener" -> "first connect, Netty, fresh JVM, ms (median [min-max])";
                case "refused" -> "refused connect (live device, no listener), Netty, ms";
                default -> "connect to an address with no device, Netty, ms";
            };
            final Matcher rdma = row(rows, "netty rdma4j", outcome);
            final Matcher base = row(rows, "netty " + socket, outcome);
            table.add(new String[] {what, connectCell(rdma), connectCell(base), socket + " tcp",
                rdma == null || base == null ? "" : ratio(Long.parseLong(rdma.group(4)), Long.parseLong(base.group(4)))});
            final Matcher cm = row(rows, "rdma4j cm", outcome);
            final Matcher tcp = row(rows, "tcp socket", outcome);
            table.add(new String[] {"  the same, rdma4j's CM against a TCP socket", connectCell(cm), connectCell(tcp),
                "SocketChannel", cm == null || tcp == null ? "" : ratio(Long.parseLong(cm.group(4)),
                Long.parseLong(tcp.group(4)))});
        }
        if (status != 0)
        {
            out.println("# first-connect exited " + status);
        }
    }

    /**
     * @param text {@link FirstConnect}'s output.
     * @return its table's rows: label, case, outcome, median, min and max ms.
     */
    static List<Matcher> connectRows(final String text)
    {
        return text.lines().map(CONNECT_ROW::matcher).filter(Matcher::matches).toList();
    }

    private static Matcher row(final List<Matcher> rows, final String label, final String outcome)
    {
        return rows.stream().filter(m -> m.group(1).equals(label) && m.group(2).equals(outcome)).findFirst()
            .orElse(null);
    }

    private static String connectCell(final Matcher row)
    {
        return row == null ? "FAILED" : row.group(4) + " [" + row.group(5) + "-" + row.group(6) + "] " + row.group(3);
    }

    // ---- dead peer ----

    private void deadPeer() throws Exception
    {
        final String rdma = deadPeerRun("rdma-polling", "off");
        final String base = deadPeerRun(socket, null);
        table.add(new String[] {String.format(Locale.ROOT, "idle peer's process killed (-9), SO_KEEPALIVE idle %d "
            + "ms, rdma4j.soft.shm=off: s to channelInactive", keepAliveIdleMs), rdma, base, socket + " tcp",
            ratio(seconds(rdma), seconds(base))});
        final String sameHost = deadPeerRun("rdma-polling", "auto");
        table.add(new String[] {"  the same on the same-host path (rdma4j.soft.shm=auto)", sameHost, base,
            socket + " tcp", ratio(seconds(sameHost), seconds(base))});
        out.printf(Locale.ROOT, "# dead peer: TCP here gets the dead process's FIN from its kernel; a vanished host "
            + "would take TCP_KEEPIDLE + %d x %d s = %d s with these settings%n", tcpCount, tcpInterval,
            (keepAliveIdleMs + 999) / 1000 + tcpCount * tcpInterval);
    }

    /** @return seconds from the kill to the client's channel going inactive, with the cause, or why not. */
    private String deadPeerRun(final String transport, final String shm) throws Exception
    {
        final String serverHost = host();
        final String clientHost = host();
        try (Child server = Child.start(jvm(rdmaOptions(transport, serverHost, shm)), EchoServer.class.getName(),
            List.of(transport, serverHost, "1")))
        {
            if (!server.awaitLine(l -> LISTENING.matcher(l).matches(), timeoutSeconds, TimeUnit.SECONDS))
            {
                return "FAILED: server " + server.lastLine();
            }
            final int port = port(server);
            try (Child client = Child.start(jvm(rdmaOptions(transport, clientHost, shm)),
                DeadPeerClient.class.getName(), List.of(transport, serverHost, String.valueOf(port), clientHost,
                    String.valueOf(keepAliveIdleMs), String.valueOf(tcpInterval), String.valueOf(tcpCount))))
            {
                if (!client.awaitLine("connected"::equals, timeoutSeconds, TimeUnit.SECONDS))
                {
                    return "FAILED: client " + client.lastLine();
                }
                // idle a while first: the peer dies on a connection that has been silent
                Thread.sleep(keepAliveIdleMs * 3L / 2);
                final long killed = System.nanoTime();
                server.close();
                final boolean closed = client.awaitLine(l -> l.startsWith("closed"), timeoutSeconds,
                    TimeUnit.SECONDS);
                final double s = (System.nanoTime() - killed) / 1e9;
                final String line = client.lines().stream().filter(l -> l.startsWith("closed")).findFirst()
                    .orElse("");
                out.printf(Locale.ROOT, "# dead peer %s shm=%s: %s after %.2f s%n", transport, shm, closed ? line :
                    "still open", s);
                return closed ? String.format(Locale.ROOT, "%.2f s", s) :
                    String.format(Locale.ROOT, "not in %d s", timeoutSeconds);
            }
        }
    }

    private static double seconds(final String cell)
    {
        return cell.endsWith(" s") && !cell.startsWith("not") ? Double.parseDouble(cell.substring(0,
            cell.length() - 2)) : Double.NaN;
    }

    // ---- bulk ----

    private void bulk(final String shm) throws Exception
    {
        final double[] rdma = bulkRun("rdma-polling", shm);
        final double[] base = shm.equals("auto") ? bulkRun(socket, null) : lastBulkBase;
        lastBulkBase = base;
        final String path = "rdma4j.soft.shm=" + shm;
        table.add(new String[] {"16 MiB echo, cold (a fresh pair of JVMs' first), ms, " + path, cell(rdma, 0),
            cell(base, 0), socket + " tcp", rdma == null || base == null ? "" : ratio(rdma[0], base[0])});
        table.add(new String[] {"16 MiB echo, warm (best of " + bulkRuns + "), ms, " + path, cell(rdma, 2),
            cell(base, 2), socket + " tcp", rdma == null || base == null ? "" : ratio(rdma[2], base[2])});
        table.add(new String[] {"64 KiB writes, " + bulkTotalMib + " MiB echoed, cold, MB/s, " + path, cell(rdma, 1),
            cell(base, 1), socket + " tcp", rdma == null || base == null ? "" : ratio(rdma[1], base[1])});
        table.add(new String[] {"64 KiB writes, warm (best), MB/s, " + path, cell(rdma, 3), cell(base, 3),
            socket + " tcp", rdma == null || base == null ? "" : ratio(rdma[3], base[3])});
    }

    /** @return {cold big ms, cold stream MB/s, warm big ms, warm stream MB/s}, or null if it failed. */
    private double[] bulkRun(final String transport, final String shm) throws Exception
    {
        final String serverHost = host();
        final String clientHost = host();
        try (Child server = Child.start(jvm(rdmaOptions(transport, serverHost, shm)), EchoServer.class.getName(),
            List.of(transport, serverHost, "1")))
        {
            if (!server.awaitLine(l -> LISTENING.matcher(l).matches(), timeoutSeconds, TimeUnit.SECONDS))
            {
                out.println("# bulk " + transport + ": server " + server.lastLine());
                return null;
            }
            try (Child client = Child.start(jvm(rdmaOptions(transport, clientHost, shm)), BulkClient.class.getName(),
                List.of(transport, serverHost, String.valueOf(port(server)), clientHost,
                    String.valueOf(16 << 20), String.valueOf(64 << 10), String.valueOf((long)bulkTotalMib << 20),
                    String.valueOf(bulkRuns))))
            {
                final int status = client.await(timeoutSeconds, TimeUnit.SECONDS);
                final double[] figures = new double[4];
                boolean complete = false;
                for (final String line : client.lines())
                {
                    out.println("# bulk " + transport + (shm == null ? "" : " shm=" + shm) + ": " + line);
                    final Matcher run = BULK_RUN.matcher(line);
                    if (run.matches() && run.group(1).equals("0"))
                    {
                        figures[0] = Double.parseDouble(run.group(2));
                        figures[1] = Double.parseDouble(run.group(3));
                    }
                    final Matcher result = BULK_RESULT.matcher(line);
                    if (result.matches())
                    {
                        figures[2] = Double.parseDouble(result.group(1));
                        figures[3] = Double.parseDouble(result.group(2));
                        complete = true;
                    }
                }
                out.flush();
                return status == 0 && complete ? figures : null;
            }
        }
    }

    private static String cell(final double[] figures, final int i)
    {
        return figures == null ? "FAILED" : String.format(Locale.ROOT, "%.1f", figures[i]);
    }

    // ---- common ----

    /** @return this JVM's {@code rdma4j.*} settings for a child, and its own options after them. */
    private static List<String> jvm(final List<String> own)
    {
        final List<String> options = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED"));
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("rdma4j."))
            .filter(k -> own.stream().noneMatch(o -> o.startsWith("-D" + k + "=")))
            .sorted().forEach(k -> options.add("-D" + k + "=" + System.getProperty(k)));
        options.addAll(own);
        return options;
    }

    private static List<String> rdmaOptions(final String transport, final String host, final String shm)
    {
        final Transport kind = Transport.of(transport);
        final List<String> options = new ArrayList<>(kind.jvmOptions(host));
        if (kind.rdma() && shm != null)
        {
            options.add("-Drdma4j.soft.shm=" + shm);
        }
        return options;
    }

    private static int port(final Child server)
    {
        return Integer.parseInt(server.lines().stream().map(LISTENING::matcher).filter(Matcher::matches)
            .findFirst().orElseThrow().group(1));
    }

    /** @return the next loopback address of this run's: 127.SUBNET.2.N. */
    private String host()
    {
        nextHost++;
        return "127." + subnet + ".2." + nextHost;
    }

    private static String ratio(final double value, final double base)
    {
        return Double.isNaN(value) || Double.isNaN(base) || base == 0 ? "" :
            String.format(Locale.ROOT, "%.2f", value / base);
    }

    private void print()
    {
        out.println();
        int width = "measurement".length();
        for (final String[] row : table)
        {
            width = Math.max(width, row[0].length());
        }
        final String format = "%-" + width + "s  %-32s  %-32s  %-13s  %s%n";
        out.printf(Locale.ROOT, format, "measurement", "rdma4j", "baseline", "baseline is", "x");
        for (final String[] row : table)
        {
            out.printf(Locale.ROOT, format, (Object[])row);
        }
        out.println("# x = rdma4j / baseline: for times, above 1 is slower; for delivered and MB/s, below 1 is less");
    }

    /** Writes to two streams: the captured part's lines are kept and shown as they come. */
    private static final class Tee extends OutputStream
    {
        private final OutputStream first;
        private final OutputStream second;

        Tee(final OutputStream first, final OutputStream second)
        {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(final int b) throws IOException
        {
            first.write(b);
            second.write(b);
        }

        @Override
        public void write(final byte[] b, final int off, final int len) throws IOException
        {
            first.write(b, off, len);
            second.write(b, off, len);
        }

        @Override
        public void flush() throws IOException
        {
            first.flush();
            second.flush();
        }
    }
}
