package io.rdma4j.bench.netty;

import io.rdma4j.bench.compare.Child;
import io.rdma4j.tools.perf.MachineLine;
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
 * Netty over rdma4j against Netty itself: one echo workload over the software device (polling and thread progress
 * modes) and over Netty's NIO and epoll transports on loopback, printed as one table with every figure over
 * epoll's (NIO's where epoll cannot load).
 * <p>
 * Each transport gets a fresh server JVM and a fresh client JVM ({@link EchoServer}, {@link EchoClient}): a
 * soft device's progress mode is a per-process setting, a server and a client in one JVM would share its device,
 * its progress thread and its garbage collector, and two processes are what a user of the transport runs. The
 * driver itself only starts them, waits and prints.
 */
@Command(name = "bench-netty", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Netty's echo over rdma4j (soft device, progress polling and thread) and over",
        "Netty's NIO and epoll transports on loopback: ping-pong p50/p99 on one connection,",
        "then the pipelined rate of several; server and client in JVMs of their own.",
        "x = figure / epoll's (NIO's without epoll): above 1 is slower for p50 and p99,",
        "below 1 is slower for req/s."})
public final class NettyBench implements Callable<Integer>
{
    private static final Pattern LISTENING = Pattern.compile("listening (\\d+)");
    private static final Pattern RESULT = Pattern.compile(
        "result p50_us ([\\d.]+) p99_us ([\\d.]+) req_per_s ([\\d.]+)");
    /** Settings the driver forwards to its children, beside the two it sets per transport. */
    private static final String SETTING_PREFIX = "rdma4j.";

    @Option(names = {"-s", "--size"}, defaultValue = "64", description = "request bytes, echoed whole (default 64)")
    private int size;

    /*
     * 100000, as bin/perf-targets warms its round trips: on 2 vCPUs the JIT still compiles the device's and
     * Netty's paths (a few hundred methods a second) after 20000 exchanges, and a compiler thread that takes one of
     * the two cores from four busy threads makes the p99 (2026-12-03, EPYC: rdma4j's p99 143-702 us after 20000,
     * 57-68 us after 100000; epoll's 83-89 us and 102-116 us)
     */
    @Option(names = "--warmup", defaultValue = "100000", description = "ping-pong exchanges before measuring "
        + "(default 100000: the JIT's compiling is over by then on 2 cores)")
    private int warmup;

    @Option(names = {"-n", "--exchanges"}, defaultValue = "20000", description = "ping-pong exchanges measured "
        + "(default 20000)")
    private int exchanges;

    @Option(names = {"-c", "--connections"}, defaultValue = "4", description = "connections of the pipelined rate "
        + "(default 4)")
    private int connections;

    @Option(names = {"-w", "--window"}, defaultValue = "16", description = "requests outstanding per connection "
        + "(default 16)")
    private int window;

    @Option(names = "--rate-warmup-ms", defaultValue = "1000", description = "pipelined warm-up in ms "
        + "(default 1000)")
    private long rateWarmupMillis;

    @Option(names = "--rate-ms", defaultValue = "3000", description = "pipelined measurement in ms (default 3000)")
    private long rateMillis;

    @Option(names = "--threads", defaultValue = "1", description = "event loop threads of each side (default 1)")
    private int threads;

    @Option(names = {"-t", "--transports"}, split = ",", defaultValue = "rdma-polling,rdma-thread,nio,epoll",
        description = "transports, in order: rdma-polling, rdma-thread, nio, epoll (default all four)")
    private List<String> transports;

    @Option(names = "--network", defaultValue = "127.0.0", description = "the first three octets of the loopback "
        + "addresses (default 127.0.0)")
    private String network;

    @Option(names = "--first-host", defaultValue = "140", description = "last octet of the first address; each "
        + "transport takes two from there, its server's and its client's (default 140)")
    private int firstHost;

    @Option(names = "--idle", defaultValue = "0", description = "instead of the echo: the server's CPU while this "
        + "many connections to it stay idle for --idle-seconds (the issue's idle target: 100 for 10 s)")
    private int idle;

    @Option(names = "--idle-seconds", defaultValue = "10", description = "how long the idle connections are held")
    private int idleSeconds;

    @Option(names = "--timeout", defaultValue = "120", description = "seconds a phase of one transport may take "
        + "(default 120)")
    private int timeoutSeconds;

    private final PrintStream out;

    /**
     * @param out where the progress and the table go.
     */
    public NettyBench(final PrintStream out)
    {
        this.out = out;
    }

