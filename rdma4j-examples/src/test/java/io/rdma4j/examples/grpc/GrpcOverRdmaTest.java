package io.rdma4j.examples.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.netty.RdmaIoHandler;
import io.rdma4j.testing.NettyLeaks;
import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gRPC-Java's Netty transport over rdma4j, server and client in this JVM on its own loopback addresses: the
 * greeter's unary and bidirectional streaming calls, with messages that take many SENDs, and Netty's leak
 * detector at PARANOID over every buffer gRPC and the transport touched.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GrpcOverRdmaTest
{
    static
    {
        NettyLeaks.install();
    }

    private MultiThreadIoEventLoopGroup group;
    private Server server;
    private ManagedChannel channel;

    @BeforeEach
    void start() throws Exception
    {
        final int subnet = TestNet.nextSubnet();
        final InetAddress serverHost = TestNet.address(subnet, 1);
        group = new MultiThreadIoEventLoopGroup(2, RdmaIoHandler.newFactory());
        server = GrpcOverRdma.serve(group, new InetSocketAddress(serverHost, 0));
        channel = GrpcOverRdma.connect(group, new InetSocketAddress(serverHost, server.getPort()),
            TestNet.address(subnet, 2));
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
}
