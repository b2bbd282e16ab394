package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.rdma4j.netty.example.RdmaEcho;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Buffers of the registered allocator go out without a copy, end to end over the software device: the SEND reads
 * the buffer itself, the channel holds it until the SEND completes and no longer, and a close or a peer's death
 * with SENDs in flight lets every buffer go; other buffers are still copied. Each test has its own allocator, so
 * its count of buffers in use is the test's alone.
 */
@Timeout(60)
class RegisteredSendsTest extends NettyTestBase
{
    private static final int MESSAGE = RdmaChannelConfig.DEFAULT_BUFFER_SIZE;

    private final RdmaByteBufAllocator alloc = new RdmaByteBufAllocator(64L << 20);

    private static byte[] randomBytes(final int length)
    {
        final byte[] data = new byte[length];
        new Random(length).nextBytes(data);
        return data;
    }

    /** @return copied and in-place SENDs of a channel so far. */
    private static long[] counts(final Channel channel) throws Exception
    {
        return channel.eventLoop().submit(() -> ((RdmaChannel)channel).sendCounts()).get(10, TimeUnit.SECONDS);
    }

    /** An echo server whose children use {@code childAlloc}; {@code child} completes with the first one. */
    private Channel echoServer(final Object childAlloc, final CompletableFuture<Channel> child)
        throws InterruptedException
    {
        return net.server(new ChannelInitializer<RdmaChannel>()
        {
            @Override
            protected void initChannel(final RdmaChannel ch)
            {
                child.complete(ch);
                ch.pipeline().addLast(new RdmaEcho.EchoHandler());
            }
        }, Map.of(ChannelOption.ALLOCATOR, childAlloc));
    }

    /**
     * End the loops, which tears down whatever still lingers, then assert that the channel let every written
     * buffer go: each keeps only the reference the test took, and once those go the allocator has none in use.
     */
    private void assertOnlyOurReferencesLeft(final List<ByteBuf> written)
    {
        net.close();
        for (final ByteBuf buf : written)
        {
            assertEquals(1, buf.refCnt(), "only our own reference is left");
            buf.release();
        }
        assertEquals(0, alloc.buffersInUse());
    }

