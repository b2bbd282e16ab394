package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The batching of an RC channel's flush, end to end over the software device: small writes of one flush go out
 * gathered into full SENDs, a flush's SENDs are posted as one chain of which few are signaled, receives read are
 * posted again in chains, and none of it loses a byte, stalls a slow reader's writer or keeps a buffer when the
 * QP fails with unsignaled SENDs in flight.
 */
@Timeout(60)
class BatchedSendsTest extends NettyTestBase
{
    private final RdmaByteBufAllocator alloc = new RdmaByteBufAllocator(64L << 20);

    private static byte[] randomBytes(final int length, final long seed)
    {
        final byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        return data;
    }

    /** @return copied, in-place and signaled SENDs and receive chains posted of a channel so far. */
    private static long[] counts(final Channel channel) throws Exception
    {
        return channel.eventLoop().submit(() -> ((RdmaChannel)channel).sendCounts()).get(10, TimeUnit.SECONDS);
    }

    private Channel sinkServer(final Collector sink, final Accepted accepted, final Map<ChannelOption<?>, Object> o)
        throws InterruptedException
    {
        return net.server(new ChannelInitializer<RdmaChannel>()
        {
            @Override
            protected void initChannel(final RdmaChannel ch)
            {
                ch.pipeline().addLast(accepted, sink);
            }
        }, o);
    }

