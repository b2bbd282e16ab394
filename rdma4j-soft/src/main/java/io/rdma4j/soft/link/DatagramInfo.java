package io.rdma4j.soft.link;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/**
 * Where a received datagram came from and where it was sent to: what the ICRC check and the
 * GRH of a UD completion need from the IP and UDP headers; after {@link Link#receiveInPlace}, also where its
 * bytes lie. Reused from datagram to datagram.
 */
public final class DatagramInfo
{
    /**
     * After {@link Link#receiveInPlace}: the memory holding the datagram, the link's own or the caller's buffer,
     * valid until the link's next receive or its close.
     */
    public MemorySegment data;
    /** Where in {@link #data} the datagram starts. */
    public long dataOffset;
    /** The datagram's length. */
    public int dataLength;
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
    /**
     * Where {@link #ipIdentification} is unknown, the identification the ICRC check tries before it solves for one:
     * the datagram's place in the GRO run it came in, 0 for the first or a datagram alone. A {@code UDP_SEGMENT}
     * sender with identification 0 numbers its run's segments 0, 1, 2 ... (ours do; LinuxUdpLink), so for a run
     * received whole the guess is right, and the check needs no solving (a tenth of a microsecond and more a
     * segment). A wrong guess costs only the solving.
     */
    public int ipIdentificationGuess;
    /**
     * True if the datagram came through this device's owner-only shared-memory inbox, which only processes of
     * this user can write, rather than through a socket, which any local process can send to from any local
     * address: the same-host link sets it for each datagram; every other link leaves it false.
     */
    public boolean viaSameHostPath;
    /**
     * True if the datagram came through the same-host inbox without its ICRC, which its sender left out (the
     * field reads 0): the inbox's memory is this user's alone, so the CRC would protect it from nothing. Only
     * the same-host link sets it, for such a record; {@link #receivedAt} clears it.
     */
    public boolean icrcOmitted;
    /**
     * True for a multicast packet this device sent, handed to its own members on the sending thread rather than
     * by the receive side (the receive path's loopback; no link sets it): its counts go to the counters' shared
     * slots, as that thread does not hold the receive claim.
     */
    public boolean loopedBack;

    /**
     * Record where a datagram a UDP socket received was sent to: the socket's address (as its four forms) and
     * port. A UDP socket shows neither the TTL nor the identification, so both become -1 (unknown).
     *
     * @param address  the destination address.
     * @param ipv4     it as a big-endian int, 0 when it is not IPv4.
     * @param ipv6High its first 8 bytes when IPv6, else 0.
     * @param ipv6Low  its last 8 bytes when IPv6, else 0.
     * @param port     the destination port.
     */
    public void receivedAt(
        final InetAddress address, final int ipv4, final long ipv6High, final long ipv6Low, final int port)
    {
        destination = address;
        destinationIpv4 = ipv4;
        destinationIpv6High = ipv6High;
        destinationIpv6Low = ipv6Low;
        destinationPort = port;
        ttl = -1;
        ipIdentification = -1;
        ipIdentificationGuess = 0;
        icrcOmitted = false;
    }
}
