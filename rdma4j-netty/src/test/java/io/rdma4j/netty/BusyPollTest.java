package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.rdma4j.netty.example.RdmaEcho;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Loops that busy-poll their CQs unarmed before they sleep: the CQs must be armed again before every sleep, or a
 * completion that lands between the last poll and the sleep is never announced and the exchange hangs. A short
 * spin makes the loops go from busy polls to sleep between nearly every pair of messages.
 */
@Timeout(60)
class BusyPollTest extends NettyTestBase
{
    private static final int SPIN_POLLS = 64;

    @Override
    NettyFixture newFixture()
    {
        return new NettyFixture(RdmaIoHandler.newFactory(SPIN_POLLS));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 64 * 1024, 16 * 1024 * 1024})
    void echoes(final int length)
        throws Exception
    {
        net.assertEchoes(length);
    }

    @Test
    void pingPongsOneMessageAtATime()
        throws Exception
    {
        final Channel server = net.server(new RdmaEcho.EchoHandler(), Map.of());
        final BlockingQueue<byte[]> replies = new LinkedBlockingQueue<>();
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), new ChannelInboundHandlerAdapter()
        {
            private final byte[] reply = new byte[64];
            private int filled;

            @Override
            public void channelRead(final ChannelHandlerContext ctx, final Object msg)
            {
                final ByteBuf buf = (ByteBuf)msg;
                while (buf.isReadable())
                {
                    final int n = Math.min(buf.readableBytes(), reply.length - filled);
                    buf.readBytes(reply, filled, n);
                    filled += n;
                    if (filled == reply.length)
                    {
                        replies.add(reply.clone());
                        filled = 0;
                    }
                }
                buf.release();
            }
        }).sync().channel();
        final Random random = new Random(7);
        for (int i = 0; i < 500; i++)
        {
            final byte[] request = new byte[64];
            random.nextBytes(request);
            client.writeAndFlush(Unpooled.wrappedBuffer(request));
            final byte[] reply = replies.poll(10, TimeUnit.SECONDS);
            assertNotNull(reply, "round trip " + i + " was answered");
            assertArrayEquals(request, reply, "round trip " + i);
        }
        client.close().sync();
        server.close().sync();
    }

    @Test
    void refusesANegativeSpin()
    {
        assertThrows(IllegalArgumentException.class, () -> RdmaIoHandler.newFactory(-1));
    }
}
