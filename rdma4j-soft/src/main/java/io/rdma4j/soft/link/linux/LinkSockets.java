package io.rdma4j.soft.link.linux;

import io.rdma4j.soft.link.LinkOpenException;
import io.rdma4j.soft.link.PortInUse;
import io.rdma4j.verbs.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;

import static io.rdma4j.soft.link.linux.LinuxLibc.AF_INET;
import static io.rdma4j.soft.link.linux.LinuxLibc.AF_INET6;
import static io.rdma4j.soft.link.linux.LinuxLibc.SOL_UDP;
import static io.rdma4j.soft.link.linux.LinuxLibc.UDP_GRO;
import static io.rdma4j.soft.link.linux.LinuxLibc.UDP_SEGMENT;

/**
 * Opening and configuring a {@link LinuxUdpLink}'s sockets, apart from what the link does with them: the
 * unicast socket bound to the device's address and port (with the options the receive path and the ICRC rely
 * on), the wake-up eventfd, and a socket per multicast group, bound to group:port and joined on the device's
 * interface. Runs at open, join and leave, never per packet; each call that may run after the link opened
 * takes scratch memory of its own.
 */
final class LinkSockets
{
    private static final int RECEIVE_BUFFER_BYTES = 8 * 1024 * 1024;
    private static final int SEND_BUFFER_BYTES = 4 * 1024 * 1024;

    private final InetAddress localAddress;
    private final int port;
    private final int family;
    private final NetworkInterface networkInterface;
    private final int interfaceIndex;

    /**
     * What the unicast socket turned out to support, for the send and receive batches.
     *
     * @param fd               the socket, bound.
     * @param ipIdentification 0 where every datagram leaves with identification 0 (DF set, or IPv6), -1 where
     *                         the kernel numbers them.
     * @param segmentsSends    UDP GSO is on.
     * @param coalescesReceives UDP GRO is on.
     */
    record Unicast(int fd, int ipIdentification, boolean segmentsSends, boolean coalescesReceives)
    {
    }

    LinkSockets(final InetAddress localAddress, final int port, final NetworkInterface networkInterface)
    {
        this.localAddress = localAddress;
        this.port = port;
        this.family = localAddress instanceof Inet6Address ? AF_INET6 : AF_INET;
        this.networkInterface = networkInterface;
        this.interfaceIndex = Math.max(0, networkInterface.getIndex());
    }

