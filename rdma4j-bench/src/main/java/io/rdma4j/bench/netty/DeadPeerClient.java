package io.rdma4j.bench.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.netty.RdmaChannelOption;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An idle client with {@code SO_KEEPALIVE} on (issue 43, item 4): it connects to an {@link EchoServer}, says
 * {@code connected}, sends nothing, and says {@code closed CAUSE} once its channel goes inactive. Whoever started
 * it kills the server's process and times the gap to that line ({@link Habits}).
 * <p>
 * The keepalive settings are given once for both kinds: the silence before the first probe ({@code IDLE_MS}), and
 * for TCP the probes' interval and count ({@code TCP_KEEPINTVL}, {@code TCP_KEEPCNT}, epoll only), which should be
 * what rdma4j's probe does on its own: one SEND retried {@link RdmaChannelOption#RETRY_COUNT} times, each after
 * the connection manager's ACK timeout.
 * <p>
 * Usage: {@code DeadPeerClient TRANSPORT SERVER PORT LOCAL IDLE_MS TCP_INTERVAL_S TCP_COUNT}.
 */
public final class DeadPeerClient
{
    private DeadPeerClient()
    {
    }

    /**
     * @param args {@code TRANSPORT SERVER PORT LOCAL IDLE_MS TCP_INTERVAL_S TCP_COUNT}.
     * @throws Exception if the connection cannot be made.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length != 7)
        {
            System.err.println("usage: DeadPeerClient TRANSPORT SERVER PORT LOCAL IDLE_MS TCP_INTERVAL_S TCP_COUNT");
            System.exit(2);
        }
        final Transport kind = Transport.of(args[0]);
        final InetSocketAddress remote = new InetSocketAddress(InetAddress.getByName(args[1]),
            Integer.parseInt(args[2]));
        final InetSocketAddress from = new InetSocketAddress(InetAddress.getByName(args[3]), 0);
        final int idleMs = Integer.parseInt(args[4]);
        final int intervalS = Integer.parseInt(args[5]);
        final int count = Integer.parseInt(args[6]);
        final AtomicReference<Throwable> cause = new AtomicReference<>();
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, kind.ioHandlerFactory());
        try
        {
            final Bootstrap bootstrap = new Bootstrap().group(group).channel(kind.channel())
                .option(ChannelOption.SO_KEEPALIVE, true).handler(new ChannelInboundHandlerAdapter()
                {
                    @Override
                    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable failure)
                    {
                        cause.compareAndSet(null, failure);
                        ctx.close();
                    }
                });
            if (kind.rdma())
            {
                bootstrap.option(RdmaChannelOption.KEEPALIVE_IDLE_MILLIS, idleMs);
            }
            else if (kind == Transport.EPOLL)
            {
                // TCP's keepalive counts in whole seconds
                EpollSupport.keepAlive(bootstrap, Math.max(1, (idleMs + 999) / 1000), intervalS, count);
            }
            final Channel channel = bootstrap.connect(remote, from).sync().channel();
            System.out.println("connected");
            System.out.flush();
            channel.closeFuture().await(10, TimeUnit.MINUTES);
            final Throwable failure = cause.get();
            System.out.println("closed " + (failure == null ? "(no exception: the peer closed)" :
                failure.getClass().getSimpleName() + ": " + failure.getMessage()));
            System.out.flush();
        }
        finally
        {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
