package io.rdma4j.bench.compare.mcast;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.util.Map;

/**
 * Raw UDP multicast, the baseline: a blocking {@link DatagramChannel} sending each message as one datagram (in
 * equal datagrams of at most {@link #MAX_DATAGRAM} bytes when larger), with no flow control: the receivers get
 * what they keep up with.
 */
final class UdpMcastSource implements McastSource
{
    /** Under UDP's 65 507: a 64 KiB message goes as two datagrams of 32 KiB. */
    static final int MAX_DATAGRAM = 65_000;

    private final DatagramChannel channel;
    private final InetSocketAddress target;
    private final ByteBuffer message;
    private final ByteBuffer datagram;
    private final Chunking chunking;
    private long datagrams;

    UdpMcastSource(final Map<String, String> args, final ByteBuffer message) throws IOException
    {
        this.message = message;
        this.chunking = new Chunking(message.capacity(), MAX_DATAGRAM);
        this.datagram = ByteBuffer.allocateDirect(Math.min(message.capacity(), MAX_DATAGRAM))
            .order(ByteOrder.nativeOrder());
        final InetAddress local = InetAddress.getByName(args.get("local"));
        target = new InetSocketAddress(InetAddress.getByName(args.get("group")), Integer.parseInt(args.get("port")));
        channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.setOption(StandardSocketOptions.IP_MULTICAST_IF, loopback());
        channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
        channel.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 1);
        channel.bind(new InetSocketAddress(local, 0));
    }

    static NetworkInterface loopback() throws IOException
    {
        return NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
    }

    @Override
    public boolean offer(final int length)
    {
        final int chunks = chunking.chunks();
        try
        {
            for (int i = 0; i < chunks; i++)
            {
                datagram.clear();
                datagram.putLong(0, message.getLong(0)).putLong(Long.BYTES, message.getLong(Long.BYTES))
                    .putInt(Chunking.INDEX_OFFSET, i).putInt(Chunking.COUNT_OFFSET, chunks);
                datagram.put(Chunking.HEADER, message, chunking.offset(i), chunking.length(i));
                datagram.limit(Chunking.HEADER + chunking.length(i)).position(0);
                channel.send(datagram, target);
                datagrams++;
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return true;
    }

    @Override
    public int doWork()
    {
        return 0;
    }

    @Override
    public void flush()
    {
        // every offer was sent at once
    }

    @Override
    public String counters()
    {
        return "injected=0 datagrams=" + datagrams;
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }
}
