package io.rdma4j.soft.link;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IPv6 addresses as two big-endian longs, the halves a {@code Gid} has: what the headers, the ICRC
 * and the receive checks use.
 * <p>
 * Like {@link Ipv4}, the data path converts an {@link InetAddress} once, where an address is
 * configured or first seen, and compares the halves after that: two longs are no new object per
 * datagram, and comparing them costs as little as comparing one IPv4 int.
 */
public final class Ipv6
{
    private static final int ADDRESS_BYTES = 16;
    private static final int MULTICAST_PREFIX = 0xFF;

    private Ipv6()
    {
    }

    /**
     * @param address an IP address.
     * @return the first 8 bytes of an IPv6 address, big-endian, or 0 for null or a non-IPv6 address.
     */
    public static long high(final InetAddress address)
    {
        return address instanceof Inet6Address v6 ? half(v6.getAddress(), 0) : 0;
    }

    /**
     * @param address an IP address.
     * @return the last 8 bytes of an IPv6 address, big-endian, or 0 for null or a non-IPv6 address.
     */
    public static long low(final InetAddress address)
    {
        return address instanceof Inet6Address v6 ? half(v6.getAddress(), 8) : 0;
    }

    /**
     * @param high the first 8 bytes, big-endian.
     * @return true if they start an IPv6 multicast address (ff00::/8).
     */
    public static boolean isMulticast(final long high)
    {
        return (high >>> 56) == MULTICAST_PREFIX;
    }

    /**
     * @param high the first 8 bytes, big-endian.
     * @param low  the last 8 bytes.
     * @return the IPv6 address, never converted to IPv4 (the JDK would turn ::ffff:a.b.c.d into one).
     */
    public static InetAddress toAddress(final long high, final long low)
    {
        final byte[] raw = new byte[ADDRESS_BYTES];
        for (int i = 0; i < 8; i++)
        {
            raw[i] = (byte)(high >>> (56 - 8 * i));
            raw[8 + i] = (byte)(low >>> (56 - 8 * i));
        }
        try
        {
            return Inet6Address.getByAddress(null, raw, -1);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException("sixteen bytes are always an IPv6 address", ex);
        }
    }

    private static long half(final byte[] raw, final int from)
    {
        long value = 0;
        for (int i = from; i < from + 8; i++)
        {
            value = (value << 8) | (raw[i] & 0xFF);
        }
        return value;
    }
}
