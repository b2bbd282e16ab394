package io.rdma4j.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.netty.example.RdmaEcho;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Peers that attack a server through the protocol (issue 41): each attack closes the one connection with an
 * exception that names what it did, and the server's only event loop, with its listener, goes on serving a
 * legitimate echo. The server runs on a group of one loop, so a loop that died would take the listener with it.
 */
@Timeout(90)
class HostilePeerTest extends NettyTestBase
{
    private static final int CHUNK = 16 * 1024;
    /** What the pool test makes the echo hold. */
    private static final long HOLD = 4 << 20;

    private MultiThreadIoEventLoopGroup serverGroup;

    @BeforeEach
    void startServerGroup()
    {
        serverGroup = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
    }

    @AfterEach
    void stopServerGroup()
    {
        serverGroup.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Records what happens to each accepted channel; first in its pipeline, before the echo. */
    private static final class Watch extends ChannelDuplexHandler
    {
        final CompletableFuture<Channel> active = new CompletableFuture<>();
        final CompletableFuture<Throwable> caught = new CompletableFuture<>();
        final CompletableFuture<Throwable> refusedWrite = new CompletableFuture<>();
        /** Completes once the outbound buffer holds {@link #HOLD} bytes. */
        final CompletableFuture<Long> holding = new CompletableFuture<>();
        volatile long maxPending;

        @Override
        public void channelActive(final ChannelHandlerContext ctx)
        {
            active.complete(ctx.channel());
            ctx.fireChannelActive();
        }

        @Override
        public void write(final ChannelHandlerContext ctx, final Object msg, final ChannelPromise promise)
        {
            ctx.write(msg, promise.addListener(f ->
            {
                if (!f.isSuccess())
                {
                    refusedWrite.complete(f.cause());
                }
            }));
            final long pending = ctx.channel().unsafe().outboundBuffer().totalPendingWriteBytes();
            maxPending = Math.max(maxPending, pending);
            if (pending >= HOLD)
            {
                holding.complete(pending);
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
        {
            caught.complete(cause);
            ctx.fireExceptionCaught(cause);
        }
    }

    /** An echo server on the one loop of {@link #serverGroup}; each child's {@link Watch} goes to the queue. */
    private Channel echoServer(final LinkedBlockingQueue<Watch> watches, final Map<ChannelOption<?>, Object> options)
        throws InterruptedException
    {
        final ServerBootstrap bootstrap = new ServerBootstrap().group(serverGroup).channel(RdmaServerChannel.class)
            .childHandler(new ChannelInitializer<RdmaChannel>()
            {
                @Override
                protected void initChannel(final RdmaChannel ch)
                {
                    final Watch watch = new Watch();
                    watches.add(watch);
                    ch.pipeline().addLast(watch, new RdmaEcho.EchoHandler());
                }
            });
        options.forEach((option, value) -> childOption(bootstrap, option, value));
        return bootstrap.bind(new InetSocketAddress(net.serverHost, 0)).sync().channel();
    }

    @SuppressWarnings("unchecked")
    private static <T> void childOption(final ServerBootstrap bootstrap, final ChannelOption<T> option,
        final Object value)
    {
        bootstrap.childOption(option, (T)value);
    }

    /** A legitimate client's bytes come back whole from the same server. */
    private void assertStillEchoes(final Channel server) throws Exception
    {
        final int length = 200 * 1024;
        final byte[] data = new byte[length];
        new Random(41).nextBytes(data);
        final Collector collector = new Collector(length);
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), collector).sync().channel();
        client.writeAndFlush(Unpooled.wrappedBuffer(data)).sync();
        assertArrayEquals(data, collector.done.get(20, TimeUnit.SECONDS), "a legitimate echo after the attack");
        client.close().sync();
    }

    /**
     * Fails with an {@link OutOfMemoryError}, as Netty's direct allocator does at {@code MaxDirectMemorySize},
     * once: at the {@code failAt}-th buffer.
     */
    private static final class FailingAllocator extends AbstractByteBufAllocator
    {
        private final AtomicInteger count = new AtomicInteger();
        private final int failAt;

        FailingAllocator(final int failAt)
        {
            super(true);
            this.failAt = failAt;
        }

        private void maybeFail(final int capacity)
        {
            if (count.incrementAndGet() == failAt)
            {
                throw new OutOfMemoryError("failed to allocate " + capacity + " byte(s) of direct memory (test)");
            }
        }

        @Override
        protected ByteBuf newHeapBuffer(final int initialCapacity, final int maxCapacity)
        {
            maybeFail(initialCapacity);
            return Unpooled.buffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(final int initialCapacity, final int maxCapacity)
        {
            maybeFail(initialCapacity);
            return Unpooled.directBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled()
        {
            return false;
        }
    }

    @Test
    void outOfMemoryOnAReadClosesThatChannelAndNotTheLoop() throws Exception
    {
        final LinkedBlockingQueue<Watch> watches = new LinkedBlockingQueue<>();
        final Channel server = echoServer(watches, Map.of(ChannelOption.ALLOCATOR, new FailingAllocator(3)));
        final Collector attacker = new Collector(Integer.MAX_VALUE);
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), attacker).sync().channel();
        final Watch hostile = watches.poll(10, TimeUnit.SECONDS);
        // a flush each: the writes of one flush are gathered into as few SENDs as they fit, so one read each
        for (int i = 0; i < 8; i++)
        {
            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[CHUNK]));
        }

