package io.rdma4j.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reader that does not read: the credits stop, the writer's bytes stay in its outbound buffer, the channel
 * turns unwritable at the high water mark and writable again once the reader reads; nothing is lost, nothing
 * grows without bound, and no SEND ever finds the peer without a receive (the transport connects with an RNR
 * retry count of 0, so one would fail the connection).
 */
@Timeout(60)
class BackPressureTest extends NettyTestBase
{
    private static final int CHUNK = 8 * 1024;
    private static final int TOTAL = 4 * 1024 * 1024;
    private static final int LOW = 32 * 1024;
    private static final int HIGH = 64 * 1024;
    private static final int RECEIVES = 16;

    /**
     * Writes {@link #TOTAL} bytes in chunks while the channel is writable, and records what writability did.
     * Everything runs on the channel's event loop.
     */
    private static final class Producer extends ChannelInboundHandlerAdapter
    {
        final byte[] data;
        final CompletableFuture<Integer> blocked = new CompletableFuture<>();
        final CompletableFuture<Void> resumed = new CompletableFuture<>();
        final CompletableFuture<Throwable> failed = new CompletableFuture<>();
        volatile long maxPending;
        private int written;

        Producer(final byte[] data)
        {
            this.data = data;
        }

        /** Start writing, on the channel's loop. */
        void start(final Channel channel)
        {
            channel.eventLoop().execute(() -> pump(channel.pipeline().context(this)));
        }

        @Override
        public void channelWritabilityChanged(final ChannelHandlerContext ctx)
        {
            if (!ctx.channel().isWritable())
            {
                blocked.complete(written);
            }
            else if (blocked.isDone())
            {
                resumed.complete(null);
                pump(ctx);
            }
            ctx.fireChannelWritabilityChanged();
        }

        private void pump(final ChannelHandlerContext ctx)
        {
            final Channel channel = ctx.channel();
            while (channel.isWritable() && written < data.length)
            {
                final int length = Math.min(CHUNK, data.length - written);
                ctx.writeAndFlush(Unpooled.wrappedBuffer(data, written, length));
                written += length;
                final long pending = channel.unsafe().outboundBuffer().totalPendingWriteBytes();
                maxPending = Math.max(maxPending, pending);
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            failed.complete(cause);
        }
    }

    /**
     * Connect a writer whose channel turns unwritable at {@link #HIGH} and writable again at {@link #LOW}, and start
     * it once it has a credit for each of the server's receives: an accepting side gives most of them just after
     * the establishment, and a writer that started before would block on the first two for a round trip.
     */
    private Channel connect(final Channel server, final Producer producer, final int serverReceives)
        throws Exception
    {
        final RdmaChannel client = (RdmaChannel)net.connect((InetSocketAddress)server.localAddress(), producer,
            Map.of(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(LOW, HIGH))).sync().channel();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (client.eventLoop().submit(() -> client.endpoint().credits()).get() < serverReceives &&
            System.nanoTime() < deadline)
        {
            // no event says the update arrived: look again shortly
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        producer.start(client);
        return client;
    }

    @Test
    void aSlowReaderTurnsTheWriterUnwritableAndBackWithoutLosingBytes()
        throws Exception
    {
        final byte[] data = new byte[TOTAL];
        new Random(7).nextBytes(data);
        final Collector collector = new Collector(TOTAL);
        final Accepted accepted = new Accepted();
        final Channel server = net.server(new io.netty.channel.ChannelInitializer<RdmaChannel>()
        {
            @Override
            protected void initChannel(final RdmaChannel ch)
            {
                ch.pipeline().addLast(accepted, collector);
            }
        }, Map.of(ChannelOption.AUTO_READ, false, RdmaChannelOption.RECEIVE_BUFFERS, RECEIVES));

        final Producer producer = new Producer(data);
        final Channel client = connect(server, producer, RECEIVES);
        final Channel child = accepted.active.get(10, TimeUnit.SECONDS);

        // nobody reads: the writer stops after the peer's receives and its own high water mark
        final int writtenWhenBlocked = producer.blocked.get(20, TimeUnit.SECONDS);
        assertTrue(writtenWhenBlocked < TOTAL, "the writer blocked before the end: " + writtenWhenBlocked);
        // at most: one chunk per receive of the peer, the high water mark and the chunk that crossed it
        assertTrue(writtenWhenBlocked <= RECEIVES * CHUNK + HIGH + CHUNK,
            "bytes in flight are bounded by credits and the water mark: " + writtenWhenBlocked);
        assertTrue(producer.maxPending <= HIGH + CHUNK, "the outbound buffer stayed under the water mark and a " +
            "chunk: " + producer.maxPending);
        assertEquals(0, collector.received(), "nothing was read");
        assertTrue(!producer.resumed.isDone() && !client.isWritable(), "still unwritable while nobody reads");

        // the reader reads: credits flow, the writer resumes and everything arrives in order
        child.config().setAutoRead(true);
        producer.resumed.get(20, TimeUnit.SECONDS);
        assertArrayEquals(data, collector.done.get(30, TimeUnit.SECONDS));
        assertTrue(producer.maxPending <= HIGH + CHUNK, "bounded throughout: " + producer.maxPending);
        assertTrue(!producer.failed.isDone(), () -> "no failure: " + producer.failed.join());

        client.close().sync();
        server.close().sync();
    }

    @Test
    void readingOneMessageAtATimeStillDeliversEverything()
        throws Exception
    {
        // AUTO_READ off and one read() per message delivered: credits come back in the smallest steps
        final int total = 512 * 1024;
        final byte[] data = new byte[total];
        new Random(11).nextBytes(data);
        final Collector collector = new Collector(total);
        final Channel server = net.server(new io.netty.channel.ChannelInitializer<RdmaChannel>()
        {
            @Override
            protected void initChannel(final RdmaChannel ch)
            {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter()
                {
                    @Override
                    public void channelActive(final ChannelHandlerContext ctx)
                    {
                        ctx.read();
                        ctx.fireChannelActive();
                    }

                    @Override
                    public void channelReadComplete(final ChannelHandlerContext ctx)
                    {
                        ctx.read();
                        ctx.fireChannelReadComplete();
                    }
                }, collector);
            }
        }, Map.of(ChannelOption.AUTO_READ, false, RdmaChannelOption.RECEIVE_BUFFERS, 4,
            RdmaChannelOption.BUFFER_SIZE, 4096));

        final Producer producer = new Producer(data);
        final Channel client = connect(server, producer, 4);
        assertArrayEquals(data, collector.done.get(40, TimeUnit.SECONDS));
        assertTrue(!producer.failed.isDone(), () -> "no failure: " + producer.failed.join());
        client.close().sync();
        server.close().sync();
    }
}
