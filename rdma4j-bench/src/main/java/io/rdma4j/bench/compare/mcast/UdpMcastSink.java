package io.rdma4j.bench.compare.mcast;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.Map;

/**
 * A raw UDP multicast receiver: a non-blocking {@link DatagramChannel} bound to the group's port and joined on
 * loopback, with a 4 MiB receive buffer, polled as the other systems are.
 */
final class UdpMcastSink implements McastSink
{
    /** Datagrams one poll takes at most. */
    private static final int BATCH = 64;

    private final DatagramChannel channel;
    private final ByteBuffer datagram = ByteBuffer.allocateDirect(UdpMcastSource.MAX_DATAGRAM)
        .order(ByteOrder.nativeOrder());
    private final McastStats stats;
    private long runts;

    UdpMcastSink(final Map<String, String> args, final McastStats stats) throws IOException
    {
        this.stats = stats;
        final InetAddress group = InetAddress.getByName(args.get("group"));
        channel = DatagramChannel.open(StandardProtocolFamily.INET)
            .setOption(StandardSocketOptions.SO_REUSEADDR, true)
            .setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20)
            .bind(new InetSocketAddress(group, Integer.parseInt(args.get("port"))));
        channel.join(group, UdpMcastSource.loopback());
        channel.configureBlocking(false);
    }

    @Override
    public int poll()
    {
        int n = 0;
        try
        {
            while (n < BATCH)
            {
                datagram.clear();
                if (channel.receive(datagram) == null)
                {
                    break;
                }
                n++;
                if (datagram.position() < Chunking.HEADER)
                {
                    runts++;
                    continue;
                }
                stats.onDatagram(datagram.getLong(0), datagram.getLong(Long.BYTES),
                    datagram.getInt(Chunking.INDEX_OFFSET), datagram.getInt(Chunking.COUNT_OFFSET));
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return n;
    }

    @Override
    public String counters()
    {
        return "repair-requests=0 loss-events=0 runts=" + runts + " injected=0";
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }
}
