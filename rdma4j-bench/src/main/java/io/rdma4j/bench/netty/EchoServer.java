package io.rdma4j.bench.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.netty.example.RdmaEcho;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The server process of one row: Netty's echo (the handler of rdma4j-netty's echo example, which uses nothing of
 * rdma4j) on one transport, one event loop thread, until its standard input ends, which is how
 * {@link NettyBench} stops it.
 * <p>
 * Usage: {@code EchoServer TRANSPORT ADDRESS THREADS}; it prints {@code listening PORT}.
 */
public final class EchoServer
{
    private EchoServer()
    {
    }

    /**
     * @param args {@code TRANSPORT ADDRESS THREADS}.
     * @throws Exception if it cannot listen.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length != 3)
        {
            System.err.println("usage: EchoServer TRANSPORT ADDRESS THREADS");
            System.exit(2);
        }
        final Transport transport = Transport.of(args[0]);
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(Integer.parseInt(args[2]),
            transport.ioHandlerFactory());
        try
        {
            final ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(transport.serverChannel())
                .childHandler(new RdmaEcho.EchoHandler());
            if (!transport.rdma())
            {
                bootstrap.childOption(ChannelOption.TCP_NODELAY, true);
            }
            final Channel server = bootstrap.bind(new InetSocketAddress(InetAddress.getByName(args[1]), 0)).sync()
                .channel();
            System.out.println("listening " + ((InetSocketAddress)server.localAddress()).getPort());
            System.out.flush();
            drain(System.in);
            server.close().sync();
        }
        finally
        {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }

    private static void drain(final InputStream in)
    {
        final byte[] buffer = new byte[256];
        try
        {
            while (in.read(buffer) >= 0)
            {
                // nothing is said on it: its end is the signal
            }
        }
        catch (final IOException ex)
        {
            // the parent went away: stop as if told to
        }
    }
}
