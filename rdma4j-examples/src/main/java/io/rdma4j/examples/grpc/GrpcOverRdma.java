package io.rdma4j.examples.grpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.rdma4j.netty.RdmaByteBufAllocator;
import io.rdma4j.netty.RdmaChannel;
import io.rdma4j.netty.RdmaIoHandler;
import io.rdma4j.netty.RdmaServerChannel;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * gRPC-Java's Netty transport, given rdma4j's channels and event loops: what an application changes to move its
 * gRPC traffic onto RDMA. Everything else (services, stubs, deadlines, flow control) is gRPC's own.
 */
public final class GrpcOverRdma
{
    /**
     * How long a call may take before the client gives up on it: 30 s, or the system property
     * {@code rdma4j.examples.grpc.deadlineSeconds} (the rxe lab's emulated guest needs minutes for a first call).
     */
    static final long DEADLINE_SECONDS = Long.getLong("rdma4j.examples.grpc.deadlineSeconds", 30);

    private GrpcOverRdma()
    {
    }

    /**
     * Start a gRPC server with the {@link Greeter} on an rdma4j listener.
     *
     * @param group   event loops made with {@link RdmaIoHandler#newFactory()}: they accept and serve.
     * @param address where to listen; port 0 picks one ({@link Server#getPort()}).
     * @return the started server.
     * @throws IOException if it cannot listen there.
     */
    public static Server serve(final EventLoopGroup group, final InetSocketAddress address) throws IOException
    {
        return NettyServerBuilder.forAddress(address)
            .channelType(RdmaServerChannel.class)
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group)
            // gRPC sets Netty's pooled allocator on its channels; this one's buffers go out without a copy
            .withChildOption(ChannelOption.ALLOCATOR, RdmaByteBufAllocator.DEFAULT)
            .addService(Greeter.service())
            .build()
            .start();
    }

    /**
     * A gRPC channel to a server over rdma4j; it connects on its first call.
     *
     * @param group  event loops made with {@link RdmaIoHandler#newFactory()}.
     * @param server the server's address.
     * @param local  this side's address: the device the connection leaves from.
     * @return the channel; shut it down when done.
     */
    public static ManagedChannel connect(final EventLoopGroup group, final InetSocketAddress server,
        final InetAddress local)
    {
        return NettyChannelBuilder.forAddress(server)
            .channelType(RdmaChannel.class, InetSocketAddress.class)
            .eventLoopGroup(group)
            .withOption(ChannelOption.ALLOCATOR, RdmaByteBufAllocator.DEFAULT)
            .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker()
            {
                @Override
                public SocketAddress createSocketAddress(final SocketAddress remoteAddress,
                    final io.grpc.Attributes attrs)
                {
                    return new InetSocketAddress(local, 0);
                }
            })
            // RDMA has no TLS of its own; a deployment that needs it adds it as over TCP
            .usePlaintext()
            .build();
    }

    /**
     * The unary call.
     *
     * @param channel a channel to the greeter.
     * @param name    who to greet.
     * @return the server's greeting.
     */
    public static String sayHello(final Channel channel, final String name)
    {
        return ClientCalls.blockingUnaryCall(channel, Greeter.SAY_HELLO, options(), name);
    }

    /**
     * The streaming call: send every name, then half-close, and collect the greetings as they stream back.
     *
     * @param channel a channel to the greeter.
     * @param names   who to greet.
     * @return the greetings, in order.
     * @throws ExecutionException   if the call failed.
     * @throws InterruptedException if interrupted while waiting.
     * @throws TimeoutException     if the call outlived its deadline here.
     */
    public static List<String> chat(final Channel channel, final List<String> names)
        throws ExecutionException, InterruptedException, TimeoutException
    {
        final CompletableFuture<List<String>> done = new CompletableFuture<>();
        final List<String> greetings = new ArrayList<>();
        final StreamObserver<String> requests = ClientCalls.asyncBidiStreamingCall(
            channel.newCall(Greeter.CHAT, options()), new StreamObserver<>()
            {
                @Override
                public void onNext(final String greeting)
                {
                    greetings.add(greeting);
                }

                @Override
                public void onError(final Throwable cause)
                {
                    done.completeExceptionally(cause);
                }

                @Override
                public void onCompleted()
                {
                    done.complete(List.copyOf(greetings));
                }
            });
        for (final String name : names)
        {
            requests.onNext(name);
        }
        requests.onCompleted();
        return done.get(DEADLINE_SECONDS + 5, TimeUnit.SECONDS);
    }

    private static CallOptions options()
    {
        return CallOptions.DEFAULT.withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
