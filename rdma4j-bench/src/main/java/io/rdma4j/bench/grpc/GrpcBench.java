package io.rdma4j.bench.grpc;

import io.rdma4j.bench.compare.Child;
import io.rdma4j.bench.netty.Transport;
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
 * gRPC-Java's Netty transport over rdma4j against the same over Netty's own transports: unary calls (p50/p99)
 * and a server stream (messages a second) over the software device (polling and thread progress modes) and over
 * NIO and epoll on loopback, printed as one table with the figures over epoll's (NIO's where epoll cannot load).
 * <p>
 * The conventions are {@code bin/bench-netty}'s ({@link io.rdma4j.bench.netty.NettyBench}): the machine line
 * first, each transport's server ({@link GrpcServer}) and client ({@link GrpcClient}) in a fresh JVM each,
 * warm-up before measuring, the ratios taken within the run, the load average again at the end.
 */
@Command(name = "bench-grpc", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"gRPC-Java (grpc-netty) over rdma4j (soft device, progress polling and thread) and over",
        "Netty's NIO and epoll transports on loopback: unary call p50/p99 on one channel, then",
        "the messages a second of one server stream; server and client in JVMs of their own.",
        "x = figure / epoll's (NIO's without epoll): above 1 is slower for p50 and p99,",
        "below 1 is slower for stream/s."})
public final class GrpcBench implements Callable<Integer>
{
    private static final Pattern LISTENING = Pattern.compile("listening (\\d+)");
    private static final Pattern RESULT = Pattern.compile("result first_ms ([\\d.]+) unary_p50_us ([\\d.]+) " +
        "unary_p99_us ([\\d.]+) stream_msg_per_s ([\\d.]+) stream_messages (\\d+) stream_bytes (\\d+) " +
        "unary_calls (\\d+)");
    /** Settings the driver forwards to its children, beside the two it sets per transport. */
    private static final String SETTING_PREFIX = "rdma4j.";

    @Option(names = {"-s", "--size"}, defaultValue = "64", description = "bytes of a request (echoed) and of a " +
        "streamed message (default 64)")
    private int size;

    /*
     * 50000: on 2 vCPUs the JIT still compiles gRPC's, Netty's and the device's paths after 10000 calls, and the
     * compiler threads then take a core from the busy ones (2026-12-03, EPYC: rdma4j's unary p50 70-110 us after
     * 10000, 13 us after 50000; epoll's 54-61 and 88-92 us). Netty's bench warms up 100000 exchanges so too
     */
    @Option(names = "--warmup", defaultValue = "50000", description = "unary calls before measuring (default 50000: " +
        "the JIT's compiling is over by then on 2 cores)")
    private int warmup;

    @Option(names = {"-n", "--calls"}, defaultValue = "20000", description = "unary calls measured (default 20000)")
    private int calls;

    /**
     * 500 000: the stream's steady state. After 20 000 the measured 100 000 were still mostly the JIT's (the
     * compiler threads took 7 s of CPU during them on 2 cores), and read 0.36-0.68x epoll's where a 5 M stream ran
     * 1.08x (2026-12-03).
     */
    @Option(names = "--stream-warmup", defaultValue = "500000", description = "messages of the warm-up stream " +
        "(default 500000: the JIT's compiling of the stream's path is over by then on 2 cores)")
    private long streamWarmup;

    @Option(names = "--stream", defaultValue = "1000000", description = "messages of the measured stream " +
        "(default 1000000)")
    private long streamMessages;

    @Option(names = "--threads", defaultValue = "1", description = "event loop threads of each side (default 1)")
    private int threads;

    @Option(names = "--executor", defaultValue = "direct", description = "where the calls' callbacks run: direct " +
        "(on the event loop, gRPC's directExecutor(), as gRPC's own benchmarks run) or default (gRPC's thread " +
        "pool, an application's default); default direct")
    private String executor;

    @Option(names = {"-t", "--transports"}, split = ",", defaultValue = "rdma-polling,rdma-thread,nio,epoll",
        description = "transports, in order: rdma-polling, rdma-thread, nio, epoll (default all four)")
    private List<String> transports;

    @Option(names = "--network", defaultValue = "127.0.0", description = "the first three octets of the loopback "
        + "addresses (default 127.0.0)")
    private String network;

    @Option(names = "--first-host", defaultValue = "150", description = "last octet of the first address; each "
        + "transport takes two from there, its server's and its client's (default 150)")
    private int firstHost;

    @Option(names = "--timeout", defaultValue = "120", description = "seconds a phase of one transport may take "
        + "(default 120)")
    private int timeoutSeconds;

    private final PrintStream out;

    /**
     * @param out where the progress and the table go.
     */
    public GrpcBench(final PrintStream out)
    {
        this.out = out;
    }

