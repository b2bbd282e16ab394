package io.rdma4j.rdmacore.cm;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * Linux's {@code struct sockaddr_in} and {@code sockaddr_in6}, as librdmacm takes and returns addresses: the
 * family in host order, the port in network order, then the address bytes.
 */
final class SockAddr
{
    /** {@code AF_INET}. */
    static final short AF_INET = 2;
    /** {@code AF_INET6} on Linux. */
    static final short AF_INET6 = 10;

    private static final ValueLayout.OfShort PORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long SIZE = 128;

    private SockAddr()
    {
    }

    /**
     * @param arena where the struct lives.
     * @param address an IPv4 or IPv6 address and port.
     * @return a {@code struct sockaddr_storage} holding it.
     */
    static MemorySegment write(final Arena arena, final InetSocketAddress address)
    {
        if (address.isUnresolved())
        {
            throw new RdmaException(Errno.EINVAL, "the address " + address + " is unresolved: give an IP address");
        }
        final MemorySegment sa = arena.allocate(SIZE, 8);
        final InetAddress ip = address.getAddress();
        sa.set(PORT, 2, (short)address.getPort());
        if (ip instanceof Inet4Address)
        {
            sa.set(ValueLayout.JAVA_SHORT, 0, AF_INET);
            MemorySegment.copy(ip.getAddress(), 0, sa, ValueLayout.JAVA_BYTE, 4, 4);
        }
        else
        {
            sa.set(ValueLayout.JAVA_SHORT, 0, AF_INET6);
            MemorySegment.copy(ip.getAddress(), 0, sa, ValueLayout.JAVA_BYTE, 8, 16);
            sa.set(ValueLayout.JAVA_INT, 24, ((Inet6Address)ip).getScopeId());
        }
        return sa;
    }

    /**
     * @param sa a socket address inside a struct of librdmacm.
     * @return the address, or null when the family is unset (nothing bound or resolved yet).
     */
    static InetSocketAddress read(final MemorySegment sa)
    {
        final short family = sa.get(ValueLayout.JAVA_SHORT, 0);
        final int port = Short.toUnsignedInt(sa.get(PORT, 2));
        try
        {
            if (family == AF_INET)
            {
                return new InetSocketAddress(InetAddress.getByAddress(sa.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE)),
                    port);
            }
            if (family == AF_INET6)
            {
                return new InetSocketAddress(Inet6Address.getByAddress(null,
                    sa.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE), sa.get(ValueLayout.JAVA_INT, 24)), port);
            }
            return null;
        }
        catch (final UnknownHostException ex)
        {
            // getByAddress only throws for a wrong length, which the slices above rule out
            throw new IllegalStateException(ex);
        }
    }
}