    /**
     * @param args the command line.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new NettyBench(System.out)).execute(args));
    }

    /**
     * @return 0 if every transport that could run produced its row, 1 otherwise.
     */
    @Override
    public Integer call() throws InterruptedException
    {
        final List<Transport> chosen = transports.stream().map(Transport::of).toList();
        out.println(MachineLine.current().text());
        out.printf(Locale.ROOT, "# bench-netty: echo of %d B requests; server and client in a JVM each per " +
            "transport, %d event loop thread(s) each%n", size, threads);
        out.printf(Locale.ROOT, "# ping-pong: 1 connection, %d exchanges after %d warm-up; rate: %d connections x " +
            "%d outstanding, %d ms after %d ms warm-up%n", exchanges, warmup, connections, window, rateMillis,
            rateWarmupMillis);
        out.flush();
        if (idle > 0)
        {
            return idleCost(chosen);
        }
        final List<Result> results = new ArrayList<>();
        for (int i = 0; i < chosen.size(); i++)
        {
            final Transport transport = chosen.get(i);
            final String why = transport.unavailableReason();
            if (why != null)
            {
                out.printf(Locale.ROOT, "# %s: skipped, %s%n", transport.key(), why);
                results.add(Result.missing(transport, "skipped: " + why));
                continue;
            }
            out.printf(Locale.ROOT, "# %s: running ...%n", transport.key());
            out.flush();
            final Result result = run(transport, host(2 * i), host(2 * i + 1));
            results.add(result);
        }
        final Result reference = reference(results);
        out.println();
        out.printf(Locale.ROOT, "# x = figure / %s's (p50, p99: above 1 is slower; req/s: below 1 is slower)%n",
            reference == null ? "nobody" : reference.transport().key());
        out.println(Result.HEAD);
        for (final Result result : results)
        {
            out.println(result.format(reference));
        }
        out.println("# done, load " + MachineLine.current().load());
        out.flush();
        return results.stream().allMatch(r -> r.ok() || r.note().startsWith("skipped")) ? 0 : 1;
    }

    /**
     * For each transport: a server, a client holding {@link #idle} idle connections to it, and the server's CPU
     * time (user and system, all its threads) over {@link #idleSeconds}, as a share of one core.
     */
    private int idleCost(final List<Transport> chosen) throws InterruptedException
    {
        out.printf(Locale.ROOT, "# idle: %d connections held for %d s; server CPU in %% of one core%n", idle,
            idleSeconds);
        int failed = 0;
        for (int i = 0; i < chosen.size(); i++)
        {
            final Transport transport = chosen.get(i);
            if (transport.unavailableReason() != null)
            {
                out.printf(Locale.ROOT, "# %s: skipped, %s%n", transport.key(), transport.unavailableReason());
                continue;
            }
            final String serverHost = host(2 * i);
            try (Child server = Child.start(jvmOptions(transport, serverHost), EchoServer.class.getName(),
                List.of(transport.key(), serverHost, String.valueOf(threads))))
            {
                if (!server.awaitLine(l -> LISTENING.matcher(l).matches(), timeoutSeconds, TimeUnit.SECONDS))
                {
                    out.printf(Locale.ROOT, "%-46s FAILED: the server did not listen%n", transport.label());
                    failed++;
                    continue;
                }
                final String port = server.lines().stream().map(LISTENING::matcher).filter(Matcher::matches)
                    .findFirst().orElseThrow().group(1);
                final List<String> args = new ArrayList<>(clientArgs(transport, serverHost, port, host(2 * i + 1)));
                args.addAll(List.of("--idle", String.valueOf(idle)));
                try (Child client = Child.start(jvmOptions(transport, host(2 * i + 1)), EchoClient.class.getName(),
                    args))
                {
                    if (!client.awaitLine(l -> l.startsWith("idle connected"), timeoutSeconds, TimeUnit.SECONDS))
                    {
                        out.printf(Locale.ROOT, "%-46s FAILED: %s%n", transport.label(), client.lastLine());
                        failed++;
                        continue;
                    }
                    // the connections' set-up done: what follows is the idle cost alone
                    TimeUnit.SECONDS.sleep(1);
                    final long before = cpuTicks(server.pid());
                    final long start = System.nanoTime();
                    TimeUnit.SECONDS.sleep(idleSeconds);
                    final long ticks = cpuTicks(server.pid()) - before;
                    final double seconds = (System.nanoTime() - start) / 1e9;
                    out.printf(Locale.ROOT, "%-46s %6.2f %% of a core (%d ticks in %.1f s, %d connections)%n",
                        transport.label(), 100.0 * ticks / CLOCK_TICKS / seconds, ticks, seconds, idle);
                    out.flush();
                    client.endInput();
                    client.await(timeoutSeconds, TimeUnit.SECONDS);
                }
                server.endInput();
                server.await(timeoutSeconds, TimeUnit.SECONDS);
            }
            catch (final java.io.IOException ex)
            {
                out.printf(Locale.ROOT, "%-46s FAILED: %s%n", transport.label(), ex);
                failed++;
            }
        }
        out.println("# done, load " + MachineLine.current().load());
        return failed == 0 ? 0 : 1;
    }

