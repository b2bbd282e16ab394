package io.rdma4j.soft.cm;

import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Where one id is: the soft device it is on (and the context it holds open on it), the port it
 * reserved in its port space, and its local and peer addresses. Binding, choosing a device for a
 * destination and giving the port back are here; the id's state stays with {@link SoftCmId}.
 * <p>
 * Runs on the application thread calling a verb of the id, or on the connection-manager thread
 * for an id made from a connection request, always with the channel's lock held. The device, the
 * context and the two addresses are also read without the lock (volatile), by the id's getters.
 */
final class CmBinding
{
    private final ConnectionManager cm;
    private final PortSpace portSpace;
    private volatile SoftDevice device;
    private volatile Context verbs;
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress peerAddress;
    private InetAddress reservedAddress;
    private int reservedPort = -1;

    CmBinding(final ConnectionManager cm, final PortSpace portSpace)
    {
        this.cm = cm;
        this.portSpace = portSpace;
    }

    SoftDevice device()
    {
        return device;
    }

    Context verbs()
    {
        return verbs;
    }

    InetSocketAddress localAddress()
    {
        return localAddress;
    }

    InetSocketAddress peerAddress()
    {
        return peerAddress;
    }

    /** @return the engine of the id's device; only once the id is on one. */
    SoftEngine engine()
    {
        return SoftEngine.of(verbs);
    }

    /** @return true while the id holds a port (bound, or given one by address resolution). */
    boolean holdsPort()
    {
        return reservedPort >= 0;
    }

    /**
     * Reserve the address's port (a free one for port 0) and open the device owning the address;
     * the wildcard address reserves the port but opens no device.
     *
     * @throws RdmaException EINVAL for a null address, EADDRNOTAVAIL for a multicast or foreign
     *                       one, EADDRINUSE for a port taken.
     */
    void bind(final String verb, final InetSocketAddress address)
    {
        RdmaException.check(address != null && address.getAddress() != null, Errno.EINVAL,
            verb + ": the address is null or unresolved");
        final InetAddress ip = address.getAddress();
        RdmaException.check(!ip.isMulticastAddress(), Errno.EADDRNOTAVAIL,
            verb + ": " + ip.getHostAddress() + " is a multicast address; bind to a local unicast one");
        final SoftDevice bound = ip.isAnyLocalAddress() ? null : cm.devices.deviceOn(ip);
        final int port = cm.shared.ports().reserve(portSpace, ip, address.getPort());
        try
        {
            if (bound != null)
            {
                verbs = cm.devices.acquire(bound);
            }
        }
        catch (final RuntimeException ex)
        {
            cm.shared.ports().release(portSpace, ip, port);
            throw ex;
        }
        device = bound;
        reservedAddress = ip;
        reservedPort = port;
        localAddress = new InetSocketAddress(ip, port);
    }

    /**
     * The address half of resolveAddr: bind to the source if the id is not bound yet (or check it
     * is the bound one), then find the device that reaches the destination.
     *
     * @param bound whether the id is bound already (ADDR_BOUND).
     * @return 0, or the negative errno ADDR_ERROR will carry.
     * @throws RdmaException EINVAL if source and destination differ in family or the source is not
     *                       the bound address; what {@link #bind} throws for the source.
     */
    int resolve(final InetSocketAddress source, final InetSocketAddress destination, final boolean bound)
    {
        if (source != null)
        {
            RdmaException.check(source.getAddress() != null &&
                (source.getAddress() instanceof Inet6Address) == (destination.getAddress() instanceof Inet6Address),
                Errno.EINVAL, "resolveAddr: source " + source + " and destination " + destination +
                " are not of one address family");
            if (!bound)
            {
                bind("resolveAddr", source);
            }
            else
            {
                RdmaException.check(source.getAddress().equals(reservedAddress), Errno.EINVAL,
                    "resolveAddr: the id is bound to " + localAddress + ", not to the source " + source);
            }
        }
        int status = 0;
        if (device == null)
        {
            status = pickDevice(destination.getAddress());
        }
        else if ((device.address() instanceof Inet6Address) != (destination.getAddress() instanceof Inet6Address))
        {
            // a device reaches its own IP family only: an id on an IPv4 device has no route to an IPv6 peer
            status = -Errno.ENETUNREACH.code();
        }
        peerAddress = destination;
        return status;
    }

    /**
     * Choose and open a device for a destination when the id has none: the one owning the
     * destination if it is a device's address, else the first device of the destination's IP family
     * the provider lists (the soft device has no routing table). An id holding no port reserves one on the device.
     *
     * @return 0, or the negative errno ADDR_ERROR will carry.
     */
    private int pickDevice(final InetAddress destination)
    {
        try
        {
            SoftDevice chosen = cm.devices.registered(destination);
            if (chosen == null)
            {
                chosen = cm.devices.defaultDevice(destination instanceof Inet6Address);
            }
            final Context opened = cm.devices.acquire(chosen);
            if (!holdsPort())
            {
                try
                {
                    reservedPort = cm.shared.ports().reserve(portSpace, chosen.address(), 0);
                    reservedAddress = chosen.address();
                }
                catch (final RuntimeException ex)
                {
                    cm.devices.release(chosen);
                    throw ex;
                }
            }
            device = chosen;
            verbs = opened;
            // an id bound to the wildcard keeps its port but now speaks from the device's address
            localAddress = new InetSocketAddress(chosen.address(), reservedPort);
            return 0;
        }
        catch (final RdmaException ex)
        {
            return -ex.errnoCode();
        }
    }

    /**
     * Place an id made from a connection request: on the device the request came in on, at the
     * listener's port, facing the requester. The id reserves no port of its own (the listener's).
     */
    void adopt(final SoftDevice on, final int port, final InetSocketAddress peer)
    {
        device = on;
        verbs = cm.devices.acquire(on);
        localAddress = new InetSocketAddress(on.address(), port);
        peerAddress = peer;
    }

    /** Give the reserved port back, if the id holds one. */
    void releasePort()
    {
        if (reservedPort >= 0)
        {
            cm.shared.ports().release(portSpace, reservedAddress, reservedPort);
            reservedPort = -1;
        }
    }
}
