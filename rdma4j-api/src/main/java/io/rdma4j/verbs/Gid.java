package io.rdma4j.verbs;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;

/**
 * A 128-bit global identifier. On RoCEv2 a GID is an IP address: IPv6 as is, IPv4 in its
 * IPv4-mapped form {@code ::ffff:a.b.c.d}; a multicast group's MGID is the group address mapped
 * the same way.
 *
 * @param high the first 8 bytes, big-endian.
 * @param low  the last 8 bytes, big-endian.
 */
public record Gid(long high, long low)
{
    /** The all-zero GID. */
    public static final Gid ZERO = new Gid(0, 0);

    private static final long V4_MAPPED_PREFIX = 0x0000_FFFF_0000_0000L;

    /**
     * @param bytes 16 bytes, most significant first.
     * @return the GID.
     */
    public static Gid of(final byte[] bytes)
    {
        if (bytes.length != 16)
        {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + bytes.length);
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++)
        {
            hi = (hi << 8) | (bytes[i] & 0xFF);
            lo = (lo << 8) | (bytes[i + 8] & 0xFF);
        }
        return new Gid(hi, lo);
    }

    /**
     * @param address an IPv4 or IPv6 address.
     * @return its RoCEv2 GID: IPv4-mapped for IPv4.
     */
    public static Gid fromInet(final InetAddress address)
    {
        final byte[] raw = address.getAddress();
        if (raw.length == 4)
        {
            return fromIpv4(((raw[0] & 0xFF) << 24) | ((raw[1] & 0xFF) << 16) | ((raw[2] & 0xFF) << 8) | (raw[3] & 0xFF));
        }
        return of(raw);
    }

    /**
     * @param ipv4 an IPv4 address as a big-endian int.
     * @return its IPv4-mapped GID.
     */
    public static Gid fromIpv4(final int ipv4)
    {
        return new Gid(0, V4_MAPPED_PREFIX | (ipv4 & 0xFFFF_FFFFL));
    }

    /**
     * @param text a GID as eight colon-separated groups, or any IP address literal.
     * @return the GID.
     */
    public static Gid parse(final String text)
    {
        try
        {
            return fromInet(InetAddress.ofLiteral(text));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("not a GID or IP address literal: " + text, ex);
        }
    }

    /**
     * @return the 16 bytes, most significant first.
     */
    public byte[] toBytes()
    {
        final byte[] bytes = new byte[16];
        for (int i = 0; i < 8; i++)
        {
            bytes[i] = (byte)(high >>> (56 - 8 * i));
            bytes[i + 8] = (byte)(low >>> (56 - 8 * i));
        }
        return bytes;
    }

    /**
     * @return true if this is an IPv4-mapped GID ({@code ::ffff:a.b.c.d}).
     */
    public boolean isIpv4Mapped()
    {
        return high == 0 && (low >>> 32) == 0xFFFF;
    }

    /**
     * @return the IPv4 address of an IPv4-mapped GID as a big-endian int.
     */
    public int ipv4()
    {
        return (int)low;
    }

    /**
     * A multicast GID: first byte 0xFF (IB and IPv6 multicast), or an IPv4-mapped address in
     * 224.0.0.0/4 (how RoCEv2 writes an IPv4 group).
     *
     * @return true if this GID names a multicast group.
     */
    public boolean isMulticast()
    {
        if ((high >>> 56) == 0xFF)
        {
            return true;
        }
        return isIpv4Mapped() && (ipv4() >>> 28) == 0xE;
    }

    /**
     * @return true if all 128 bits are zero.
     */
    public boolean isZero()
    {
        return high == 0 && low == 0;
    }

    /**
     * @return the IP address this GID stands for on RoCEv2.
     */
    public InetAddress toInet()
    {
        try
        {
            if (isIpv4Mapped())
            {
                final int v4 = ipv4();
                return Inet4Address.getByAddress(new byte[] {
                    (byte)(v4 >>> 24), (byte)(v4 >>> 16), (byte)(v4 >>> 8), (byte)v4 });
            }
            return Inet6Address.getByAddress(null, toBytes(), null);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @return the GID as ibv_devinfo prints it: eight groups of four hex digits.
     */
    @Override
    public String toString()
    {
        final String hex = HexFormat.of().formatHex(toBytes());
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4)
        {
            if (i > 0)
            {
                sb.append(':');
            }
            sb.append(hex, i, i + 4);
        }
        return sb.toString();
    }
}
