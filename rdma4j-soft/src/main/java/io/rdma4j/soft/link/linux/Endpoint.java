package io.rdma4j.soft.link.linux;

import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.link.Ipv6;

import java.net.InetAddress;

/**
 * A socket a {@link LinuxUdpLink} receives on: the unicast one, or one bound to a joined group, and the
 * destination its datagrams were sent to.
 */
final class Endpoint
{
    /** The descriptor; -1 once closed. */
    final int fd;
    /** The link's address or the group. */
    final InetAddress destination;
    /** {@link #destination} as a big-endian int, 0 when it is not IPv4. */
    final int destinationIpv4;
    /** {@link #destination}'s first 8 bytes, big-endian, when it is IPv6; 0 otherwise. */
    final long destinationIpv6High;
    /** {@link #destination}'s last 8 bytes, big-endian, when it is IPv6; 0 otherwise. */
    final long destinationIpv6Low;
    /** The group, or null for the unicast socket. */
    final InetAddress group;
    /** The kernel's count of datagrams this socket dropped, as last seen (SO_RXQ_OVFL); receive lock held. */
    int kernelDrops;
    /** Joins not yet left; guarded by the link's group map. */
    int joins = 1;

    Endpoint(final int fd, final InetAddress destination, final InetAddress group)
    {
        this.fd = fd;
        this.destination = destination;
        this.destinationIpv4 = Ipv4.toInt(destination);
        this.destinationIpv6High = Ipv6.high(destination);
        this.destinationIpv6Low = Ipv6.low(destination);
        this.group = group;
    }
}
