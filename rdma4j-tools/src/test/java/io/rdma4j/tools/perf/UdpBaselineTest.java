package io.rdma4j.tools.perf;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpBaselineTest
{
    private static final int MESSAGE = 65_536;
    private static final int MESSAGES = 4;

    @Test
    void shouldSendEachMessageInDatagramsOfTheSizeGiven() throws Exception
    {
        assertEquals(List.of(8192, 8192, 8192, 8192, 8192, 8192, 8192, 8192), datagramsOfOneMessage(8192));
    }

    @Test
    void shouldSendEachMessageInTheLargestDatagramsByDefault() throws Exception
    {
        assertEquals(List.of(UdpBaseline.MAX_DATAGRAM, MESSAGE - UdpBaseline.MAX_DATAGRAM),
            datagramsOfOneMessage(UdpBaseline.MAX_DATAGRAM));
    }

    /**
     * A stream of {@link #MESSAGES} messages from a baseline to a bare channel that records each datagram's
     * size, crediting each message as a baseline receiver does.
     */
    private static List<Integer> datagramsOfOneMessage(final int datagram) throws Exception
    {
        final InetAddress address = TestNet.hostAddress(61);
        try (UdpBaseline sender = new UdpBaseline(address, MESSAGE, true, datagram);
             DatagramChannel receiver = DatagramChannel.open().bind(new InetSocketAddress(address, 0)))
        {
            sender.peer(address, ((InetSocketAddress)receiver.getLocalAddress()).getPort());
            final CompletableFuture<Long> sent = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    // one message in flight: the receiver's socket buffer need hold only one
                    return sender.streamSend(MESSAGE, MESSAGES, 1);
                }
                catch (final Exception ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final List<Integer> sizes = new ArrayList<>();
            final ByteBuffer in = ByteBuffer.allocate(UdpBaseline.MAX_DATAGRAM);
            int bytes = 0;
            InetSocketAddress from = null;
            while (bytes < MESSAGE * MESSAGES)
            {
                in.clear();
                from = (InetSocketAddress)receiver.receive(in);
                sizes.add(in.position());
                bytes += in.position();
                if (in.position() == UdpBaseline.MAX_DATAGRAM && bytes % MESSAGE != 0)
                {
                    // a sender of the largest datagrams may wait for a round acknowledgement within a message
                    // (a small socket buffer); one it does not wait for counts as a credit of 0, ignored
                    receiver.send(ByteBuffer.allocate(Long.BYTES).putLong(0, 0).clear(), from);
                }
                if (bytes % MESSAGE == 0)
                {
                    receiver.send(ByteBuffer.allocate(Long.BYTES).putLong(0, bytes / MESSAGE).clear(), from);
                }
            }
            sent.get(30, TimeUnit.SECONDS);
            assertEquals(MESSAGE * MESSAGES, bytes);
            return sizes.subList(0, sizes.size() / MESSAGES);
        }
    }
}