    @Test
    void theChannelsAllocatorIsTheRegisteredOne()
        throws Exception
    {
        final Channel server = net.server(new Accepted(), Map.of());
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), new Collector(1)).sync()
            .channel();
        assertSame(RdmaByteBufAllocator.DEFAULT, client.alloc());
        assertSame(RdmaByteBufAllocator.DEFAULT, client.config().getAllocator());
        client.close().sync();
        server.close().sync();
    }

    @Test
    void allocatorBuffersGoOutInPlaceAndOthersAreCopied()
        throws Exception
    {
        final Channel server = echoServer(UnpooledByteBufAllocator.DEFAULT, new CompletableFuture<>());
        final Collector collector = new Collector(5 * 4096);
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), collector,
            Map.of(ChannelOption.ALLOCATOR, alloc)).sync().channel();
        final byte[] data = randomBytes(5 * 4096);
        client.eventLoop().submit(() ->
        {
            for (int i = 0; i < 5; i++)
            {
                // the second and fourth are heap buffers
                final ByteBuf buf = i % 2 == 1 ? Unpooled.buffer(4096) : client.alloc().buffer(4096);
                client.write(buf.writeBytes(data, i * 4096, 4096));
            }
            client.flush();
        }).get(10, TimeUnit.SECONDS);
        assertArrayEquals(data, collector.done.get(30, TimeUnit.SECONDS));
        final long[] counts = counts(client);
        assertEquals(2, counts[0], "the heap buffers were copied");
        assertEquals(3, counts[1], "the allocator's buffers went out in place");
        client.close().sync();
        server.close().sync();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 64 * 1024, 1024 * 1024 + 3, 16 * 1024 * 1024})
    void echoesThroughTheAllocatorBothWays(final int length)
        throws Exception
    {
        final CompletableFuture<Channel> child = new CompletableFuture<>();
        final Channel server = echoServer(alloc, child);
        final Collector collector = new Collector(length);
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), collector,
            Map.of(ChannelOption.ALLOCATOR, alloc)).sync().channel();
        final byte[] data = randomBytes(length);
        client.writeAndFlush(client.alloc().buffer(length).writeBytes(data)).sync();
        assertArrayEquals(data, collector.done.get(40, TimeUnit.SECONDS));

        final long sends = (length + MESSAGE - 1) / MESSAGE;
        // a last piece under SendSource.SMALL is copied: a copy costs less than its SEND's registration lookup
        final long smallTail = length % MESSAGE != 0 && length % MESSAGE < SendSource.SMALL ? 1 : 0;
        final long[] clientCounts = counts(client);
        if (length <= SlabPool.MAX_CLASS)
        {
            assertEquals(smallTail, clientCounts[0], "nothing copied but a small last piece");
            assertEquals(sends - smallTail, clientCounts[1]);
        }
        else
        {
            // above the largest class the buffer is plain memory
            assertEquals(sends, clientCounts[0]);
            assertEquals(0, clientCounts[1]);
        }
        // the server echoes the buffers it read into, which are the allocator's
        final long[] serverCounts = counts(child.get(10, TimeUnit.SECONDS));
        assertEquals(smallTail, serverCounts[0], "the echo copied nothing but a small last piece");
        assertEquals(sends - smallTail, serverCounts[1]);

        client.close().sync();
        server.close().sync();
        net.close();
        assertEquals(0, alloc.buffersInUse(), "every buffer went back");
    }

    @Test
    void aBufferIsHeldUntilItsSendCompletesAndNoLonger()
        throws Exception
    {
        final Channel server = echoServer(UnpooledByteBufAllocator.DEFAULT, new CompletableFuture<>());
        final Collector collector = new Collector(2048);
        // one send buffer: the second write waits for the first SEND's completion
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), collector,
            Map.of(ChannelOption.ALLOCATOR, alloc, RdmaChannelOption.SEND_BUFFERS, 1)).sync().channel();
        final ByteBuf first = alloc.buffer(1024).writeBytes(randomBytes(1024)).retain();
        final ByteBuf second = alloc.buffer(1024).writeBytes(randomBytes(1024)).retain();
        final int[] whilePosted = client.eventLoop().submit(() ->
        {
            client.writeAndFlush(first);
            final int firstHeld = first.refCnt();
            final int inFlight = ((RdmaChannel)client).endpoint().sendsInFlight();
            client.writeAndFlush(second);
            return new int[] {firstHeld, inFlight};
        }).get(10, TimeUnit.SECONDS);
        // no completion is taken within the loop's task: the SEND in flight holds the first buffer
        assertEquals(1, whilePosted[1]);
        assertEquals(2, whilePosted[0], "ours and the SEND's");
        collector.done.get(30, TimeUnit.SECONDS);
        // the second went out only after the first SEND completed, which let the first buffer go
        assertEquals(1, first.refCnt(), "released at its SEND's completion");
        assertEquals(2, counts(client)[1], "both went out in place");
        client.close().sync();
        server.close().sync();
        net.close();
        assertEquals(1, second.refCnt());
        first.release();
        second.release();
        assertEquals(0, alloc.buffersInUse());
    }

    @Test
    void closingWithSendsInFlightReleasesEveryBuffer()
        throws Exception
    {
        final Collector sink = new Collector(Integer.MAX_VALUE);
        final Channel server = net.server(sink, Map.of());
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), new Collector(1),
            Map.of(ChannelOption.ALLOCATOR, alloc)).sync().channel();
        final List<ByteBuf> written = new ArrayList<>();
        for (int i = 0; i < 64; i++)
        {
            written.add(alloc.buffer(MESSAGE).writeZero(MESSAGE).retain());
        }
        final int inFlight = client.eventLoop().submit(() ->
        {
            written.forEach(client::write);
            client.flush();
            final int sends = ((RdmaChannel)client).endpoint().sendsInFlight();
            // the rest wait in the outbound buffer, which the close fails
            client.close();
            return sends;
        }).get(10, TimeUnit.SECONDS);
        assertTrue(inFlight > 0, "SENDs were in flight at the close");
        assertTrue(client.closeFuture().await(10, TimeUnit.SECONDS));
        server.close().sync();
        assertOnlyOurReferencesLeft(written);
    }

    @Test
    void aPeerThatVanishesWithSendsInFlightLetsEveryBufferGo()
        throws Exception
    {
        final List<ByteBuf> written = new ArrayList<>();
        try (Arena arena = Arena.ofShared())
        {
            final Collector collector = new Collector(Integer.MAX_VALUE);
            try (PlainPeer peer = PlainPeer.connect(net, arena, collector,
                Map.of(RdmaChannelOption.RETRY_COUNT, 1, ChannelOption.ALLOCATOR, alloc)))
            {
                final Channel client = peer.channel();
                peer.id().destroyQp();
                for (int i = 0; i < 8; i++)
                {
                    written.add(alloc.buffer(4096).writeZero(4096).retain());
                }
                client.eventLoop().submit(() ->
                {
                    written.forEach(client::write);
                    client.flush();
                }).get(10, TimeUnit.SECONDS);
                assertTrue(client.closeFuture().await(30, TimeUnit.SECONDS), "the channel gave up on its peer");
            }
        }
        assertOnlyOurReferencesLeft(written);
    }

    @Test
    void aCompositeOfRegisteredAndHeapComponentsEchoesWhole()
        throws Exception
    {
        final Channel server = echoServer(alloc, new CompletableFuture<>());
        final int length = 3 * 8192 + 100;
        final Collector collector = new Collector(length);
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), collector,
            Map.of(ChannelOption.ALLOCATOR, alloc)).sync().channel();
        final byte[] data = randomBytes(length);
        final CompositeByteBuf composite = client.alloc().compositeBuffer();
        composite.addComponent(true, alloc.buffer(8192).writeBytes(data, 0, 8192));
        composite.addComponent(true, Unpooled.wrappedBuffer(data, 8192, 100));
        composite.addComponent(true, alloc.buffer(8192).writeBytes(data, 8292, 8192));
        composite.addComponent(true, alloc.buffer(8192).writeBytes(data, 16484, 8192).slice());
        client.writeAndFlush(composite).sync();
        assertArrayEquals(data, collector.done.get(30, TimeUnit.SECONDS));
        final long[] counts = counts(client);
        assertEquals(1, counts[0], "the heap component was copied");
        assertEquals(3, counts[1], "the registered components, the slice's too, went out in place");
        client.close().sync();
        server.close().sync();
        net.close();
        assertEquals(0, alloc.buffersInUse());
    }
}
