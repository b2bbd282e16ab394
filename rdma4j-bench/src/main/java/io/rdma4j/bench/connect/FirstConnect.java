package io.rdma4j.bench.connect;

import io.rdma4j.bench.compare.Child;
import io.rdma4j.bench.netty.EchoServer;
import io.rdma4j.bench.netty.Transport;
import io.rdma4j.tools.perf.MachineLine;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process's first connection, a fresh JVM each ({@link ConnectClient}): to a listener, to a live device (or
 * host) with nothing on the port (refused), and to a loopback address with no device at all (unreachable for RDMA,
 * refused for TCP). Over rdma4j's connection manager against a plain TCP socket, and through Netty over rdma4j
 * against Netty's epoll (NIO's without it). The runs of every row are interleaved, so the others' load falls on
 * all rows alike; each figure is the median of the runs, main to outcome, and x is it over its TCP row's.
 * {@code --before-classpath} adds the rdma rows once more on another build's class path (main's, say), for a
 * before/after in one run.
 */
@Command(name = "first-connect", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"A process's first connect, refused connect and connect to an address with no device,",
        "each in a fresh JVM: rdma4j's connection manager against a TCP socket, and Netty over",
        "rdma4j against Netty's epoll. Medians of the runs; x = row / its TCP row (above 1 is slower)."})
public final class FirstConnect implements Callable<Integer>
{
    private static final Pattern LISTENING = Pattern.compile("listening (\\d+)");
    private static final Pattern STEP = Pattern.compile("step (\\S+) (\\d+)");
    private static final Pattern RESULT = Pattern.compile("result main_us (\\d+) total_us (\\d+) outcome (\\S+)");
    private static final List<String> CASES = List.of("listener", "refused", "no-device");

    @Option(names = {"-r", "--runs"}, defaultValue = "5", description = "fresh JVMs per row (default 5)")
    private int runs;

    @Option(names = "--network", defaultValue = "127.44.0.10", description = "the first loopback address; the "
        + "servers take three from there, the address with no device the fourth, each client one after "
        + "(default 127.44.0.10)")
    private String network;

    @Option(names = "--before-classpath", description = "another build's class path: its rdma rows too, "
        + "labelled 'before'")
    private String beforeClassPath;

    @Option(names = "--timeout", defaultValue = "120", description = "seconds a child may take (default 120)")
    private int timeoutSeconds;

    private final PrintStream out;
    private int nextHost;

    /**
     * @param out where the progress and the table go.
     */
    public FirstConnect(final PrintStream out)
    {
        this.out = out;
    }

    /**
     * @param args the command line.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new FirstConnect(System.out)).execute(args));
    }

    /** A row: a client kind, its case, and the class path it runs on (null: this one). */
    private record Row(String kind, String label, String outcomeCase, String classPath, String baseline)
    {
        String key()
        {
            return label + " " + outcomeCase;
        }
    }

    /** One row's runs: the main-to-outcome times, the JVM-to-main times, the outcomes and each step's times. */
    private static final class Runs
    {
        final List<Long> totals = new ArrayList<>();
        final List<Long> mains = new ArrayList<>();
        final List<String> outcomes = new ArrayList<>();
        final Map<String, List<Long>> steps = new LinkedHashMap<>();
        String failure;
    }

    @Override
    public Integer call() throws Exception
    {
        out.println(MachineLine.current().text());
        out.printf(Locale.ROOT, "# first-connect: %d fresh client JVMs per row, interleaved; main to outcome, "
            + "median [min-max] ms%n", runs);
        out.flush();
        final String netty = Transport.EPOLL.unavailableReason() == null ? "epoll" : "nio";
        final List<Row> rows = new ArrayList<>();
        for (final String outcomeCase : CASES)
        {
            rows.add(new Row("tcp", "tcp socket", outcomeCase, null, null));
            rows.add(new Row("cm", "rdma4j cm", outcomeCase, null, "tcp socket " + outcomeCase));
            if (beforeClassPath != null)
            {
                rows.add(new Row("cm", "rdma4j cm before", outcomeCase, beforeClassPath, "tcp socket " + outcomeCase));
            }
            rows.add(new Row(netty, "netty " + netty, outcomeCase, null, null));
            rows.add(new Row("rdma-polling", "netty rdma4j", outcomeCase, null, "netty " + netty + " " + outcomeCase));
            if (beforeClassPath != null)
            {
                rows.add(new Row("rdma-polling", "netty rdma4j before", outcomeCase, beforeClassPath,
                    "netty " + netty + " " + outcomeCase));
            }
        }
        final String cmHost = host();
        final String nettyHost = host();
        final String tcpHost = host();
        final String noDeviceHost = host();
        try (Child cmServer = server(List.of("-Drdma4j.soft.address=" + cmHost), ConnectServer.class.getName(),
                List.of("cm", cmHost));
            Child nettyServer = server(List.of("-Drdma4j.soft.address=" + nettyHost), EchoServer.class.getName(),
                List.of("rdma-polling", nettyHost, "1"));
            Child tcpServer = server(List.of(), ConnectServer.class.getName(), List.of("tcp", tcpHost)))
        {
            final Map<String, Runs> results = new LinkedHashMap<>();
            for (int run = 0; run < runs; run++)
            {
                for (final Row row : rows)
                {
                    final Runs kept = results.computeIfAbsent(row.key(), k -> new Runs());
                    if (kept.failure != null)
                    {
                        continue;
                    }
                    final boolean rdma = row.kind().equals("cm") || row.kind().startsWith("rdma");
                    final String serverHost = !rdma ? tcpHost : row.kind().equals("cm") ? cmHost : nettyHost;
                    final int port = port(!rdma ? tcpServer : row.kind().equals("cm") ? cmServer : nettyServer);
                    final String remote = row.outcomeCase().equals("no-device") ? noDeviceHost : serverHost;
                    final int remotePort = row.outcomeCase().equals("refused") ? port + 1 : port;
                    client(row, remote, remotePort, kept);
                }
            }
            print(rows, results);
        }
        out.println("# done, load " + MachineLine.current().load());
        return 0;
    }

