package io.rdma4j.bench.grpc;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.bench.netty.Transport;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * The client process of one row, on one channel: a first call (the connection's set-up included), then the
 * unary calls ({@link UnaryLoop}), then a warm-up stream and the measured one ({@link StreamRun}). It prints
 * {@code result first_ms F unary_p50_us P unary_p99_us P stream_msg_per_s R stream_messages N stream_bytes B},
 * which {@link GrpcBench} reads and checks against what it asked for.
 */
@Command(name = "GrpcClient", mixinStandardHelpOptions = true, description = "The client side of one bench-grpc row.")
public final class GrpcClient implements Callable<Integer>
{
    /** Calls up to a minute are recorded at three significant digits. */
    private static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(1);

    @Option(names = "--transport", required = true, description = "rdma-polling, rdma-thread, nio or epoll")
    private String transport;

    @Option(names = "--server", required = true, description = "the server's address")
    private String server;

    @Option(names = "--port", required = true, description = "the server's port")
    private int port;

    @Option(names = "--local", required = true, description = "this side's address")
    private String local;

    @Option(names = "--size", defaultValue = "64", description = "bytes of a request and of a streamed message")
    private int size;

    @Option(names = "--warmup", defaultValue = "10000", description = "unary calls before recording")
    private int warmup;

    @Option(names = "--calls", defaultValue = "20000", description = "unary calls recorded")
    private int calls;

    @Option(names = "--stream-warmup", defaultValue = "500000", description = "messages of the warm-up stream")
    private long streamWarmup;

    @Option(names = "--stream", defaultValue = "1000000", description = "messages of the measured stream")
    private long streamMessages;

    @Option(names = "--threads", defaultValue = "1", description = "event loop threads")
    private int threads;

    @Option(names = "--executor", defaultValue = "direct", description = "direct or default")
    private String executor;

    @Option(names = "--timeout", defaultValue = "120", description = "seconds each phase may take")
    private int timeoutSeconds;

    private GrpcClient()
    {
    }

    /**
     * @param args the options.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new GrpcClient()).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        final Transport kind = Transport.of(transport);
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, kind.ioHandlerFactory());
        final ManagedChannel channel = GrpcEnds.connect(kind, group,
            new InetSocketAddress(InetAddress.getByName(server), port), InetAddress.getByName(local),
            executor.equals("direct"));
        try
        {
            final long firstStart = System.nanoTime();
            final byte[] first = ClientCalls.blockingUnaryCall(channel, BenchService.ECHO,
                CallOptions.DEFAULT.withDeadlineAfter(timeoutSeconds, TimeUnit.SECONDS), new byte[size]);
            final double firstMillis = (System.nanoTime() - firstStart) / 1e6;
            if (first.length != size)
            {
                throw new IllegalStateException("the first call was answered with " + first.length + " bytes, not " +
                    size);
            }
            final Histogram histogram = new UnaryLoop(channel, size, warmup, calls, new Histogram(HIGHEST_NANOS, 3))
                .start().get(timeoutSeconds, TimeUnit.SECONDS);
            StreamRun.start(channel, streamWarmup, size).get(timeoutSeconds, TimeUnit.SECONDS);
            final StreamRun.Delivered stream = StreamRun.start(channel, streamMessages, size)
                .get(timeoutSeconds, TimeUnit.SECONDS);
            System.out.printf(Locale.ROOT, "result first_ms %.1f unary_p50_us %.2f unary_p99_us %.2f " +
                "stream_msg_per_s %.0f stream_messages %d stream_bytes %d unary_calls %d%n", firstMillis,
                histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
                stream.rate(), stream.messages(), stream.bytes(), histogram.getTotalCount());
            return 0;
        }
        finally
        {
            channel.shutdown();
            if (!channel.awaitTermination(10, TimeUnit.SECONDS))
            {
                channel.shutdownNow();
            }
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