    /** Linux's USER_HZ, which /proc reports CPU times in: 100 on every architecture Linux runs on today. */
    private static final int CLOCK_TICKS = 100;

    /**
     * @return a process's user and system time so far, in clock ticks, from {@code /proc/PID/stat}; -1 where the
     *     file cannot be read (not Linux).
     */
    private static long cpuTicks(final long pid)
    {
        try
        {
            final String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", pid + "", "stat"));
            // fields after the command, which may hold spaces, end at the last ')'
            final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    private String host(final int offset)
    {
        return network + "." + (firstHost + offset);
    }

    /**
     * @return epoll's row when it has figures, else NIO's, else null.
     */
    private static Result reference(final List<Result> results)
    {
        for (final Transport wanted : List.of(Transport.EPOLL, Transport.NIO))
        {
            for (final Result result : results)
            {
                if (result.transport() == wanted && result.ok())
                {
                    return result;
                }
            }
        }
        return null;
    }

    private Result run(final Transport transport, final String serverHost, final String clientHost)
        throws InterruptedException
    {
        try (Child server = Child.start(jvmOptions(transport, serverHost), EchoServer.class.getName(),
            List.of(transport.key(), serverHost, String.valueOf(threads))))
        {
            if (!server.awaitLine(l -> LISTENING.matcher(l).matches(), timeoutSeconds, TimeUnit.SECONDS))
            {
                return Result.missing(transport, "FAILED: the server did not listen: " + server.lastLine());
            }
            final String port = server.lines().stream().map(LISTENING::matcher).filter(Matcher::matches)
                .findFirst().orElseThrow().group(1);
            final Result result;
            try (Child client = Child.start(jvmOptions(transport, clientHost), EchoClient.class.getName(),
                clientArgs(transport, serverHost, port, clientHost)))
            {
                result = result(transport, client, client.await(clientDeadlineSeconds(), TimeUnit.SECONDS));
            }
            server.endInput();
            if (server.await(timeoutSeconds, TimeUnit.SECONDS) != 0 && result.ok())
            {
                out.printf(Locale.ROOT, "# %s: the server did not stop cleanly: %s%n", transport.key(),
                    server.lastLine());
            }
            return result;
        }
        catch (final IOException ex)
        {
            return Result.missing(transport, "FAILED: " + ex);
        }
    }

    private long clientDeadlineSeconds()
    {
        // each phase has its own timeout inside the client; this catches a client that hangs outside them
        return 3L * timeoutSeconds + TimeUnit.MILLISECONDS.toSeconds(rateWarmupMillis + rateMillis);
    }

    private static Result result(final Transport transport, final Child client, final int status)
    {
        if (status != 0)
        {
            return Result.missing(transport, "FAILED: client exit " + status + ": " +
                client.failureNote(transport.key() + "-client"));
        }
        for (final String line : client.lines())
        {
            final Matcher m = RESULT.matcher(line);
            if (m.matches())
            {
                return new Result(transport, Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)),
                    Double.parseDouble(m.group(3)), "");
            }
        }
        return Result.missing(transport, "FAILED: no result line: " + client.lastLine());
    }

    private List<String> clientArgs(final Transport transport, final String serverHost, final String port,
        final String clientHost)
    {
        return List.of("--transport", transport.key(), "--server", serverHost, "--port", port, "--local", clientHost,
            "--size", String.valueOf(size), "--warmup", String.valueOf(warmup), "--exchanges",
            String.valueOf(exchanges), "--connections", String.valueOf(connections), "--window",
            String.valueOf(window), "--rate-warmup-ms", String.valueOf(rateWarmupMillis), "--rate-ms",
            String.valueOf(rateMillis), "--threads", String.valueOf(threads), "--timeout",
            String.valueOf(timeoutSeconds));
    }

    /**
     * The options of every child: native access (the soft device's Linux socket, epoll's library), no leak
     * sampling (a cost of its own in every row), the rdma4j settings this JVM was given (the same-host inboxes'
     * directory, say), and the transport's own.
     */
    private static List<String> jvmOptions(final Transport transport, final String host)
    {
        final List<String> options = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED",
            "-Dio.netty.leakDetection.level=disabled"));
        final List<String> own = transport.jvmOptions(host);
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(SETTING_PREFIX))
            .filter(k -> own.stream().noneMatch(o -> o.startsWith("-D" + k + "=")))
            .sorted().forEach(k -> options.add("-D" + k + "=" + System.getProperty(k)));
        options.addAll(own);
        return options;
    }
}