    private Child server(final List<String> options, final String main, final List<String> args)
        throws IOException, InterruptedException
    {
        final List<String> jvm = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED"));
        jvm.addAll(options);
        final Child child = Child.start(jvm, main, args);
        if (!child.awaitLine(l -> LISTENING.matcher(l).matches(), timeoutSeconds, TimeUnit.SECONDS))
        {
            child.close();
            throw new IOException(main + " " + args + " did not listen: " + child.lastLine());
        }
        return child;
    }

    private static int port(final Child server)
    {
        return Integer.parseInt(server.lines().stream().map(LISTENING::matcher).filter(Matcher::matches)
            .findFirst().orElseThrow().group(1));
    }

    private void client(final Row row, final String remote, final int port, final Runs kept)
        throws IOException, InterruptedException
    {
        final String local = host();
        final List<String> jvm = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED",
            "-Drdma4j.soft.address=" + local));
        final String classPath = row.classPath() == null ? System.getProperty("java.class.path") : row.classPath();
        try (Child child = Child.start(jvm, classPath, ConnectClient.class.getName(), List.of(row.kind(), remote,
            String.valueOf(port), local)))
        {
            final int status = child.await(timeoutSeconds, TimeUnit.SECONDS);
            Matcher result = null;
            for (final String line : child.lines())
            {
                final Matcher step = STEP.matcher(line);
                if (step.matches())
                {
                    kept.steps.computeIfAbsent(step.group(1), k -> new ArrayList<>()).add(Long.parseLong(
                        step.group(2)));
                }
                final Matcher m = RESULT.matcher(line);
                if (m.matches())
                {
                    result = m;
                }
            }
            if (status != 0 || result == null)
            {
                kept.failure = "FAILED (exit " + status + "): " + child.lastLine();
                return;
            }
            kept.mains.add(Long.parseLong(result.group(1)));
            kept.totals.add(Long.parseLong(result.group(2)));
            kept.outcomes.add(result.group(3));
        }
    }

    private void print(final List<Row> rows, final Map<String, Runs> results)
    {
        out.println();
        out.printf(Locale.ROOT, "%-36s %-12s %22s %7s %12s%n", "row", "outcome", "main->outcome ms", "x",
            "jvm->main ms");
        for (final Row row : rows)
        {
            final Runs kept = results.get(row.key());
            if (kept.failure != null)
            {
                out.printf(Locale.ROOT, "%-36s %s%n", row.key(), kept.failure);
                continue;
            }
            final Runs base = row.baseline() == null ? null : results.get(row.baseline());
            final String ratio = base == null || base.failure != null ? "" :
                String.format(Locale.ROOT, "%.1f", (double)median(kept.totals) / median(base.totals));
            out.printf(Locale.ROOT, "%-36s %-12s %22s %7s %12.0f%n", row.key(),
                String.join(",", kept.outcomes.stream().distinct().toList()), spread(kept.totals), ratio,
                median(kept.mains) / 1000.0);
        }
        out.println();
        out.println("# rdma4j cm steps, median ms (the first bind opens the device)");
        for (final Row row : rows)
        {
            final Runs kept = results.get(row.key());
            if (!row.kind().equals("cm") || kept.failure != null)
            {
                continue;
            }
            final StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-36s", row.key()));
            kept.steps.forEach((step, times) -> line.append(String.format(Locale.ROOT, " %s %.0f", step,
                median(times) / 1000.0)));
            out.println(line);
        }
        out.flush();
    }

    private static String spread(final List<Long> micros)
    {
        return String.format(Locale.ROOT, "%.0f [%.0f-%.0f]", median(micros) / 1000.0,
            micros.stream().mapToLong(Long::longValue).min().orElse(0) / 1000.0,
            micros.stream().mapToLong(Long::longValue).max().orElse(0) / 1000.0);
    }

    private static long median(final List<Long> values)
    {
        final List<Long> sorted = values.stream().sorted().toList();
        return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
    }

    /** @return the next loopback address from {@link #network}. */
    private String host() throws UnknownHostException
    {
        final byte[] base = InetAddress.getByName(network).getAddress();
        int value = ((base[0] & 0xFF) << 24 | (base[1] & 0xFF) << 16 | (base[2] & 0xFF) << 8 | base[3] & 0xFF) +
            nextHost++;
        return (value >>> 24) + "." + (value >>> 16 & 0xFF) + "." + (value >>> 8 & 0xFF) + "." + (value & 0xFF);
    }
}