    /**
     * @param args the command line.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new GrpcBench(System.out)).execute(args));
    }

    /**
     * @return 0 if every transport that could run produced its row, 1 otherwise; 2 for an executor that is neither.
     */
    @Override
    public Integer call() throws InterruptedException
    {
        if (!executor.equals("direct") && !executor.equals("default"))
        {
            out.println("bench-grpc: --executor is direct or default, not '" + executor + "'");
            return 2;
        }
        final List<Transport> chosen = transports.stream().map(Transport::of).toList();
        out.println(MachineLine.current().text());
        out.printf(Locale.ROOT, "# bench-grpc: gRPC-Java over grpc-netty, %d B messages; server and client in a JVM " +
            "each per transport, %d event loop thread(s) each, %s executor%n", size, threads, executor);
        out.printf(Locale.ROOT, "# unary: 1 channel, %d calls one at a time after %d warm-up; stream: %d messages " +
            "after a warm-up stream of %d%n", calls, warmup, streamMessages, streamWarmup);
        out.flush();
        final List<GrpcResult> results = new ArrayList<>();
        for (int i = 0; i < chosen.size(); i++)
        {
            final Transport transport = chosen.get(i);
            final String why = transport.unavailableReason();
            if (why != null)
            {
                out.printf(Locale.ROOT, "# %s: skipped, %s%n", transport.key(), why);
                results.add(GrpcResult.missing(transport, "skipped: " + why));
                continue;
            }
            out.printf(Locale.ROOT, "# %s: running ...%n", transport.key());
            out.flush();
            results.add(run(transport, host(2 * i), host(2 * i + 1)));
        }
        final GrpcResult reference = reference(results);
        out.println();
        out.printf(Locale.ROOT, "# x = figure / %s's (p50, p99: above 1 is slower; stream/s: below 1 is slower); " +
            "first ms: the first call, connecting included%n", reference == null ? "nobody" :
            reference.transport().key());
        out.println(GrpcResult.HEAD);
        for (final GrpcResult result : results)
        {
            out.println(result.format(reference));
        }
        out.println("# done, load " + MachineLine.current().load());
        out.flush();
        return results.stream().allMatch(r -> r.ok() || r.note().startsWith("skipped")) ? 0 : 1;
    }

    private String host(final int offset)
    {
        return network + "." + (firstHost + offset);
    }

    /**
     * @return epoll's row when it has figures, else NIO's, else null.
     */
    private static GrpcResult reference(final List<GrpcResult> results)
    {
        for (final Transport wanted : List.of(Transport.EPOLL, Transport.NIO))
        {
            for (final GrpcResult result : results)
            {
                if (result.transport() == wanted && result.ok())
                {
                    return result;
                }
            }
        }
        return null;
    }

    private GrpcResult run(final Transport transport, final String serverHost, final String clientHost)
        throws InterruptedException
    {
        try (Child server = Child.start(jvmOptions(transport, serverHost), GrpcServer.class.getName(),
            List.of(transport.key(), serverHost, String.valueOf(threads), executor)))
        {
            if (!server.awaitLine(l -> LISTENING.matcher(l).matches(), timeoutSeconds, TimeUnit.SECONDS))
            {
                return GrpcResult.missing(transport, "FAILED: the server did not listen: " + server.lastLine());
            }
            final String port = server.lines().stream().map(LISTENING::matcher).filter(Matcher::matches)
                .findFirst().orElseThrow().group(1);
            final GrpcResult result;
            try (Child client = Child.start(jvmOptions(transport, clientHost), GrpcClient.class.getName(),
                clientArgs(transport, serverHost, port, clientHost)))
            {
                // each phase has its own timeout inside the client; this catches a client that hangs outside them
                result = result(transport, client, client.await(5L * timeoutSeconds, TimeUnit.SECONDS));
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
            return GrpcResult.missing(transport, "FAILED: " + ex);
        }
    }

    /**
     * @return the client's row, or a failure when it exited badly, printed no result, or reports other counts than
     *     were asked for (calls recorded, messages and bytes streamed).
     */
    private GrpcResult result(final Transport transport, final Child client, final int status)
    {
        if (status != 0)
        {
            return GrpcResult.missing(transport, "FAILED: client exit " + status + ": " +
                client.failureNote(transport.key() + "-client"));
        }
        for (final String line : client.lines())
        {
            final Matcher m = RESULT.matcher(line);
            if (!m.matches())
            {
                continue;
            }
            final long messages = Long.parseLong(m.group(5));
            final long bytes = Long.parseLong(m.group(6));
            final long recorded = Long.parseLong(m.group(7));
            if (messages != streamMessages || bytes != streamMessages * size || recorded != calls)
            {
                return GrpcResult.missing(transport, String.format(Locale.ROOT, "FAILED: asked for %d calls and " +
                    "%d messages of %d B, got %d calls and %d messages, %d B", calls, streamMessages, size, recorded,
                    messages, bytes));
            }
            return new GrpcResult(transport, Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)),
                Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4)), "");
        }
        return GrpcResult.missing(transport, "FAILED: no result line: " + client.lastLine());
    }

    private List<String> clientArgs(final Transport transport, final String serverHost, final String port,
        final String clientHost)
    {
        return List.of("--transport", transport.key(), "--server", serverHost, "--port", port, "--local", clientHost,
            "--size", String.valueOf(size), "--warmup", String.valueOf(warmup), "--calls", String.valueOf(calls),
            "--stream-warmup", String.valueOf(streamWarmup), "--stream", String.valueOf(streamMessages),
            "--threads", String.valueOf(threads), "--executor", executor, "--timeout",
            String.valueOf(timeoutSeconds));
    }

    /**
     * The options of every child, as bench-netty's: native access, no leak sampling, the rdma4j settings this JVM
     * was given, and the transport's own.
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
