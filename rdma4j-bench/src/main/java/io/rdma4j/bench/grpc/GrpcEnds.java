package io.rdma4j.bench.grpc;

import io.grpc.Attributes;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.rdma4j.bench.netty.Transport;
import io.rdma4j.netty.RdmaByteBufAllocator;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * gRPC's server and channel over one transport, built as rdma4j-examples' {@code GrpcOverRdma} shows a user:
 * only the channel types, the event loops and (over rdma4j) the allocator differ between the rows.
 */
final class GrpcEnds
{
    private GrpcEnds()
    {
    }

    /**
     * @param transport the transport.
     * @param group     event loops of that transport: they accept and serve.
     * @param address   where to listen; port 0 picks one.
     * @param direct    true to run the service on the event loop (gRPC's {@code directExecutor()}), false for
     *                  gRPC's default executor, a thread pool each call's callbacks are handed to.
     * @return the started server.
     * @throws IOException if it cannot listen there.
     */
    static Server serve(final Transport transport, final EventLoopGroup group, final InetSocketAddress address,
        final boolean direct) throws IOException
    {
        final NettyServerBuilder builder = NettyServerBuilder.forAddress(address)
            .channelType(transport.serverChannel())
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group)
            .addService(BenchService.service());
        if (transport.rdma())
        {
            // gRPC sets Netty's pooled allocator on its channels; this one's buffers go out without a copy
            builder.withChildOption(ChannelOption.ALLOCATOR, RdmaByteBufAllocator.DEFAULT);
        }
        else
        {
            builder.withChildOption(ChannelOption.TCP_NODELAY, true);
        }
        if (direct)
        {
            builder.directExecutor();
        }
        return builder.build().start();
    }

    /**
     * @param transport the transport.
     * @param group     event loops of that transport.
     * @param server    the server's address.
     * @param local     this side's address: over rdma4j the device the connection leaves from.
     * @param direct    as for {@link #serve}, for the call's callbacks here.
     * @return a channel that connects on its first call; shut it down when done.
     */
    static ManagedChannel connect(final Transport transport, final EventLoopGroup group,
        final InetSocketAddress server, final InetAddress local, final boolean direct)
    {
        final NettyChannelBuilder builder = NettyChannelBuilder.forAddress(server)
            .channelType(transport.channel(), InetSocketAddress.class)
            .eventLoopGroup(group)
            .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker()
            {
                @Override
                public SocketAddress createSocketAddress(final SocketAddress remoteAddress, final Attributes attrs)
                {
                    return new InetSocketAddress(local, 0);
                }
            })
            .usePlaintext();
        if (transport.rdma())
        {
            builder.withOption(ChannelOption.ALLOCATOR, RdmaByteBufAllocator.DEFAULT);
        }
        else
        {
            builder.withOption(ChannelOption.TCP_NODELAY, true);
        }
        if (direct)
        {
            builder.directExecutor();
        }
        return builder.build();
    }
}
