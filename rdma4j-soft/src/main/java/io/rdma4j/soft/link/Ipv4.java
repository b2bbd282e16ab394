package io.rdma4j.soft.link;

import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * IPv4 addresses as the big-endian ints the packet headers and the ICRC use.
 * <p>
 * {@link InetAddress#getAddress()} copies the address into a new array on every call, so the
 * data path converts once, where an address is configured or first seen, and keeps the int.
 */
public final class Ipv4
{
    /**
     * The hop limit (TTL) of a host route, IPV6_DEFAULT_HOPLIMIT: what rdma_cm puts in a RoCE path
     * and a group's address vector, and the TTL the CM's MADs go with.
     */
    public static final int DEFAULT_HOP_LIMIT = 64;

    private Ipv4()
    {
    }

    /**
     * @param address an IP address.
     * @return the IPv4 address as a big-endian int, or 0 (never a valid source or destination)
     * for null or a non-IPv4 address.
     */
    public static int toInt(final InetAddress address)
    {
        if (address instanceof Inet4Address v4)
        {
            final byte[] raw = v4.getAddress();
            return ((raw[0] & 0xFF) << 24) | ((raw[1] & 0xFF) << 16) | ((raw[2] & 0xFF) << 8) | (raw[3] & 0xFF);
        }
        return 0;
    }

    /**
     * @param address an IPv4 address as a big-endian int.
     * @return it as an {@link InetAddress}.
     */
    public static InetAddress toAddress(final int address)
    {
        final byte[] raw = { (byte)(address >>> 24), (byte)(address >>> 16), (byte)(address >>> 8), (byte)address };
        try
        {
            return InetAddress.getByAddress(raw);
        }
        catch (final java.net.UnknownHostException ex)
        {
            throw new IllegalStateException("four bytes are always an IPv4 address", ex);
        }
    }
}