    @Test
    void smallWritesOfOneFlushGoOutAsOneSendByteForByte()
        throws Exception
    {
        final int writes = 200;
        final int size = 100;
        final byte[] data = randomBytes(writes * size, 1);
        final Collector sink = new Collector(data.length);
        final Channel server = sinkServer(sink, new Accepted(), Map.of());
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), new Collector(1)).sync()
            .channel();
        client.eventLoop().submit(() ->
        {
            for (int i = 0; i < writes; i++)
            {
                // heap and registered buffers alike: both are small, so both are copied into the one SEND
                final ByteBuf buf = i % 2 == 0 ? Unpooled.buffer(size) : client.alloc().buffer(size);
                client.write(buf.writeBytes(data, i * size, size));
            }
            client.flush();
        }).get(10, TimeUnit.SECONDS);
        assertArrayEquals(data, sink.done.get(30, TimeUnit.SECONDS));
        final long[] counts = counts(client);
        assertEquals(1, counts[0], "20 000 bytes in one SEND, not one per write");
        assertEquals(0, counts[1]);
        client.close().sync();
        server.close().sync();
    }

    @Test
    void aFlushOfManySendsSignalsFewAndTheReaderRepostsInChains()
        throws Exception
    {
        final int message = RdmaChannelConfig.DEFAULT_BUFFER_SIZE;
        final int writes = 64;
        final byte[] data = randomBytes(writes * message, 2);
        final Collector sink = new Collector(data.length);
        final Accepted accepted = new Accepted();
        final Channel server = sinkServer(sink, accepted, Map.of());
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), new Collector(1),
            Map.of(ChannelOption.ALLOCATOR, alloc)).sync().channel();
        client.eventLoop().submit(() ->
        {
            for (int i = 0; i < writes; i++)
            {
                client.write(alloc.buffer(message).writeBytes(data, i * message, message));
            }
            client.flush();
        }).get(10, TimeUnit.SECONDS);
        assertArrayEquals(data, sink.done.get(30, TimeUnit.SECONDS));
        final long[] sent = counts(client);
        assertEquals(writes, sent[1], "each registered write went out in place");
        // a chain signals every quarter of the 16 slots and its last: well under one a SEND
        assertTrue(sent[2] <= writes / 2, "signaled " + sent[2] + " of " + writes + " SENDs");
        final long[] read = counts(accepted.active.get(10, TimeUnit.SECONDS));
        assertTrue(read[3] > 0 && read[3] <= writes / 2, "the reader posted its " + writes + " receives again in " +
            read[3] + " chains");
        client.close().sync();
        server.close().sync();
        net.close();
        assertEquals(0, alloc.buffersInUse(), "every buffer went back, once");
    }

    /**
     * A reader with {@code AUTO_READ} off that asks for one message at a time, from a task of its own, with the
     * fewest receives there may be; the writer writes a byte a flush.
     */
    @Test
    void aReaderOfOneMessageAtATimeNeverStallsTheWriter()
        throws Exception
    {
        final int total = 3000;
        final byte[] data = randomBytes(total, 3);
        final CompletableFuture<byte[]> done = new CompletableFuture<>();
        final ChannelInboundHandlerAdapter slowReader = new ChannelInboundHandlerAdapter()
        {
            private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

            @Override
            public void channelActive(final ChannelHandlerContext ctx)
            {
                ctx.read();
            }

            @Override
            public void channelRead(final ChannelHandlerContext ctx, final Object msg)
            {
                final ByteBuf buf = (ByteBuf)msg;
                final byte[] chunk = new byte[buf.readableBytes()];
                buf.readBytes(chunk).release();
                bytes.writeBytes(chunk);
                if (bytes.size() >= total)
                {
                    done.complete(bytes.toByteArray());
                }
                // the next read later, not from within this one
                ctx.executor().execute(ctx::read);
            }
        };
        final Channel server = net.server(slowReader, Map.of(ChannelOption.AUTO_READ, false,
            RdmaChannelOption.RECEIVE_BUFFERS, RdmaChannelConfig.MIN_RECEIVE_BUFFERS));
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), new Collector(1),
            Map.of(RdmaChannelOption.RECEIVE_BUFFERS, RdmaChannelConfig.MIN_RECEIVE_BUFFERS,
                RdmaChannelOption.SEND_BUFFERS, 4)).sync().channel();
        client.eventLoop().submit(() ->
        {
            for (int i = 0; i < total; i++)
            {
                client.writeAndFlush(Unpooled.wrappedBuffer(data, i, 1));
            }
        }).get(10, TimeUnit.SECONDS);
        assertArrayEquals(data, done.get(40, TimeUnit.SECONDS));
        final long[] counts = counts(client);
        // the writes that waited for credits were gathered when credits came
        assertTrue(counts[0] < total, "fewer SENDs than writes: " + counts[0]);
        client.close().sync();
        server.close().sync();
    }

    @Test
    void unsignaledSendsFlushedByAFailedQpReleaseTheirBuffersOnce()
        throws Exception
    {
        final List<ByteBuf> written = new ArrayList<>();
        final long[] atPost;
        try (Arena arena = Arena.ofShared())
        {
            final Collector collector = new Collector(Integer.MAX_VALUE);
            try (PlainPeer peer = PlainPeer.connect(net, arena, collector,
                Map.of(RdmaChannelOption.RETRY_COUNT, 1, ChannelOption.ALLOCATOR, alloc)))
            {
                final Channel client = peer.channel();
                // the SENDs go unanswered: the first fails its retries, the ones after it are flushed
                peer.id().destroyQp();
                for (int i = 0; i < 8; i++)
                {
                    written.add(alloc.buffer(PlainPeer.SIZE).writeZero(PlainPeer.SIZE).retain());
                }
                atPost = client.eventLoop().submit(() ->
                {
                    written.forEach(client::write);
                    client.flush();
                    final long[] counts = ((RdmaChannel)client).sendCounts();
                    return new long[] {counts[1], counts[2], ((RdmaChannel)client).endpoint().sendsInFlight()};
                }).get(10, TimeUnit.SECONDS);
                assertTrue(client.closeFuture().await(30, TimeUnit.SECONDS), "the channel gave up on its peer");
            }
        }
        // the peer's 4 receives allow 3 SENDs of data, posted as one chain whose last alone is signaled
        assertEquals(3, atPost[0], "SENDs in place");
        assertEquals(1, atPost[1], "signaled");
        assertEquals(3, atPost[2], "in flight");
        net.close();
        for (final ByteBuf buf : written)
        {
            assertEquals(1, buf.refCnt(), "released once by the channel, ours left");
            buf.release();
        }
        assertEquals(0, alloc.buffersInUse());
    }
}
