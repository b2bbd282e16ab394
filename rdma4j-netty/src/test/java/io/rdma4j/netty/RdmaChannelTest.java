package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.rdma4j.netty.example.RdmaEcho;
import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RC stream channel end to end over the software device on loopback: connecting, being refused, echoing,
 * closing from either side.
 */
@Timeout(60)
class RdmaChannelTest extends NettyTestBase
{
    /** A write to a closed channel fails as a socket's does. */
    private static void assertWriteRefused(final Channel closed)
        throws InterruptedException
    {
        final ChannelFuture late = closed.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1}));
        assertTrue(late.await(5, TimeUnit.SECONDS));
        assertInstanceOf(ClosedChannelException.class, late.cause());
    }

    private static byte[] randomBytes(final int length)
    {
        final byte[] data = new byte[length];
        new Random(length).nextBytes(data);
        return data;
    }

    @Test
    void connects()
        throws Exception
    {
        final Accepted accepted = new Accepted();
        final Channel server = net.server(accepted, Map.of());
        final InetSocketAddress listening = (InetSocketAddress)server.localAddress();
        assertEquals(net.serverHost, listening.getAddress());
        assertTrue(listening.getPort() > 0, "the listener has a port: " + listening);

        final Channel client = net.connect(listening, new ChannelInboundHandlerAdapter()).sync().channel();
        final Channel child = accepted.active.get(10, TimeUnit.SECONDS);
        assertTrue(client.isActive());
        assertTrue(child.isActive());
        assertEquals(listening, client.remoteAddress());
        assertEquals(net.clientHost, ((InetSocketAddress)client.localAddress()).getAddress());
        assertEquals(client.localAddress(), child.remoteAddress());
        assertEquals(server, child.parent());

        client.close().sync();
        assertTrue(child.closeFuture().await(10, TimeUnit.SECONDS), "the server side saw the disconnect");
        server.close().sync();
    }

    @Test
    void aPortNobodyListensOnRefusesTheConnection()
        throws Exception
    {
        // the server's device exists (its listener makes it), but nobody listens on the port we call
        final Channel server = net.server(new ChannelInboundHandlerAdapter(), Map.of());
        final int port = ((InetSocketAddress)server.localAddress()).getPort();
        final long start = System.nanoTime();
        final ChannelFuture connect = net.connect(new InetSocketAddress(net.serverHost, port + 1),
            new ChannelInboundHandlerAdapter());
        assertTrue(connect.await(10, TimeUnit.SECONDS), "the connect ended");
        assertInstanceOf(ConnectException.class, connect.cause());
        assertFalse(connect.cause() instanceof ConnectTimeoutException, "refused, not timed out: " + connect.cause());
        assertTrue(connect.cause().getMessage().contains("REJECTED"), connect.cause().getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "a refusal is quick");
        assertTrue(connect.channel().closeFuture().await(5, TimeUnit.SECONDS), "the failed channel is closed");
        server.close().sync();
    }

    @Test
    void aServerThatClosesTheChildRefusesTheConnection()
        throws Exception
    {
        final Channel server = net.server(new ChannelInitializer<RdmaChannel>()
        {
            @Override
            protected void initChannel(final RdmaChannel ch)
            {
                ch.close();
            }
        }, Map.of());
        final ChannelFuture connect = net.connect((InetSocketAddress)server.localAddress(),
            new ChannelInboundHandlerAdapter());
        assertTrue(connect.await(10, TimeUnit.SECONDS), "the connect ended");
        assertInstanceOf(ConnectException.class, connect.cause());
        server.close().sync();
    }

    @Test
    void anAddressWithNoDeviceTimesOutWithinTheConnectTimeout()
        throws Exception
    {
        // nothing answers on this loopback address: the connect timeout bounds the wait
        final InetSocketAddress nobody = new InetSocketAddress(TestNet.address(TestNet.nextSubnet(), 9), 4000);
        final long start = System.nanoTime();
        final ChannelFuture connect = net.connect(nobody, new ChannelInboundHandlerAdapter(),
            Map.of(ChannelOption.CONNECT_TIMEOUT_MILLIS, 1500));
        assertTrue(connect.await(10, TimeUnit.SECONDS), "the connect ended");
        assertInstanceOf(ConnectException.class, connect.cause());
        final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(elapsedMs < 5000, "bounded by the connect timeout: " + elapsedMs + " ms");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 64 * 1024, 16 * 1024 * 1024})
    void echoes(final int length)
        throws Exception
    {
        net.assertEchoes(length);
    }

    @Test
    void manyConnectionsEchoAtOnce()
        throws Exception
    {
        // eight connections over the group's two loops: children land on either, their events cross loops
        final int connections = 8;
        final int length = 256 * 1024;
        final Channel server = net.server(new RdmaEcho.EchoHandler(), Map.of());
        final Collector[] collectors = new Collector[connections];
        final Channel[] clients = new Channel[connections];
        final byte[][] data = new byte[connections][];
        for (int i = 0; i < connections; i++)
        {
            collectors[i] = new Collector(length);
            clients[i] = net.connect((InetSocketAddress)server.localAddress(), collectors[i]).sync().channel();
        }
        for (int i = 0; i < connections; i++)
        {
            data[i] = randomBytes(length + i);
            clients[i].writeAndFlush(Unpooled.wrappedBuffer(data[i], 0, length));
        }
        for (int i = 0; i < connections; i++)
        {
            assertArrayEquals(java.util.Arrays.copyOf(data[i], length), collectors[i].done.get(40, TimeUnit.SECONDS),
                "connection " + i);
        }
        for (final Channel client : clients)
        {
            client.close().sync();
        }
        server.close().sync();
    }

    @Test
    void theLoopsWaitOnTheCompletionChannelThemselves()
        throws Exception
    {
        final Channel server = net.server(new RdmaEcho.EchoHandler(), Map.of());
        final Collector collector = new Collector(4096);
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), collector).sync().channel();
        final byte[] data = randomBytes(4096);
        // the write comes from this thread, so the loop is woken out of its completion-channel wait to send it
        client.writeAndFlush(Unpooled.wrappedBuffer(data));
        assertArrayEquals(data, collector.done.get(40, TimeUnit.SECONDS));

        // one device, so no thread between the completion channel and either loop: completions cost no hand-off
        final java.util.List<String> cqThreads = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
            .filter(name -> name.startsWith("rdma4j-netty-cq-")).toList();
        assertEquals(java.util.List.of(), cqThreads);
        client.close().sync();
        server.close().sync();
    }

    @Test
    void closingTheClientClosesTheServerSide()
        throws Exception
    {
        final Accepted accepted = new Accepted();
        final Channel server = net.server(accepted, Map.of());
        final Channel client = net.connect((InetSocketAddress)server.localAddress(),
            new ChannelInboundHandlerAdapter()).sync().channel();
        final Channel child = accepted.active.get(10, TimeUnit.SECONDS);
        client.close().sync();
        assertFalse(client.isOpen());
        assertTrue(child.closeFuture().await(10, TimeUnit.SECONDS), "DISCONNECTED closed the server side");
        assertWriteRefused(client);
        server.close().sync();
    }

    @Test
    void closingTheServerSideClosesTheClient()
        throws Exception
    {
        // the server closes the connection on the first byte it reads
        final Channel server = net.server(new ChannelInboundHandlerAdapter()
        {
            @Override
            public void channelRead(final ChannelHandlerContext ctx, final Object msg)
            {
                ((ByteBuf)msg).release();
                ctx.close();
            }
        }, Map.of());
        final Collector collector = new Collector(1);
        final Channel client = net.connect((InetSocketAddress)server.localAddress(), collector).sync().channel();
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {42})).sync();
        collector.inactive.get(10, TimeUnit.SECONDS);
        assertTrue(client.closeFuture().await(10, TimeUnit.SECONDS));
        assertFalse(client.isActive());
        assertWriteRefused(client);
        server.close().sync();
    }

    @Test
    void closeAfterWriteDeliversEverythingFirst()
        throws Exception
    {
        final int length = 2 * 1024 * 1024;
        final Collector collector = new Collector(length);
        final Channel server = net.server(collector, Map.of());
        final Channel client = net.connect((InetSocketAddress)server.localAddress(),
            new ChannelInboundHandlerAdapter()).sync().channel();
        final byte[] data = randomBytes(length);
        // the write's promise completes when the bytes are posted, long before the peer has them all
        client.writeAndFlush(Unpooled.wrappedBuffer(data)).addListener(ChannelFutureListener.CLOSE);
        assertArrayEquals(data, collector.done.get(30, TimeUnit.SECONDS));
        collector.inactive.get(10, TimeUnit.SECONDS);
        assertTrue(client.closeFuture().await(10, TimeUnit.SECONDS));
        server.close().sync();
    }
}