        final Throwable cause = hostile.caught.get(10, TimeUnit.SECONDS);
        assertInstanceOf(OutOfMemoryError.class, cause, "the allocator's error reached exceptionCaught");
        final Channel child = hostile.active.get(1, TimeUnit.SECONDS);
        assertTrue(child.closeFuture().await(10, TimeUnit.SECONDS), "the failing channel closed");
        assertTrue(client.closeFuture().await(10, TimeUnit.SECONDS), "and so did its peer");
        assertTrue(server.isActive(), "the listener is up");
        assertStillEchoes(server);
        server.close().sync();
    }

    /** An attacker that never reads, so returns no credits, writing {@code chunks} of {@link #CHUNK} bytes. */
    private Channel attack(final Channel server, final int chunks) throws InterruptedException
    {
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), new Collector(Integer.MAX_VALUE),
            Map.of(ChannelOption.AUTO_READ, false)).sync().channel();
        for (int i = 0; i < chunks; i++)
        {
            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[CHUNK]));
        }
        return client;
    }

    @Test
    void writesPastTheOutboundCapFailFastAndTheChannelStaysUp() throws Exception
    {
        final int maxOutbound = 256 * 1024;
        final LinkedBlockingQueue<Watch> watches = new LinkedBlockingQueue<>();
        final Channel server = echoServer(watches, Map.of(RdmaChannelOption.MAX_OUTBOUND_BYTES, maxOutbound,
            RdmaChannelOption.CREDIT_TIMEOUT_MILLIS, 0));
        // the echo writes all it reads (4 MiB) while the attacker takes a few SENDs
        final Channel client = attack(server, 256);
        final Watch hostile = watches.poll(10, TimeUnit.SECONDS);

        final Throwable refused = hostile.refusedWrite.get(20, TimeUnit.SECONDS);
        assertInstanceOf(RdmaLimitException.class, refused, "writes past the cap fail fast");
        assertTrue(refused.getMessage().contains("MAX_OUTBOUND_BYTES " + maxOutbound), refused.getMessage());
        assertTrue(hostile.maxPending <= maxOutbound, "outbound bytes stayed bounded: " + hostile.maxPending);
        assertTrue(hostile.active.get(1, TimeUnit.SECONDS).isActive(), "the cap fails writes, not the channel");
        assertFalse(hostile.caught.isDone(), "nothing reached exceptionCaught");
        client.close().sync();
        server.close().sync();
    }

    @Test
    void aPeerThatKeepsSendingButReturnsNoCreditForDataIsClosedAfterTheCreditTimeout() throws Exception
    {
        // the attacker gives back only the receives of the server's credit updates, one at a time, with its own
        // data: the server never has the two credits a data SEND needs, which the timeout must see through
        final LinkedBlockingQueue<Watch> watches = new LinkedBlockingQueue<>();
        final Channel server = echoServer(watches, Map.of(RdmaChannelOption.CREDIT_TIMEOUT_MILLIS, 500));
        final Channel client = attack(server, 0);
        final Watch hostile = watches.poll(10, TimeUnit.SECONDS);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int sent = 0;
        while (!hostile.caught.isDone() && client.isActive() && System.nanoTime() < deadline)
        {
            // posted once the server has read the one before: the attacker keeps pace with the server
            client.writeAndFlush(Unpooled.wrappedBuffer(new byte[CHUNK])).await(1, TimeUnit.SECONDS);
            sent++;
        }
        final Throwable cause = hostile.caught.getNow(null);
        assertInstanceOf(RdmaLimitException.class, cause, "closed for the credits, after " + sent + " SENDs");
        assertTrue(cause.getMessage().contains("CREDIT_TIMEOUT_MILLIS 500"), cause.getMessage());
        assertStillEchoes(server);
        client.close().sync();
        server.close().sync();
    }

    @Test
    void aPeerThatWithholdsCreditsIsClosedAfterTheCreditTimeout() throws Exception
    {
        final LinkedBlockingQueue<Watch> watches = new LinkedBlockingQueue<>();
        final Channel server = echoServer(watches, Map.of(RdmaChannelOption.CREDIT_TIMEOUT_MILLIS, 500));
        final long start = System.nanoTime();
        final Channel client = attack(server, 256);
        final Watch hostile = watches.poll(10, TimeUnit.SECONDS);

        final Throwable cause = hostile.caught.get(20, TimeUnit.SECONDS);
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertInstanceOf(RdmaLimitException.class, cause);
        assertTrue(cause.getMessage().contains("CREDIT_TIMEOUT_MILLIS 500"), cause.getMessage());
        assertTrue(elapsedMs >= 500, "not before the timeout: " + elapsedMs + " ms");
        final Channel child = hostile.active.get(1, TimeUnit.SECONDS);
        assertTrue(child.closeFuture().await(10, TimeUnit.SECONDS), "the starved channel closed");

        // the attacker still holds unread SENDs, which a reader would take before its close, as after a FIN
        assertStillEchoes(server);
        client.close().sync();
        server.close().sync();
    }

    @Test
    void thePoolGivesBackWhatAnAttackMadeItHoldOnceTheConnectionIsGone() throws Exception
    {
        // no floor, so the chunks the loop registered (the first ones, which a floor would keep) must go too
        final long floor = 0;
        final RdmaByteBufAllocator pool = new RdmaByteBufAllocator(64 << 20, floor, 200);
        final int maxOutbound = 8 << 20;
        final LinkedBlockingQueue<Watch> watches = new LinkedBlockingQueue<>();
        final Channel server = echoServer(watches, Map.of(ChannelOption.ALLOCATOR, pool,
            RdmaChannelOption.MAX_OUTBOUND_BYTES, maxOutbound, RdmaChannelOption.CREDIT_TIMEOUT_MILLIS, 0));
        // a quiet connection on the server's loop keeps the loop's device memory, so the chunks' regions go by the
        // pool tick, not with the loop's last endpoint
        final Channel bystander = net.connect((InetSocketAddress)server.localAddress(),
            new Collector(Integer.MAX_VALUE)).sync().channel();
        watches.poll(10, TimeUnit.SECONDS);
        final int firstNew = RegisteredChunk.count();
        final Channel client = attack(server, 1024);
        final Watch hostile = watches.poll(10, TimeUnit.SECONDS);
        // the echo holds what it cannot send, in the pool's registered buffers
        final long held = hostile.holding.get(20, TimeUnit.SECONDS);
        final long reservedAfterAttack = pool.reservedBytes();
        // (the outbound buffer counts some bytes of its own per message beside the buffers')
        assertTrue(reservedAfterAttack >= held * 9 / 10, "the pool reserved " + reservedAfterAttack + " for " + held);
        client.close().sync();
        assertTrue(hostile.active.get(1, TimeUnit.SECONDS).closeFuture().await(10, TimeUnit.SECONDS));

        // idle for 200 ms, and the loops' next pool tick gives the chunks back
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // (the loop that trims may not be the one whose regions hold the chunks: that one's tick frees them)
        while ((pool.reservedBytes() > floor || liveChunks(firstNew) > 0) && System.nanoTime() < deadline)
        {
            // no event says a tick ran: look again shortly
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        assertTrue(pool.reservedBytes() <= floor, "reserved after the close: " + pool.reservedBytes() +
            " of " + reservedAfterAttack);
        assertTrue(pool.metric().usedDirectMemory() <= floor, pool.metric().toString());
        assertTrue(pool.usedBytes() == 0, "nothing in use: " + pool);
        // and freed, not only uncounted: every chunk made since the attack began, deregistered first by the
        // loop that sent from them
        final int made = RegisteredChunk.count() - firstNew;
        assertTrue(made >= 4, "the attack made " + made + " chunks");
        assertTrue(liveChunks(firstNew) == 0, liveChunks(firstNew) + " of the " + made +
            " chunks made since the attack are alive");
        // chunks made again after some went back serve as well
        assertStillEchoes(server);
        bystander.close().sync();
        server.close().sync();
    }

    /** Chunks of this JVM from {@code firstId} on whose memory is not freed. */
    private static int liveChunks(final int firstId)
    {
        int live = 0;
        for (int id = firstId; id < RegisteredChunk.count(); id++)
        {
            if (RegisteredChunk.get(id) != null)
            {
                live++;
            }
        }
        return live;
    }

    @Test
    void forgedCreditUpdatesThatWouldOverflowCloseTheConnection() throws Exception
    {
        try (Arena arena = Arena.ofShared())
        {
            final Collector collector = new Collector(Integer.MAX_VALUE);
            try (PlainPeer peer = PlainPeer.connect(net, arena, collector, Map.of()))
            {
                final Channel channel = peer.channel();
                // two updates of 0x7fffffff credits each, SENDs of no bytes as the transport's own updates are
                final SendWr forged = new SendWr().opcode(WrOpcode.SEND_WITH_IMM).immData(0x7fffffff)
                    .sendFlags(SendFlags.SIGNALED);
                forged.sgList().numSge(0);
                peer.qp().postSend(forged.wrId(1));
                peer.qp().postSend(forged.wrId(2));

                assertTrue(channel.closeFuture().await(10, TimeUnit.SECONDS), "the forged updates closed it");
                assertFalse(channel.isActive());
                final Throwable cause = collector.done.handle((bytes, ex) -> ex).get(1, TimeUnit.SECONDS);
                assertInstanceOf(IOException.class, cause);
                assertTrue(cause.getMessage().contains("2147483647 credits"), cause.getMessage());
                assertTrue(cause.getMessage().contains(PlainPeer.RECEIVES + " receives"), cause.getMessage());
            }
        }
    }
}
