package io.rdma4j.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.netty.example.RdmaEcho;
import io.rdma4j.testing.NettyLeaks;
import io.rdma4j.testing.TestNet;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two loopback addresses of this JVM's own (a server's device and a client's) and one event loop group of the
 * rdma4j transport with two loops, so that a server's children may land on another loop than their listener.
 */
final class NettyFixture implements AutoCloseable
{
    static
    {
        NettyLeaks.install();
    }

    final InetAddress serverHost;
    final InetAddress clientHost;
    final MultiThreadIoEventLoopGroup group;

    NettyFixture()
    {
        this(RdmaIoHandler.newFactory());
    }

    /**
     * @param handlers the loops' handler factory.
     */
    NettyFixture(final IoHandlerFactory handlers)
    {
        group = new MultiThreadIoEventLoopGroup(2, handlers);
        final int subnet = TestNet.nextSubnet();
        serverHost = TestNet.address(subnet, 1);
        clientHost = TestNet.address(subnet, 2);
    }

    /**
     * @param childHandler the accepted channels' handler.
     * @param childOptions options of the accepted channels.
     * @return the bound listener.
     * @throws InterruptedException if interrupted.
     */
    Channel server(final ChannelHandler childHandler, final Map<ChannelOption<?>, Object> childOptions)
        throws InterruptedException
    {
        final ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(RdmaServerChannel.class)
            .childHandler(childHandler);
        childOptions.forEach((option, value) -> childOption(bootstrap, option, value));
        return bootstrap.bind(new InetSocketAddress(serverHost, 0)).sync().channel();
    }

    @SuppressWarnings("unchecked")
    private static <T> void childOption(final ServerBootstrap bootstrap, final ChannelOption<T> option,
        final Object value)
    {
        bootstrap.childOption(option, (T)value);
    }

    /**
     * @param target  the server.
     * @param handler the client channel's handler.
     * @return the connect's future.
     */
    ChannelFuture connect(final InetSocketAddress target, final ChannelHandler handler)
    {
        return connect(target, handler, Map.of());
    }

    /**
     * @param target  the server.
     * @param handler the client channel's handler.
     * @param options options of the client channel, beside a connect timeout of 10 s they may replace.
     * @return the connect's future.
     */
    ChannelFuture connect(final InetSocketAddress target, final ChannelHandler handler,
        final Map<ChannelOption<?>, Object> options)
    {
        final Bootstrap bootstrap = new Bootstrap().group(group).channel(RdmaChannel.class).handler(handler)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000);
        options.forEach((option, value) -> option(bootstrap, option, value));
        return bootstrap.connect(target, new InetSocketAddress(clientHost, 0));
    }

    @SuppressWarnings("unchecked")
    private static <T> void option(final Bootstrap bootstrap, final ChannelOption<T> option, final Object value)
    {
        bootstrap.option(option, (T)value);
    }

    /**
     * Echo random bytes from a new client through a new echo server, assert that they come back whole, and close
     * both.
     *
     * @param length how many bytes, written at once.
     * @throws Exception if any step fails or times out.
     */
    void assertEchoes(final int length)
        throws Exception
    {
        final Channel server = server(new RdmaEcho.EchoHandler(), Map.of());
        final Collector collector = new Collector(length);
        final Channel client = connect((InetSocketAddress)server.localAddress(), collector).sync().channel();
        final byte[] data = new byte[length];
        new Random(length).nextBytes(data);
        client.writeAndFlush(Unpooled.wrappedBuffer(data)).sync();
        final byte[] echoed = collector.done.get(40, TimeUnit.SECONDS);
        assertEquals(length, echoed.length);
        assertArrayEquals(data, echoed);
        client.close().sync();
        server.close().sync();
    }

    @Override
    public void close()
    {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
