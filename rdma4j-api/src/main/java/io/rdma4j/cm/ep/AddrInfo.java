package io.rdma4j.cm.ep;

import io.rdma4j.cm.PortSpace;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * The two ends of an endpoint ({@code struct rdma_addrinfo}, what {@code rdma_getaddrinfo} gives): a passive
 * endpoint binds to {@link #source()} and listens; an active one resolves {@link #destination()}, from
 * {@link #source()} when there is one.
 *
 * @param passive     {@code RAI_PASSIVE}: the endpoint will listen.
 * @param source      the local address, or null to let the route choose (active only).
 * @param destination the peer (active), or null (passive).
 * @param portSpace   TCP (RC) or UDP (UD).
 */
public record AddrInfo(boolean passive, InetSocketAddress source, InetSocketAddress destination, PortSpace portSpace)
{
    /**
     * Checks that each kind has the address it needs.
     */
    public AddrInfo
    {
        Objects.requireNonNull(portSpace, "portSpace");
        RdmaException.check(portSpace == PortSpace.TCP || portSpace == PortSpace.UDP, Errno.EINVAL,
            "port space " + portSpace + ": an endpoint is RC (TCP) or UD (UDP) on RoCE");
        RdmaException.check(!passive || source != null, Errno.EINVAL, "a passive endpoint needs a source to bind to");
        RdmaException.check(passive || destination != null, Errno.EINVAL, "an active endpoint needs a destination");
    }

    /**
     * Resolve a node and service as {@code rdma_getaddrinfo} does, keeping its first address.
     *
     * @param node      a host name or address literal; null for the wildcard address of a passive endpoint.
     * @param service   a port number, as text.
     * @param passive   {@code RAI_PASSIVE}: the node is the address to listen on, not the peer.
     * @param portSpace TCP or UDP.
     * @return the address information.
     * @throws AddrInfoException EADDRNOTAVAIL if the node does not resolve (or is null for an active
     *                           endpoint), EINVAL if the service is not a port number.
     */
    public static AddrInfo get(final String node, final String service, final boolean passive,
        final PortSpace portSpace)
    {
        final int port = port(service);
        final InetAddress address;
        if (node == null)
        {
            if (!passive)
            {
                throw new AddrInfoException(Errno.EADDRNOTAVAIL, AddrInfoException.EAI_NONAME,
                    "Name or service not known", "an active endpoint needs a node to connect to");
            }
            address = InetAddress.ofLiteral("0.0.0.0");
        }
        else
        {
            try
            {
                address = InetAddress.getByName(node);
            }
            catch (final UnknownHostException ex)
            {
                throw new AddrInfoException(Errno.EADDRNOTAVAIL, AddrInfoException.EAI_NONAME,
                    "Name or service not known", "node " + node + " does not resolve to an address");
            }
        }
        final InetSocketAddress end = new InetSocketAddress(address, port);
        return passive ? new AddrInfo(true, end, null, portSpace) : new AddrInfo(false, null, end, portSpace);
    }

    private static int port(final String service)
    {
        int port = -1;
        if (service != null && !service.isEmpty() && service.length() <= 5 && service.chars().allMatch(Character::isDigit))
        {
            port = Integer.parseInt(service);
        }
        if (port < 0 || port > 0xFFFF)
        {
            throw new AddrInfoException(Errno.EINVAL, AddrInfoException.EAI_SERVICE,
                "Servname not supported for ai_socktype", "service " + service + " is not a port number (0..65535)");
        }
        return port;
    }

    /**
     * @param local the address to resolve from.
     * @return a copy of this active information with that source.
     */
    public AddrInfo withSource(final InetSocketAddress local)
    {
        return new AddrInfo(passive, local, destination, portSpace);
    }

    /**
     * @return the QP type of the port space ({@code ai_qp_type}): RC for TCP, UD for UDP.
     */
    public QpType qpType()
    {
        return portSpace == PortSpace.UDP ? QpType.UD : QpType.RC;
    }
}
