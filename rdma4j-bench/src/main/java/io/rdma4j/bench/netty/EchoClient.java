package io.rdma4j.bench.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client process of one row: first the ping-pong on one connection ({@link PingPong}), then the pipelined
 * rate on {@code connections} connections ({@link Pipelined}), all on {@code threads} event loop threads. It
 * prints one line, {@code result p50_us P p99_us P req_per_s R}, which {@link NettyBench} reads.
 */
@Command(name = "EchoClient", mixinStandardHelpOptions = true, description = "The client side of one bench-netty row.")
public final class EchoClient implements Callable<Integer>
{
    /** Round trips up to a minute are recorded at three significant digits. */
    private static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(1);

    @Option(names = "--transport", required = true, description = "rdma-polling, rdma-thread, nio or epoll")
    private String transport;

    @Option(names = "--server", required = true, description = "the server's address")
    private String server;

    @Option(names = "--port", required = true, description = "the server's port")
    private int port;

    @Option(names = "--local", required = true, description = "this side's address")
    private String local;

    @Option(names = "--size", defaultValue = "64", description = "request bytes")
    private int size;

    @Option(names = "--warmup", defaultValue = "20000", description = "ping-pong exchanges before recording")
    private int warmup;

    @Option(names = "--exchanges", defaultValue = "20000", description = "ping-pong exchanges recorded")
    private int exchanges;

    @Option(names = "--connections", defaultValue = "4", description = "connections of the pipelined rate")
    private int connections;

    @Option(names = "--window", defaultValue = "16", description = "requests outstanding per connection")
    private int window;

    @Option(names = "--rate-warmup-ms", defaultValue = "1000", description = "pipelined warm-up in ms")
    private long rateWarmupMillis;

    @Option(names = "--rate-ms", defaultValue = "3000", description = "pipelined measurement in ms")
    private long rateMillis;

    @Option(names = "--threads", defaultValue = "1", description = "event loop threads")
    private int threads;

    @Option(names = "--timeout", defaultValue = "120", description = "seconds either phase may take")
    private int timeoutSeconds;

    @Option(names = "--idle", defaultValue = "0", description = "instead of the echo: open this many connections, "
        + "say 'idle connected', hold them unused until standard input ends, then close them")
    private int idle;

    private EchoClient()
    {
    }

    /**
     * @param args the options.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new EchoClient()).execute(args));
    }

    @Override
    public Integer call() throws Exception
    {
        final Transport kind = Transport.of(transport);
        final InetSocketAddress remote = new InetSocketAddress(InetAddress.getByName(server), port);
        final InetSocketAddress from = new InetSocketAddress(InetAddress.getByName(local), 0);
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, kind.ioHandlerFactory());
        if (idle > 0)
        {
            try
            {
                holdIdle(kind, group, remote, from);
                return 0;
            }
            finally
            {
                group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
            }
        }
        try
        {
            final Histogram histogram = pingPong(kind, group, remote, from);
            final double rate = rate(kind, group, remote, from);
            System.out.printf(Locale.ROOT, "result p50_us %.2f p99_us %.2f req_per_s %.0f%n",
                histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0, rate);
            return 0;
        }
        finally
        {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private Histogram pingPong(final Transport kind, final EventLoopGroup group, final InetSocketAddress remote,
        final InetSocketAddress from) throws Exception
    {
        final PingPong handler = new PingPong(size, warmup, exchanges, new Histogram(HIGHEST_NANOS, 3));
        final Channel channel = connect(kind, group, remote, from, handler);
        try
        {
            return handler.done().get(timeoutSeconds, TimeUnit.SECONDS);
        }
        finally
        {
            channel.close().sync();
        }
    }

    /**
     * @return echoes per second over the measured span, all connections together.
     */
    private double rate(final Transport kind, final EventLoopGroup group, final InetSocketAddress remote,
        final InetSocketAddress from) throws Exception
    {
        final AtomicLong completed = new AtomicLong();
        final List<Pipelined> handlers = new ArrayList<>();
        final List<Channel> channels = new ArrayList<>();
        try
        {
            for (int i = 0; i < connections; i++)
            {
                final Pipelined handler = new Pipelined(size, window, completed);
                handlers.add(handler);
                channels.add(connect(kind, group, remote, from, handler));
            }
            // the windows fill as each connection becomes active; the warm-up span covers that
            TimeUnit.MILLISECONDS.sleep(rateWarmupMillis);
            final long startCount = completed.get();
            final long start = System.nanoTime();
            TimeUnit.MILLISECONDS.sleep(rateMillis);
            final long count = completed.get() - startCount;
            final long elapsed = System.nanoTime() - start;
            handlers.forEach(Pipelined::stop);
            CompletableFuture.allOf(handlers.stream().map(Pipelined::drained).toArray(CompletableFuture[]::new))
                .get(timeoutSeconds, TimeUnit.SECONDS);
            return count * 1e9 / elapsed;
        }
        finally
        {
            for (final Channel channel : channels)
            {
                channel.close().sync();
            }
        }
    }

    /**
     * Open {@link #idle} connections that send nothing, say so, and keep them until the parent ends our input: the
     * parent reads the server's CPU time meanwhile.
     */
    private void holdIdle(final Transport kind, final EventLoopGroup group, final InetSocketAddress remote,
        final InetSocketAddress from) throws Exception
    {
        final List<Channel> channels = new ArrayList<>();
        try
        {
            for (int i = 0; i < idle; i++)
            {
                channels.add(connect(kind, group, remote, from, new ChannelInboundHandlerAdapter()));
            }
            System.out.println("idle connected " + channels.size());
            System.out.flush();
            while (System.in.read() >= 0)
            {
                // the parent ends our input when it has measured
            }
        }
        finally
        {
            for (final Channel channel : channels)
            {
                channel.close().sync();
            }
        }
    }

    private Channel connect(final Transport kind, final EventLoopGroup group, final InetSocketAddress remote,
        final InetSocketAddress from, final ChannelHandler handler) throws InterruptedException
    {
        final Bootstrap bootstrap = new Bootstrap().group(group).channel(kind.channel()).handler(handler);
        if (!kind.rdma())
        {
            bootstrap.option(ChannelOption.TCP_NODELAY, true);
        }
        return bootstrap.connect(remote, from).sync().channel();
    }
}
