package io.rdma4j.soft.link;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.link.socket.UdpLinks;

import java.net.InetAddress;
import java.nio.file.Path;

/**
 * UDP links for tests, made as a device of this JVM would make them: on the socket its settings ask for (the
 * build runs the link tests again with {@code rdma4j.soft.socket=nio}) and with the inbox directory the build gives
 * the tests.
 */
public final class TestLinks
{
    /** This JVM's settings, read once as the registry reads them. */
    public static final SoftSettings SETTINGS = SoftSettings.fromSystem();
    /** The socket those settings give on this platform. */
    public static final UdpLinks.Socket SOCKET = UdpLinks.chosen(SETTINGS.socket());

    private TestLinks()
    {
    }

    /**
     * @param address an address of this host.
     * @return a link on {@link Link#ROCE_V2_PORT}.
     */
    public static IpLink open(final InetAddress address)
    {
        return open(address, Link.ROCE_V2_PORT);
    }

    /**
     * @param address an address of this host.
     * @param port    the UDP port.
     * @return a link on that port.
     */
    public static IpLink open(final InetAddress address, final int port)
    {
        return UdpLinks.open(SOCKET, address, port);
    }

    /**
     * @return the same-host inbox directory of this JVM's devices.
     */
    public static Path shmDirectory()
    {
        return SETTINGS.shmDirectory();
    }
}
