package io.rdma4j.bench.grpc;

import io.grpc.Server;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.bench.netty.Transport;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The server process of one row: the {@link BenchService} on one transport until its standard input ends, which
 * is how {@link GrpcBench} stops it.
 * <p>
 * Usage: {@code GrpcServer TRANSPORT ADDRESS THREADS direct|default}; it prints {@code listening PORT}.
 */
public final class GrpcServer
{
    private GrpcServer()
    {
    }

    /**
     * @param args {@code TRANSPORT ADDRESS THREADS direct|default}.
     * @throws Exception if it cannot listen.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length != 4 || !(args[3].equals("direct") || args[3].equals("default")))
        {
            System.err.println("usage: GrpcServer TRANSPORT ADDRESS THREADS direct|default");
            System.exit(2);
        }
        final Transport transport = Transport.of(args[0]);
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(Integer.parseInt(args[2]),
            transport.ioHandlerFactory());
        try
        {
            final Server server = GrpcEnds.serve(transport, group,
                new InetSocketAddress(InetAddress.getByName(args[1]), 0), args[3].equals("direct"));
            System.out.println("listening " + server.getPort());
            System.out.flush();
            drain(System.in);
            server.shutdown();
            if (!server.awaitTermination(10, TimeUnit.SECONDS))
            {
                server.shutdownNow();
            }
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
