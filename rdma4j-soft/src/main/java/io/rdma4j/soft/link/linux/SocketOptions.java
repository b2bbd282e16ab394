package io.rdma4j.soft.link.linux;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;

/**
 * {@code setsockopt} with the values a link sets: ints, the multicast interface and group memberships.
 * The option buffer and the errno capture are the caller's.
 */
final class SocketOptions
{
    private SocketOptions()
    {
    }

    /**
     * @return true if the kernel took the option.
     */
    static boolean tryInt(
        final MemorySegment capture, final MemorySegment option, final int fd, final int level, final int name,
        final int value)
    {
        option.set(ValueLayout.JAVA_INT, 0, value);
        return LinuxLibc.setsockopt(capture, fd, level, name, option, 4) == 0;
    }

    /**
     * @throws IllegalStateException naming the option and the errno if the kernel refused it.
     */
    static void setInt(
        final MemorySegment capture, final MemorySegment option, final int fd, final int level, final int name,
        final int value, final String what)
    {
        if (!tryInt(capture, option, fd, level, name, value))
        {
            throw new IllegalStateException("setsockopt " + what + " = " + value + " failed: errno " +
                LinuxLibc.errno(capture));
        }
    }

    /**
     * {@code IP_MTU_DISCOVER} (or {@code IPV6_MTU_DISCOVER}) = DO: DF on every datagram, never fragmented,
     * and, for IPv4 on an unconnected socket, identification 0.
     *
     * @return true if set.
     */
    static boolean dontFragment(final MemorySegment capture, final MemorySegment option, final int fd, final int family)
    {
        return LinuxLibc.AF_INET == family ?
            tryInt(capture, option, fd, LinuxLibc.IPPROTO_IP, LinuxLibc.IP_MTU_DISCOVER, LinuxLibc.IP_PMTUDISC_DO) :
            tryInt(capture, option, fd, LinuxLibc.IPPROTO_IPV6, LinuxLibc.IPV6_MTU_DISCOVER,
                LinuxLibc.IPV6_PMTUDISC_DO);
    }

    /**
     * Send multicast on the link's interface: {@code struct ip_mreqn} with the local address and interface
     * index for IPv4, the index for IPv6.
     */
    static void multicastInterface(
        final MemorySegment capture, final MemorySegment option, final int fd, final int family,
        final InetAddress local, final int interfaceIndex)
    {
        final int rc;
        if (LinuxLibc.AF_INET == family)
        {
            option.set(ValueLayout.JAVA_INT, 0, 0);
            MemorySegment.copy(local.getAddress(), 0, option, ValueLayout.JAVA_BYTE, 4, 4);
            option.set(ValueLayout.JAVA_INT, 8, interfaceIndex);
            rc = LinuxLibc.setsockopt(capture, fd, LinuxLibc.IPPROTO_IP, LinuxLibc.IP_MULTICAST_IF, option, 12);
        }
        else
        {
            option.set(ValueLayout.JAVA_INT, 0, interfaceIndex);
            rc = LinuxLibc.setsockopt(capture, fd, LinuxLibc.IPPROTO_IPV6, LinuxLibc.IPV6_MULTICAST_IF, option, 4);
        }
        if (rc != 0)
        {
            throw new IllegalStateException("setsockopt IP_MULTICAST_IF (interface " + interfaceIndex + ") failed: " +
                "errno " + LinuxLibc.errno(capture));
        }
    }

    /**
     * Join or leave a group on an interface: {@code struct ip_mreqn} (group, any address, index) or
     * {@code struct ipv6_mreq} (group, index).
     *
     * @throws IllegalStateException naming the errno if the kernel refused.
     */
    static void membership(
        final MemorySegment capture, final MemorySegment option, final int fd, final int family,
        final InetAddress group, final int interfaceIndex, final boolean join)
    {
        final byte[] raw = group.getAddress();
        final int rc;
        if (LinuxLibc.AF_INET == family)
        {
            MemorySegment.copy(raw, 0, option, ValueLayout.JAVA_BYTE, 0, 4);
            option.set(ValueLayout.JAVA_INT, 4, 0);
            option.set(ValueLayout.JAVA_INT, 8, interfaceIndex);
            rc = LinuxLibc.setsockopt(capture, fd, LinuxLibc.IPPROTO_IP,
                join ? LinuxLibc.IP_ADD_MEMBERSHIP : LinuxLibc.IP_DROP_MEMBERSHIP, option, 12);
        }
        else
        {
            MemorySegment.copy(raw, 0, option, ValueLayout.JAVA_BYTE, 0, 16);
            option.set(ValueLayout.JAVA_INT, 16, interfaceIndex);
            rc = LinuxLibc.setsockopt(capture, fd, LinuxLibc.IPPROTO_IPV6,
                join ? LinuxLibc.IPV6_ADD_MEMBERSHIP : LinuxLibc.IPV6_DROP_MEMBERSHIP, option, 20);
        }
        if (rc != 0)
        {
            throw new IllegalStateException((join ? "joining " : "leaving ") + group.getHostAddress() +
                " failed: errno " + LinuxLibc.errno(capture));
        }
    }
}
