package io.rdma4j.soft.link;

import java.net.InetAddress;

/**
 * Where a received datagram came from and where it was sent to: what the ICRC check and the
 * GRH of a UD completion need from the IP and UDP headers. Reused from datagram to datagram.
 */
public final class DatagramInfo
{
    /** The sender's IP address. */
    public InetAddress source;
    /** {@link #source} as a big-endian int, 0 when it is not IPv4: what the headers and ICRC use. */
    public int sourceIpv4;
    /** The first 8 bytes of {@link #source}, big-endian, when it is IPv6 ({@link Ipv6}); 0 otherwise. */
    public long sourceIpv6High;
    /** The last 8 bytes of {@link #source} when it is IPv6; 0 otherwise. */
    public long sourceIpv6Low;
    /** The sender's UDP port. */
    public int sourcePort;
    /** The destination address: this link's unicast address or a multicast group. */
    public InetAddress destination;
    /** {@link #destination} as a big-endian int, 0 when it is not IPv4. */
    public int destinationIpv4;
    /** The first 8 bytes of {@link #destination}, big-endian, when it is IPv6; 0 otherwise. */
    public long destinationIpv6High;
    /** The last 8 bytes of {@link #destination} when it is IPv6; 0 otherwise. */
    public long destinationIpv6Low;
    /** The destination UDP port. */
    public int destinationPort;
    /** The IP TTL (IPv6 hop limit) the datagram arrived with, or -1 when the link cannot see it. */
    public int ttl = -1;
    /** The IPv4 identification field, or -1 when the link cannot see it (UDP sockets cannot). */
    public int ipIdentification = -1;
}
