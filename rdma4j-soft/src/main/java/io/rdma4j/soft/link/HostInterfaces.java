package io.rdma4j.soft.link;

import io.rdma4j.verbs.Errno;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;

/**
 * The host's network interface that owns a device's address: where either socket of an {@link IpLink} sends
 * multicast and joins groups.
 */
public final class HostInterfaces
{
    private HostInterfaces()
    {
    }

    /**
     * @param address one of this host's addresses.
     * @return the interface it is on; the up loopback interface for any 127.x.y.z.
     * @throws IllegalStateException if no interface of this host has the address.
     * @throws UncheckedIOException  if the interfaces cannot be listed.
     */
    public static NetworkInterface of(final InetAddress address)
    {
        try
        {
            NetworkInterface networkInterface = NetworkInterface.getByInetAddress(address);
            if (null == networkInterface && address.isLoopbackAddress())
            {
                // 127.x.y.z other than 127.0.0.1 is local through the 127/8 route, not assigned to lo
                networkInterface = NetworkInterface.networkInterfaces()
                    .filter(HostInterfaces::isUpLoopback)
                    .findFirst()
                    .orElse(null);
            }
            if (null == networkInterface)
            {
                throw new LinkOpenException(Errno.EADDRNOTAVAIL,
                    address.getHostAddress() + " is not an address of this host: a link binds one of the " +
                    "host's own addresses (127.x.y.z on loopback)");
            }
            return networkInterface;
        }
        catch (final SocketException ex)
        {
            throw new UncheckedIOException("cannot list the network interfaces: " + ex.getMessage(), ex);
        }
    }

    private static boolean isUpLoopback(final NetworkInterface networkInterface)
    {
        try
        {
            return networkInterface.isLoopback() && networkInterface.isUp();
        }
        catch (final SocketException ex)
        {
            return false;
        }
    }
}
