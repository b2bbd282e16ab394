package io.rdma4j.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A loop that ends closes every channel it served, with their queued writes failed and released. Netty calls the
 * handler's {@code prepareToDestroy} only on a turn of the loop that began once the shutdown had: a shutdown with
 * no quiet period, begun after the loop's I/O of that turn, ends the loop with {@code destroy} alone. Shutting the
 * loop down from one of its own tasks is that order, every time.
 */
@Timeout(60)
class LoopShutdownTest extends NettyTestBase
{
    private static final int CHUNK = 16 * 1024;

    @Test
    void aLoopShutDownFromItsOwnTaskClosesItsChannelsAndFailsTheirQueuedWrites() throws Exception
    {
        // a server that never reads, so returns no credits: the client's writes stay queued
        final Channel server = net.server(new ChannelInboundHandlerAdapter(), Map.of(ChannelOption.AUTO_READ, false));
        final MultiThreadIoEventLoopGroup own = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        try
        {
            final Channel client = new Bootstrap().group(own).channel(RdmaChannel.class)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(server.localAddress(), new InetSocketAddress(net.clientHost, 0)).sync().channel();
            final List<ChannelFuture> writes = new ArrayList<>();
            for (int i = 0; i < 256; i++)
            {
                writes.add(client.writeAndFlush(Unpooled.directBuffer(CHUNK).writeZero(CHUNK)));
            }
            final ChannelFuture last = writes.get(writes.size() - 1);
            // on the loop, after this turn's I/O: no later turn calls prepareToDestroy
            client.eventLoop().execute(() -> own.shutdownGracefully(0, 5, TimeUnit.SECONDS));
            assertTrue(own.terminationFuture().await(20, TimeUnit.SECONDS), "the loop ended");

            assertFalse(client.isOpen(), "the loop's channel was closed as the loop ended");
            assertTrue(last.isDone(), "its last queued write was answered");
            assertFalse(last.isSuccess(), "and failed: it was never sent");
            for (final ChannelFuture write : writes)
            {
                assertTrue(write.isDone(), "every write was answered");
            }
        }
        finally
        {
            own.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
            server.close().sync();
        }
    }
}
