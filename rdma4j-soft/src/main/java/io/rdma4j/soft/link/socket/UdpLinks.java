package io.rdma4j.soft.link.socket;

import io.rdma4j.soft.config.SocketChoice;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.link.IpLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.UdpLink;

import io.rdma4j.soft.link.linux.LinuxUdpLink;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Chooses the socket under a device's IP link, as the device's settings ({@code rdma4j.soft.socket}) ask:
 * {@code nio} for the portable {@link UdpLink}, {@code linux} for {@link LinuxUdpLink} (batched
 * {@code recvmmsg}/{@code sendmmsg}, UDP GSO and GRO, through the FFM API), or {@code auto}: the Linux socket
 * wherever its C library binding loads, NIO elsewhere.
 */
public final class UdpLinks
{
    /** The sockets an IP link can run on. */
    public enum Socket
    {
        /** {@link java.nio.channels.DatagramChannel}s, one datagram per system call: every platform. */
        NIO,
        /** The Linux socket API through the FFM API: batches of datagrams per system call. */
        LINUX
    }

    /** Whether this process has been told that auto fell back to NIO: once, however many devices it opens. */
    private static final AtomicBoolean FALLBACK_SAID = new AtomicBoolean();

    private UdpLinks()
    {
    }

    /**
     * @param choice the socket the settings ask for.
     * @return the socket that choice gives on this platform.
     * @throws IllegalArgumentException if the choice is the Linux socket where it cannot load (the sentence says
     *                                  why).
     */
    public static Socket chosen(final SocketChoice choice)
    {
        return switch (choice)
        {
            case AUTO -> null == LinuxUdpLink.unavailableReason() ? Socket.LINUX : Socket.NIO;
            case NIO -> Socket.NIO;
            case LINUX ->
            {
                final String reason = LinuxUdpLink.unavailableReason();
                if (null != reason)
                {
                    throw new IllegalArgumentException(SoftSettings.SOCKET.property() + "=linux cannot be used: " +
                        reason);
                }
                yield Socket.LINUX;
            }
        };
    }

    /**
     * Open a link on {@link Link#ROCE_V2_PORT} with the chosen socket, as a device does: where {@code auto} falls
     * back to NIO on Linux, the logger hears why, once per process. A Linux host without native access for this
     * module runs several times slower for want of a flag, which a silent fallback would hide; an explicit
     * {@code nio} is a choice and says nothing.
     *
     * @param localAddress an address of this host, the device's GID.
     * @param choice       the socket the device's settings ask for.
     * @param logger       where the fallback is said.
     * @return the link.
     */
    public static IpLink open(final InetAddress localAddress, final SocketChoice choice, final System.Logger logger)
    {
        final Socket socket = chosen(choice);
        if (Socket.NIO == socket && SocketChoice.AUTO == choice &&
            System.getProperty("os.name", "").startsWith("Linux") && FALLBACK_SAID.compareAndSet(false, true))
        {
            logger.log(System.Logger.Level.WARNING, "rdma4j: not using the Linux socket, " +
                LinuxUdpLink.unavailableReason() + "; the NIO socket sends and receives one datagram per system " +
                "call (" + SoftSettings.SOCKET.property() + "=nio chooses it without this warning)");
        }
        return open(socket, localAddress, Link.ROCE_V2_PORT);
    }

    /**
     * @param socket       the socket to use.
     * @param localAddress an address of this host, the device's GID.
     * @param port         the UDP port to receive on, send from and send to.
     * @return the link.
     */
    public static IpLink open(final Socket socket, final InetAddress localAddress, final int port)
    {
        return Socket.LINUX == socket ? new LinuxUdpLink(localAddress, port) : new UdpLink(localAddress, port);
    }
}
