package io.rdma4j.soft.link.linux;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteOrder;

/**
 * {@code struct sockaddr_in} and {@code struct sockaddr_in6} written into native memory: the family in
 * host order, the port and the address in network order.
 */
final class SocketAddresses
{
    /** {@code sizeof(struct sockaddr_in)}. */
    static final int IPV4_BYTES = 16;
    /** {@code sizeof(struct sockaddr_in6)}. */
    static final int IPV6_BYTES = 28;

    private static final ValueLayout.OfShort SHORT_BE =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private SocketAddresses()
    {
    }

    /**
     * @param arena   where the address lives.
     * @param address an IPv4 or IPv6 address.
     * @param port    the UDP port.
     * @return the socket address, its byte size the length {@code bind} and {@code msg_namelen} take.
     */
    static MemorySegment encode(final Arena arena, final InetAddress address, final int port)
    {
        final byte[] raw = address.getAddress();
        if (address instanceof Inet4Address)
        {
            final MemorySegment sockaddr = arena.allocate(IPV4_BYTES, 8);
            sockaddr.set(ValueLayout.JAVA_SHORT, 0, (short)LinuxLibc.AF_INET);
            sockaddr.set(SHORT_BE, 2, (short)port);
            MemorySegment.copy(raw, 0, sockaddr, ValueLayout.JAVA_BYTE, 4, 4);
            return sockaddr;
        }
        final MemorySegment sockaddr = arena.allocate(IPV6_BYTES, 8);
        sockaddr.set(ValueLayout.JAVA_SHORT, 0, (short)LinuxLibc.AF_INET6);
        sockaddr.set(SHORT_BE, 2, (short)port);
        MemorySegment.copy(raw, 0, sockaddr, ValueLayout.JAVA_BYTE, 8, 16);
        sockaddr.set(ValueLayout.JAVA_INT, 24, ((Inet6Address)address).getScopeId());
        return sockaddr;
    }
}
