package io.rdma4j.netty;

import io.rdma4j.verbs.Gid;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * The source and destination IP addresses of received datagrams, read from the 40-byte GRH slot of their receive
 * buffers (an IPv6 header, or twenty unused bytes and an IPv4 header), each kept as the {@link InetAddress} made
 * for the last datagram and handed out again while the next datagram's bytes are the same: a group's datagrams
 * come from few senders to one address, so a burst makes no address objects after its first datagram. Used on the
 * event loop's thread alone.
 */
final class GrhAddresses
{
    private static final int IPV4_HEADER = 20;

    private final byte[] address4 = new byte[4];
    private final byte[] address6 = new byte[16];
    /** The last of each, and the bytes it was made from: an IPv4 address as the low int, an IPv6 one as two longs. */
    private InetAddress source;
    private InetAddress destination;
    private boolean sourceIpv4;
    private boolean destinationIpv4;
    private long sourceHigh;
    private long sourceLow;
    private long destinationHigh;
    private long destinationLow;

    /**
     * @param view a receive buffer whose GRH slot holds a datagram's header.
     * @return whether the header is IPv4's.
     */
    static boolean isIpv4(final ByteBuffer view)
    {
        return (view.get(IPV4_HEADER) & 0xF0) == 0x40;
    }

    /**
     * @param view a receive buffer whose GRH slot holds a datagram's header.
     * @return the IPv4 source address as an int; only where {@link #isIpv4}.
     */
    static int ipv4Source(final ByteBuffer view)
    {
        return view.getInt(IPV4_HEADER + 12);
    }

    /**
     * Take a datagram's addresses; then {@link #source()} and {@link #destination()} give them.
     *
     * @param view a receive buffer whose GRH slot holds the datagram's header.
     */
    void read(final ByteBuffer view)
    {
        if (isIpv4(view))
        {
            final long from = view.getInt(IPV4_HEADER + 12);
            final long to = view.getInt(IPV4_HEADER + 16);
            if (source == null || !sourceIpv4 || sourceLow != from)
            {
                view.get(IPV4_HEADER + 12, address4);
                source = inet(address4);
                sourceIpv4 = true;
                sourceLow = from;
            }
            if (destination == null || !destinationIpv4 || destinationLow != to)
            {
                view.get(IPV4_HEADER + 16, address4);
                destination = inet(address4);
                destinationIpv4 = true;
                destinationLow = to;
            }
            return;
        }
        final long fromHigh = view.getLong(8);
        final long fromLow = view.getLong(16);
        final long toHigh = view.getLong(24);
        final long toLow = view.getLong(32);
        if (source == null || sourceIpv4 || sourceHigh != fromHigh || sourceLow != fromLow)
        {
            view.get(8, address6);
            source = Gid.of(address6).toInet();
            sourceIpv4 = false;
            sourceHigh = fromHigh;
            sourceLow = fromLow;
        }
        if (destination == null || destinationIpv4 || destinationHigh != toHigh || destinationLow != toLow)
        {
            view.get(24, address6);
            destination = Gid.of(address6).toInet();
            destinationIpv4 = false;
            destinationHigh = toHigh;
            destinationLow = toLow;
        }
    }

    /**
     * @return the source of the datagram {@link #read} last.
     */
    InetAddress source()
    {
        return source;
    }

    /**
     * @return the destination of the datagram {@link #read} last: a group, or the channel's own address.
     */
    InetAddress destination()
    {
        return destination;
    }

    private static InetAddress inet(final byte[] address)
    {
        try
        {
            return InetAddress.getByAddress(address);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
