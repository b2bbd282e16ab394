package io.rdma4j.bench.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.bench.netty.Transport;
import io.rdma4j.testing.TestNet;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's two workloads against the bench service in this JVM, over NIO and over rdma4j's software device
 * (two loopback addresses of this JVM's own): the unary loop records exactly the calls asked for after its
 * warm-up, and a stream delivers exactly the messages and bytes asked for. No figure is judged.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GrpcCallsTest
{
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "RDMA_POLLING"})
    void shouldCountTheCallsAndTheStreamedMessagesAndBytes(final Transport transport) throws Exception
    {
        final int subnet = TestNet.nextSubnet();
        final InetAddress serverHost = TestNet.address(subnet, 1);
        final InetAddress clientHost = TestNet.address(subnet, 2);
        final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        final Server server = GrpcEnds.serve(transport, group, new InetSocketAddress(serverHost, 0), true);
        final ManagedChannel channel = GrpcEnds.connect(transport, group,
            new InetSocketAddress(serverHost, server.getPort()), clientHost, true);
        try
        {
            final Histogram histogram = new UnaryLoop(channel, 64, 30, 70, new Histogram(TimeUnit.MINUTES.toNanos(1),
                3)).start().get(60, TimeUnit.SECONDS);
            assertEquals(70, histogram.getTotalCount(), "calls recorded after the warm-up");
            assertTrue(histogram.getMinValue() > 0, "a call takes time: " + histogram.getMinValue());

            // more than gRPC's first flow-control window (64 KiB) of messages, so the server waits for readiness
            final StreamRun.Delivered stream = StreamRun.start(channel, 5_000, 64).get(60, TimeUnit.SECONDS);
            assertEquals(5_000, stream.messages(), "messages streamed");
            assertEquals(5_000L * 64, stream.bytes(), "bytes streamed");
            final StreamRun.Delivered empty = StreamRun.start(channel, 0, 64).get(60, TimeUnit.SECONDS);
            assertEquals(0, empty.messages(), "a stream of none completes with none");
        }
        finally
        {
            channel.shutdownNow();
            channel.awaitTermination(10, TimeUnit.SECONDS);
            server.shutdownNow();
            server.awaitTermination(10, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
