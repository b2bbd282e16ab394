package io.rdma4j.tools.common;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.provider.SoftProvider;
import io.rdma4j.soft.provider.SoftProviderContext;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;

/**
 * Which address this process's soft device takes, for the tools that run as a server or a client (pingpong,
 * perf, rping, udaddy). Every soft device owns UDP 4791 on its address, so two such processes on one machine
 * need two addresses: the server keeps the provider's default (127.0.0.1), and a client whose server is on
 * this machine moves to the first free 127.0.0.x from 127.0.0.2 unless told otherwise; a client of an IPv6
 * server needs an address given, IPv6 loopback being one address only.
 */
public final class SoftAddress
{
    /** The system property the soft provider reads its addresses from when no tool gives one in code. */
    public static final String PROPERTY = SoftSettings.ADDRESS.property();
    /** The RoCEv2 UDP port every soft device binds. */
    static final int ROCE_PORT = 4791;

    private SoftAddress()
    {
    }

    /**
     * Give this process's soft device its address, in code ({@link SoftProvider#launchDefault}), never through a
     * system property; call before the device list is read.
     *
     * @param explicit   the --address value, or null.
     * @param serverName the server a client connects to, or null for a server.
     * @return the address chosen automatically, or null when the configured one stands.
     * @throws io.rdma4j.verbs.RdmaException EINVAL for an address that is not an IP literal; EBUSY if this
     *     process's soft provider was made already with other settings.
     */
    public static String configure(final String explicit, final String serverName)
    {
        return configure(null, explicit, serverName);
    }

    /**
     * Give this process's soft provider a context in code: the one given (the tool's other flags, such as perf's
     * --progress) with the address chosen as {@link #configure(String, String)} chooses it. Nothing given and
     * nothing chosen leaves the provider to the properties and the environment, as it would be without the tool.
     *
     * @param given      the tool's context for the soft provider, or null for none.
     * @param explicit   the --address value, or null.
     * @param serverName the server a client connects to, or null for a server.
     * @return the address chosen automatically, or null when the configured one stands.
     * @throws io.rdma4j.verbs.RdmaException EINVAL for an address that is not an IP literal; EBUSY if this
     *     process's soft provider was made already with other settings.
     */
    public static String configure(final SoftProviderContext given, final String explicit, final String serverName)
    {
        final String chosen = explicit != null ? null : choose(serverName);
        final String address = explicit != null ? explicit : chosen;
        SoftProviderContext context = given;
        if (address != null)
        {
            context = (context != null ? context : new SoftProviderContext()).addresses(address);
        }
        if (context != null)
        {
            SoftProvider.launchDefault(context);
        }
        return chosen;
    }

    /** A client's address on this machine's loopback, or null when the configured one stands. */
    private static String choose(final String serverName)
    {
        if (serverName == null || SoftSettings.ADDRESS.read() != null)
        {
            return null;
        }
        if (!isLocal(serverName) || isIpv6(serverName))
        {
            // a 127.0.0.x device could not reach an IPv6 server, and loopback has no second IPv6 address
            return null;
        }
        return firstFreeLoopback();
    }

    /**
     * @param host a host name or address.
     * @return true if it is an IPv6 literal.
     */
    static boolean isIpv6(final String host)
    {
        try
        {
            return InetAddress.ofLiteral(host) instanceof Inet6Address;
        }
        catch (final IllegalArgumentException ex)
        {
            return false;
        }
    }

    /**
     * @param host a host name or address.
     * @return true if any of its addresses is this machine's (loopback, wildcard or an interface's).
     */
    static boolean isLocal(final String host)
    {
        try
        {
            for (final InetAddress address : InetAddress.getAllByName(host))
            {
                if (address.isLoopbackAddress() || address.isAnyLocalAddress() ||
                    NetworkInterface.getByInetAddress(address) != null)
                {
                    return true;
                }
            }
        }
        catch (final UnknownHostException | SocketException ex)
        {
            // The exchange will report an unknown host in rdma-core's words; here it is just not local.
        }
        return false;
    }

    /**
     * @return the first 127.0.0.x, x from 2, whose UDP 4791 nobody holds; 127.0.0.2 if none is free
     * (the device then reports who holds it).
     */
    static String firstFreeLoopback()
    {
        for (int host = 2; host < 255; host++)
        {
            final String candidate = "127.0.0." + host;
            if (udpPortFree(candidate))
            {
                return candidate;
            }
        }
        return "127.0.0.2";
    }

    private static boolean udpPortFree(final String address)
    {
        // The soft device binds without SO_REUSEADDR, so a plain bind that succeeds means it would too.
        try (DatagramSocket probe = new DatagramSocket(null))
        {
            probe.setReuseAddress(false);
            probe.bind(new InetSocketAddress(InetAddress.getByName(address), ROCE_PORT));
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }
}
