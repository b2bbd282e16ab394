package io.rdma4j.bench.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Large messages through an {@link EchoServer} (issue 43, item 5): the time one write of {@code BIG} bytes takes
 * to come back whole, then the echoed bytes a second of a stream of {@code TOTAL} bytes in writes of
 * {@code WRITE} bytes, written while the channel is writable. One connection, one event loop thread; each figure
 * the best of {@code RUNS} after one run as warm-up.
 * <p>
 * Usage: {@code BulkClient TRANSPORT SERVER PORT LOCAL BIG WRITE TOTAL RUNS}; it prints
 * {@code result big_ms M stream_mb_per_s R}.
 */
public final class BulkClient
{
    private BulkClient()
    {
    }

    /**
     * @param args {@code TRANSPORT SERVER PORT LOCAL BIG WRITE TOTAL RUNS}.
     * @throws Exception if the connection fails.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length != 8)
        {
            System.err.println("usage: BulkClient TRANSPORT SERVER PORT LOCAL BIG WRITE TOTAL RUNS");
            System.exit(2);
        }
        final Transport kind = Transport.of(args[0]);
        final InetSocketAddress remote = new InetSocketAddress(InetAddress.getByName(args[1]),
            Integer.parseInt(args[2]));
        final InetSocketAddress from = new InetSocketAddress(InetAddress.getByName(args[3]), 0);
        final int big = Integer.parseInt(args[4]);
        final int write = Integer.parseInt(args[5]);
        final long total = Long.parseLong(args[6]);
        final int runs = Integer.parseInt(args[7]);
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, kind.ioHandlerFactory());
        try
        {
            double bestBigMs = Double.MAX_VALUE;
            double bestRate = 0;
            for (int run = 0; run <= runs; run++)
            {
                final double bigMs = oneRun(kind, group, remote, from, big, big, big) / 1e6;
                final double streamNs = oneRun(kind, group, remote, from, write, total, 64L * write);
                final double rate = total / (streamNs / 1e9) / 1e6;
                System.out.printf(Locale.ROOT, "run %d big_ms %.1f stream_mb_per_s %.1f%n", run, bigMs, rate);
                if (run > 0)
                {
                    bestBigMs = Math.min(bestBigMs, bigMs);
                    bestRate = Math.max(bestRate, rate);
                }
            }
            System.out.printf(Locale.ROOT, "result big_ms %.1f stream_mb_per_s %.1f%n", bestBigMs, bestRate);
        }
        finally
        {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    /** @return ns from the first write until {@code total} bytes came back. */
    private static long oneRun(final Transport kind, final EventLoopGroup group, final InetSocketAddress remote,
        final InetSocketAddress from, final int write, final long total, final long window) throws Exception
    {
        final Streamer streamer = new Streamer(write, total, window);
        final Bootstrap bootstrap = new Bootstrap().group(group).channel(kind.channel()).handler(streamer);
        if (!kind.rdma())
        {
            bootstrap.option(ChannelOption.TCP_NODELAY, true);
        }
        final Channel channel = bootstrap.connect(remote, from).sync().channel();
        try
        {
            return streamer.done.get(120, TimeUnit.SECONDS);
        }
        finally
        {
            channel.close().sync();
        }
    }

    /** Writes {@code total} bytes in writes of {@code write}, at most {@code window} bytes not echoed yet. */
    private static final class Streamer extends ChannelInboundHandlerAdapter
    {
        final CompletableFuture<Long> done = new CompletableFuture<>();
        private final int write;
        private final long total;
        private final long window;
        private long sent;
        private long echoed;
        private long start;

        Streamer(final int write, final long total, final long window)
        {
            this.write = write;
            this.total = total;
            this.window = window;
        }

        @Override
        public void channelActive(final ChannelHandlerContext ctx)
        {
            start = System.nanoTime();
            pump(ctx);
        }

        private void pump(final ChannelHandlerContext ctx)
        {
            boolean wrote = false;
            while (sent < total && sent - echoed < window && ctx.channel().isWritable())
            {
                final int length = (int)Math.min(write, total - sent);
                final ByteBuf buf = ctx.alloc().directBuffer(length);
                buf.writerIndex(length);
                ctx.write(buf, ctx.voidPromise());
                sent += length;
                wrote = true;
            }
            if (wrote)
            {
                ctx.flush();
            }
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            final ByteBuf buf = (ByteBuf)msg;
            echoed += buf.readableBytes();
            buf.release();
            if (echoed >= total)
            {
                done.complete(System.nanoTime() - start);
                return;
            }
            pump(ctx);
        }

        @Override
        public void channelWritabilityChanged(final ChannelHandlerContext ctx)
        {
            pump(ctx);
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            done.completeExceptionally(cause);
            ctx.close();
        }
    }
}
