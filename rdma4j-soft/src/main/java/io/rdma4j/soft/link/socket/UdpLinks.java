package io.rdma4j.soft.link.socket;

import io.rdma4j.soft.link.IpLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.UdpLink;

import io.rdma4j.soft.link.linux.LinuxUdpLink;

import java.net.InetAddress;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Chooses the socket under a device's IP link: {@code rdma4j.soft.socket} (or the environment
 * variable {@code RDMA4J_SOFT_SOCKET}) is {@code nio} for the portable {@link UdpLink},
 * {@code linux} for {@link LinuxUdpLink} (batched {@code recvmmsg}/{@code sendmmsg}, UDP GSO and
 * GRO, through the FFM API), or {@code auto}, the default: the Linux socket wherever its C
 * library binding loads, NIO elsewhere.
 */
public final class UdpLinks
{
    /** The system property naming the socket. */
    public static final String PROPERTY = "rdma4j.soft.socket";
    /** The environment variable naming the socket when the property is not set. */
    public static final String ENVIRONMENT = "RDMA4J_SOFT_SOCKET";

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

    private static String setting()
    {
        final String setting = System.getProperty(PROPERTY);
        return null == setting ? System.getenv(ENVIRONMENT) : setting;
    }

    /**
     * @return the socket {@link #open} uses, from the property, the environment and the platform.
     * @throws IllegalArgumentException if the setting is not auto, nio or linux, or asks for the
     *                                  Linux socket where it cannot load (the sentence says why).
     */
    public static Socket chosen()
    {
        final String setting = setting();
        final String value = null == setting ? "auto" : setting.trim().toLowerCase(Locale.ROOT);
        return switch (value)
        {
            case "auto", "" -> null == LinuxUdpLink.unavailableReason() ? Socket.LINUX : Socket.NIO;
            case "nio" -> Socket.NIO;
            case "linux" ->
            {
                final String reason = LinuxUdpLink.unavailableReason();
                if (null != reason)
                {
                    throw new IllegalArgumentException(PROPERTY + "=linux cannot be used: " + reason);
                }
                yield Socket.LINUX;
            }
            default -> throw new IllegalArgumentException(
                PROPERTY + " (or " + ENVIRONMENT + ") is '" + setting + "': it must be auto, nio or linux");
        };
    }

    /**
     * Open a link on {@link Link#ROCE_V2_PORT} with the chosen socket.
     *
     * @param localAddress an address of this host, the device's GID.
     * @return the link.
     */
    public static IpLink open(final InetAddress localAddress)
    {
        return open(localAddress, Link.ROCE_V2_PORT);
    }

    /**
     * Open a link on {@link Link#ROCE_V2_PORT} with the chosen socket, as a device does: where {@code auto} falls
     * back to NIO on Linux, the logger hears why, once per process. A Linux host without native access for this
     * module runs several times slower for want of a flag, which a silent fallback would hide; an explicit
     * {@code nio} is a choice and says nothing.
     *
     * @param localAddress an address of this host, the device's GID.
     * @param logger       where the fallback is said.
     * @return the link.
     */
    public static IpLink open(final InetAddress localAddress, final System.Logger logger)
    {
        final Socket socket = chosen();
        final String setting = setting();
        final boolean auto = null == setting || setting.isBlank() || "auto".equalsIgnoreCase(setting.trim());
        if (Socket.NIO == socket && auto && System.getProperty("os.name", "").startsWith("Linux") &&
            FALLBACK_SAID.compareAndSet(false, true))
        {
            logger.log(System.Logger.Level.WARNING, "rdma4j: not using the Linux socket, " +
                LinuxUdpLink.unavailableReason() + "; the NIO socket sends and receives one datagram per system " +
                "call (" + PROPERTY + "=nio chooses it without this warning)");
        }
        return open(socket, localAddress, Link.ROCE_V2_PORT);
    }

    /**
     * Open a link with the chosen socket; the constructors of {@link UdpLink} and
     * {@link LinuxUdpLink} say what each refuses.
     *
     * @param localAddress an address of this host, the device's GID.
     * @param port         the UDP port to receive on, send from and send to.
     * @return the link.
     */
    public static IpLink open(final InetAddress localAddress, final int port)
    {
        return open(chosen(), localAddress, port);
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
