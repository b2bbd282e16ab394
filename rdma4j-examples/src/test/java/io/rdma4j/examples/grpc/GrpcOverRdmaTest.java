package io.rdma4j.examples.grpc;

import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.netty.RdmaIoHandler;
import io.rdma4j.netty.RdmaServerChannel;
import io.rdma4j.testing.NettyLeaks;
import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC-Java's Netty transport over rdma4j, server and client in this JVM on its own loopback addresses: the
 * greeter's unary and bidirectional streaming calls, with messages that take many SENDs; the addresses a call's
 * attributes carry and the status of a call nobody listens for, as over TCP; and Netty's leak detector at PARANOID
 * over every buffer gRPC and the transport touched.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GrpcOverRdmaTest
{
    static
    {
        NettyLeaks.install();
    }

    private InetAddress serverHost;
    private InetAddress clientHost;
    private MultiThreadIoEventLoopGroup group;
    private Server server;
    private ManagedChannel channel;

    @BeforeEach
    void start() throws Exception
    {
        final int subnet = TestNet.nextSubnet();
        serverHost = TestNet.address(subnet, 1);
        clientHost = TestNet.address(subnet, 2);
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        server = GrpcOverRdma.serve(group, new InetSocketAddress(serverHost, 0));
        channel = GrpcOverRdma.connect(group, new InetSocketAddress(serverHost, server.getPort()), clientHost);
    }

    @AfterEach
    void stop() throws Exception
    {
        channel.shutdown();
        assertTrue(channel.awaitTermination(30, TimeUnit.SECONDS), "the client channel did not terminate");
        server.shutdown();
        assertTrue(server.awaitTermination(30, TimeUnit.SECONDS), "the server did not terminate");
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }

    @AfterAll
    static void noLeaks()
    {
        assertEquals(List.of(), NettyLeaks.leaks(), "ByteBufs leaked");
    }

    @Test
    void answersTheUnaryHello()
    {
        assertEquals("Hello world, from process " + ProcessHandle.current().pid(),
            GrpcOverRdma.sayHello(channel, "world"));
        // a second call reuses the connection the first made
        assertEquals(Greeter.greeting("again"), GrpcOverRdma.sayHello(channel, "again"));
    }

    @Test
    void carriesMessagesLargerThanAFrameAndASend()
    {
        // 3 MiB: HTTP/2 frames of 16 KiB, SENDs of 64 KiB, gRPC's flow-control window of 1 MiB all crossed
        final String name = "x".repeat(3 << 20);
        assertEquals(Greeter.greeting(name), GrpcOverRdma.sayHello(channel, name));
    }

    @Test
    void streamsAGreetingForEachNameUntilTheClientIsDone() throws Exception
    {
        final List<String> names = IntStream.range(0, 200).mapToObj(i -> "name " + i).toList();
        assertEquals(names.stream().map(Greeter::greeting).toList(), GrpcOverRdma.chat(channel, names));
    }

    @Test
    void streamsOnOneConnectionBesideUnaryCalls() throws Exception
    {
        assertEquals(Greeter.greeting("first"), GrpcOverRdma.sayHello(channel, "first"));
        assertEquals(List.of(Greeter.greeting("a"), Greeter.greeting("b")), GrpcOverRdma.chat(channel, List.of("a", "b")));
        assertEquals(Greeter.greeting("last"), GrpcOverRdma.sayHello(channel, "last"));
    }

    @Test
    void showsTheServerEachCallsAddressesAsASocketsWould() throws Exception
    {
        final CompletableFuture<List<SocketAddress>> seen = new CompletableFuture<>();
        final Server watched = NettyServerBuilder.forAddress(new InetSocketAddress(serverHost, 0))
            .channelType(RdmaServerChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group)
            .addService(ServerInterceptors.intercept(Greeter.service(), new ServerInterceptor()
            {
                @Override
                public <Q, A> ServerCall.Listener<Q> interceptCall(final ServerCall<Q, A> call, final Metadata headers,
                    final ServerCallHandler<Q, A> next)
                {
                    seen.complete(List.of(call.getAttributes().get(Grpc.TRANSPORT_ATTR_LOCAL_ADDR),
                        call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)));
                    return next.startCall(call, headers);
                }
            }))
            .build().start();
        final ManagedChannel toWatched =
            GrpcOverRdma.connect(group, new InetSocketAddress(serverHost, watched.getPort()), clientHost);
        try
        {
            assertEquals(Greeter.greeting("you"), GrpcOverRdma.sayHello(toWatched, "you"));
            final List<SocketAddress> addresses = seen.get(10, TimeUnit.SECONDS);
            assertEquals(new InetSocketAddress(serverHost, watched.getPort()), addresses.get(0));
            final InetSocketAddress remote = (InetSocketAddress)addresses.get(1);
            assertEquals(clientHost, remote.getAddress());
            assertTrue(remote.getPort() > 0, remote.toString());
        }
        finally
        {
            toWatched.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
            watched.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void failsACallAsUnavailableWhenNobodyListens() throws Exception
    {
        final Server gone = GrpcOverRdma.serve(group, new InetSocketAddress(serverHost, 0));
        final int port = gone.getPort();
        assertTrue(gone.shutdown().awaitTermination(30, TimeUnit.SECONDS));
        final ManagedChannel toNobody = GrpcOverRdma.connect(group, new InetSocketAddress(serverHost, port), clientHost);
        try
        {
            final StatusRuntimeException ex =
                assertThrows(StatusRuntimeException.class, () -> GrpcOverRdma.sayHello(toNobody, "anyone"));
            assertEquals(Status.Code.UNAVAILABLE, ex.getStatus().getCode(), ex.toString());
            assertInstanceOf(ConnectException.class, rootOf(ex), ex.toString());
        }
        finally
        {
            toNobody.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
        }
    }

    private static Throwable rootOf(final Throwable ex)
    {
        Throwable cause = ex;
        while (cause.getCause() != null && !(cause instanceof ConnectException))
        {
            cause = cause.getCause();
        }
        return cause;
    }
}