    /**
     * Open the unicast socket, bind it and set what the device relies on: DF (the ICRC covers the IP
     * identification), the multicast interface and loopback, and GSO and GRO where asked and available.
     *
     * @param segmentation false to send and receive every datagram on its own.
     * @return the socket and what it supports.
     * @throws LinkOpenException if it cannot be opened or bound (the address in use names the usual cause).
     */
    Unicast openUnicast(final boolean segmentation)
    {
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment capture = LinuxLibc.newCapture(scratch);
            final MemorySegment option = scratch.allocate(64, 8);
            final int fd = openSocket(capture);
            try
            {
                bindUnicast(capture, option, fd);
                final boolean dontFragment = SocketOptions.dontFragment(capture, option, fd, family);
                SocketOptions.multicastInterface(capture, option, fd, family, localAddress, interfaceIndex);
                SocketOptions.setInt(capture, option, fd, ipLevel(), AF_INET == family ?
                    LinuxLibc.IP_MULTICAST_LOOP : LinuxLibc.IPV6_MULTICAST_LOOP, 1, "IP_MULTICAST_LOOP");
                final boolean gso = segmentation && SocketOptions.tryInt(capture, option, fd, SOL_UDP, UDP_SEGMENT, 0);
                final boolean gro = segmentation && SocketOptions.tryInt(capture, option, fd, SOL_UDP, UDP_GRO, 1);
                return new Unicast(fd, AF_INET6 == family || dontFragment ? 0 : -1, gso, gro);
            }
            catch (final RuntimeException ex)
            {
                close(fd);
                throw ex;
            }
        }
    }

    /**
     * @return a non-blocking eventfd that ends the link's {@code poll} when written.
     */
    int openEventFd()
    {
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment capture = LinuxLibc.newCapture(scratch);
            final int event = LinuxLibc.eventfd(capture, LinuxLibc.EFD_NONBLOCK | LinuxLibc.EFD_CLOEXEC);
            if (event < 0)
            {
                throw new IllegalStateException("eventfd for " + addressAndPort() + " failed: errno " +
                    LinuxLibc.errno(capture));
            }
            return event;
        }
    }

    /**
     * Open a socket bound to {@code group:port} with {@code SO_REUSEADDR} (every process on this host that joins
     * the group gets a copy) and join the group on the device's interface.
     *
     * @param group a multicast group of the link's family.
     * @param gro   true to coalesce its receives, as the unicast socket does.
     * @return the group's endpoint.
     * @throws IllegalStateException if the group cannot be joined.
     */
    Endpoint openGroup(final InetAddress group, final boolean gro)
    {
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment option = scratch.allocate(64, 8);
            final MemorySegment capture = LinuxLibc.newCapture(scratch);
            final int fd = openSocket(capture);
            try
            {
                SocketOptions.setInt(capture, option, fd, LinuxLibc.SOL_SOCKET, LinuxLibc.SO_REUSEADDR, 1,
                    "SO_REUSEADDR");
                if (AF_INET6 == family)
                {
                    SocketOptions.setInt(capture, option, fd, LinuxLibc.IPPROTO_IPV6, LinuxLibc.IPV6_V6ONLY, 1,
                        "IPV6_V6ONLY");
                    acceptZeroChecksums(capture, option, fd);
                }
                SocketOptions.tryInt(capture, option, fd, LinuxLibc.SOL_SOCKET, LinuxLibc.SO_RCVBUF,
                    RECEIVE_BUFFER_BYTES);
                SocketOptions.tryInt(capture, option, fd, LinuxLibc.SOL_SOCKET, LinuxLibc.SO_RXQ_OVFL, 1);
                // as the JDK does: a group socket hears only the groups it joined
                SocketOptions.tryInt(capture, option, fd, ipLevel(), AF_INET == family ? LinuxLibc.IP_MULTICAST_ALL :
                    LinuxLibc.IPV6_MULTICAST_ALL, 0);
                if (gro)
                {
                    SocketOptions.tryInt(capture, option, fd, SOL_UDP, UDP_GRO, 1);
                }
                final MemorySegment sockaddr = SocketAddresses.encode(scratch, group, port);
                if (LinuxLibc.bind(capture, fd, sockaddr, (int)sockaddr.byteSize()) < 0)
                {
                    throw new IllegalStateException("cannot bind " + group.getHostAddress() + ":" + port + " for " +
                        addressAndPort() + ": errno " + LinuxLibc.errno(capture));
                }
                SocketOptions.membership(capture, option, fd, family, group, interfaceIndex, true);
                return new Endpoint(fd, group, group);
            }
            catch (final RuntimeException ex)
            {
                close(fd);
                throw new IllegalStateException("cannot join " + group.getHostAddress() + ":" + port + " on " +
                    networkInterface.getName() + " for " + addressAndPort() + ": " + ex.getMessage(), ex);
            }
        }
    }

    /**
     * Drop a group's membership and close its socket.
     *
     * @param endpoint the group's endpoint.
     */
    void closeGroup(final Endpoint endpoint)
    {
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment option = scratch.allocate(64, 8);
            final MemorySegment capture = LinuxLibc.newCapture(scratch);
            SocketOptions.membership(capture, option, endpoint.fd, family, endpoint.group, interfaceIndex, false);
        }
        catch (final RuntimeException ex)
        {
            // closing the socket drops the membership anyway
        }
        close(endpoint.fd);
    }

    /**
     * @param fd a descriptor, or a negative number for none.
     */
    static void close(final int fd)
    {
        if (fd >= 0)
        {
            try (Arena scratch = Arena.ofConfined())
            {
                LinuxLibc.close(LinuxLibc.newCapture(scratch), fd);
            }
        }
    }

    /**
     * @return "address:port", the IPv6 address in brackets, for messages.
     */
    String addressAndPort()
    {
        return (localAddress instanceof Inet6Address ? "[" + localAddress.getHostAddress() + "]" :
            localAddress.getHostAddress()) + ":" + port;
    }

    private int openSocket(final MemorySegment capture)
    {
        final int fd = LinuxLibc.socket(capture, family,
            LinuxLibc.SOCK_DGRAM | LinuxLibc.SOCK_NONBLOCK | LinuxLibc.SOCK_CLOEXEC);
        if (fd < 0)
        {
            final int errno = LinuxLibc.errno(capture);
            throw new LinkOpenException(Errno.fromCode(errno, Errno.EIO), "cannot open a UDP socket for " +
                addressAndPort() + ": errno " + errno);
        }
        return fd;
    }

    private void bindUnicast(final MemorySegment capture, final MemorySegment option, final int fd)
    {
        if (AF_INET6 == family)
        {
            SocketOptions.setInt(capture, option, fd, LinuxLibc.IPPROTO_IPV6, LinuxLibc.IPV6_V6ONLY, 1,
                "IPV6_V6ONLY");
            acceptZeroChecksums(capture, option, fd);
        }
        // the kernel's drops for want of room, told with the next datagram (ReceiveBatch.countKernelDrops)
        SocketOptions.tryInt(capture, option, fd, LinuxLibc.SOL_SOCKET, LinuxLibc.SO_RXQ_OVFL, 1);
        // ICMP errors to the error queue (ErrorQueue): "port unreachable" ends a connect to an address with no device
        SocketOptions.tryInt(capture, option, fd, ipLevel(), AF_INET == family ? LinuxLibc.IP_RECVERR :
            LinuxLibc.IPV6_RECVERR, 1);
        SocketOptions.tryInt(capture, option, fd, LinuxLibc.SOL_SOCKET, LinuxLibc.SO_RCVBUF, RECEIVE_BUFFER_BYTES);
        SocketOptions.tryInt(capture, option, fd, LinuxLibc.SOL_SOCKET, LinuxLibc.SO_SNDBUF, SEND_BUFFER_BYTES);
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment sockaddr = SocketAddresses.encode(scratch, localAddress, port);
            if (LinuxLibc.bind(capture, fd, sockaddr, (int)sockaddr.byteSize()) < 0)
            {
                final int errno = LinuxLibc.errno(capture);
                if (LinuxLibc.EADDRINUSE == errno)
                {
                    throw new LinkOpenException(Errno.EADDRINUSE, PortInUse.message(addressAndPort()));
                }
                throw new LinkOpenException(Errno.fromCode(errno, Errno.EIO), "cannot bind " + addressAndPort() +
                    ": errno " + errno +
                    (LinuxLibc.EADDRNOTAVAIL == errno ? " (not an address of this host)" : ""));
            }
        }
    }

    /** IPv6 UDP with a zero checksum, which RoCEv2 senders may use (the ICRC protects the packet). */
    private static void acceptZeroChecksums(final MemorySegment capture, final MemorySegment option, final int fd)
    {
        SocketOptions.tryInt(capture, option, fd, SOL_UDP, LinuxLibc.UDP_NO_CHECK6_RX, 1);
    }

    private int ipLevel()
    {
        return AF_INET == family ? LinuxLibc.IPPROTO_IP : LinuxLibc.IPPROTO_IPV6;
    }
}
