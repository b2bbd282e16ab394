package io.rdma4j.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.netty.example.RdmaEcho;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One task per loop watches its connections' credit timeouts: a connection with a short timeout on a loop that
 * already watches one with a long timeout is still closed in time, and the watch lets every connection go once
 * it closes.
 */
@Timeout(60)
class CreditWatchTest extends NettyTestBase
{
    private static final int CHUNK = 16 * 1024;

    /** Completes with what reaches exceptionCaught of the server's child. */
    private static final class Caught extends ChannelInboundHandlerAdapter
    {
        final CompletableFuture<Throwable> cause = new CompletableFuture<>();
        final CompletableFuture<Channel> active = new CompletableFuture<>();

        @Override
        public void channelActive(final ChannelHandlerContext ctx)
        {
            active.complete(ctx.channel());
            ctx.fireChannelActive();
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            this.cause.complete(cause);
        }
    }

    private static Channel echoServer(final MultiThreadIoEventLoopGroup group, final NettyFixture net,
        final int creditTimeoutMs, final Caught caught) throws InterruptedException
    {
        return new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
            .childOption(RdmaChannelOption.CREDIT_TIMEOUT_MILLIS, creditTimeoutMs)
            .childHandler(new io.netty.channel.ChannelInitializer<RdmaChannel>()
            {
                @Override
                protected void initChannel(final RdmaChannel ch)
                {
                    ch.pipeline().addLast(caught, new RdmaEcho.EchoHandler());
                }
            })
            .bind(new InetSocketAddress(net.serverHost, 0)).sync().channel();
    }

    @Test
    void aShortTimeoutOnALoopThatWatchesALongOneStillClosesItsConnectionAndTheWatchLetsGo() throws Exception
    {
        final MultiThreadIoEventLoopGroup one = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        try
        {
            // first a connection watched with a timeout of ten minutes, so that the loop's task looks every 150 s
            final Caught patient = new Caught();
            final Channel longServer = echoServer(one, net, 600_000, patient);
            final Channel bystander = net.connect((InetSocketAddress)longServer.localAddress(),
                new Collector(Integer.MAX_VALUE)).sync().channel();
            patient.active.get(10, TimeUnit.SECONDS);

            // then one with 300 ms, whose peer never reads: its echo starves of credits
            final Caught starved = new Caught();
            final Channel shortServer = echoServer(one, net, 300, starved);
            final Channel attacker = net.connect((InetSocketAddress)shortServer.localAddress(),
                new Collector(Integer.MAX_VALUE), Map.of(ChannelOption.AUTO_READ, false)).sync().channel();
            for (int i = 0; i < 256; i++)
            {
                attacker.writeAndFlush(Unpooled.wrappedBuffer(new byte[CHUNK]));
            }
            final Throwable cause = starved.cause.get(20, TimeUnit.SECONDS);
            assertInstanceOf(RdmaLimitException.class, cause, "closed for the credits, long before 150 s");
            assertTrue(cause.getMessage().contains("CREDIT_TIMEOUT_MILLIS 300"), cause.getMessage());
            final Channel child = starved.active.get(1, TimeUnit.SECONDS);
            assertTrue(child.closeFuture().await(10, TimeUnit.SECONDS));

            final RdmaIoHandler handler = ((RdmaChannel)child).handler();
            assertEquals(1, (int)child.eventLoop().submit(() -> handler.creditWatch().watched()).get(),
                "the closed connection left the watch; the bystander's child is still in it");
            bystander.close().sync();
            assertTrue(patient.active.get(1, TimeUnit.SECONDS).closeFuture().await(10, TimeUnit.SECONDS));
            assertEquals(0, (int)child.eventLoop().submit(() -> handler.creditWatch().watched()).get(),
                "every connection left the watch");
            attacker.close().sync();
            longServer.close().sync();
            shortServer.close().sync();
        }
        finally
        {
            one.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
