package io.rdma4j.soft.cm;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.verbs.SoftContext;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the soft device of an address and shares one open context per device among the ids on
 * it, as librdmacm opens each device once for all its ids. Each connection manager keeps its own
 * contexts; the first to open a device serves its QP1.
 */
final class CmDevices
{
    private final Map<SoftDevice, Shared> contexts = new HashMap<>();
    private final ConnectionManager cm;

    CmDevices(final ConnectionManager cm)
    {
        this.cm = cm;
    }

    /**
     * @param address a unicast address.
     * @return the device on it: a registered one, else one made for a local address.
     * @throws RdmaException EADDRNOTAVAIL if no device has it and the host does not own it.
     */
    SoftDevice deviceOn(final InetAddress address)
    {
        final SoftDevice registered = registered(address);
        if (registered != null)
        {
            return registered;
        }
        if (!isLocal(address))
        {
            throw new RdmaException(Errno.EADDRNOTAVAIL, address.getHostAddress() +
                " is not an address of this host nor of a registered soft device");
        }
        return cm.shared.devices().deviceFor(address);
    }

    /**
     * @param address an address.
     * @return the listed device on it, or null; lists none it would have to make.
     */
    SoftDevice registered(final InetAddress address)
    {
        for (final Device device : cm.shared.devices().all())
        {
            if (device instanceof SoftDevice soft && soft.address().equals(address))
            {
                return soft;
            }
        }
        return null;
    }

    /**
     * @param ipv6 the destination's family.
     * @return the first device of that family the provider lists: where an id goes that resolves without a
     *         source address, since the soft device has no routing table to ask; a device on the family's
     *         loopback address (127.0.0.1 or ::1) when the provider lists none.
     */
    SoftDevice defaultDevice(final boolean ipv6)
    {
        for (final Device device : cm.shared.devices().all())
        {
            if (device instanceof SoftDevice soft && (soft.address() instanceof Inet6Address) == ipv6)
            {
                return soft;
            }
        }
        return cm.shared.devices().deviceFor(ipv6 ? InetAddress.ofLiteral("::1") : InetAddress.getLoopbackAddress());
    }

    /**
     * @param address an address.
     * @return true if the host owns it; every 127.x is local because {@code lo} answers for the whole /8.
     */
    static boolean isLocal(final InetAddress address)
    {
        if (address.isLoopbackAddress())
        {
            return true;
        }
        try
        {
            return NetworkInterface.getByInetAddress(address) != null;
        }
        catch (final SocketException ex)
        {
            return false;
        }
    }

    /**
     * @param engine the engine of a device this manager opened (QP1 traffic and unreachable reports come from
     *               no other).
     * @return the device it runs, or null if this manager holds it no longer.
     */
    SoftDevice deviceOf(final SoftEngine engine)
    {
        synchronized (contexts)
        {
            for (final Map.Entry<SoftDevice, Shared> open : contexts.entrySet())
            {
                if (((SoftContext)open.getValue().context).engine() == engine)
                {
                    return open.getKey();
                }
            }
            return null;
        }
    }

    /**
     * @return true if a device this manager opened knows a peer whose process is gone, so that some connection
     *     may be over ({@link SoftEngine#anyPeerProcessGone}).
     */
    boolean anyPeerProcessGone()
    {
        final List<SoftEngine> engines = new ArrayList<>();
        synchronized (contexts)
        {
            for (final Shared open : contexts.values())
            {
                engines.add(SoftEngine.of(open.context));
            }
        }
        for (final SoftEngine engine : engines)
        {
            if (engine.anyPeerProcessGone())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param device a device.
     * @return its shared context, opened on first use.
     */
    Context acquire(final SoftDevice device)
    {
        synchronized (contexts)
        {
            Shared shared = contexts.get(device);
            if (shared == null)
            {
                shared = new Shared(device.open());
                contexts.put(device, shared);
                cm.install(SoftEngine.of(shared.context));
            }
            shared.users++;
            return shared.context;
        }
    }

    /**
     * Drop one id's use of a device's context; the last closes it unless the application still
     * has objects in it, in which case it stays open for them and for the next id.
     *
     * @param device the device.
     */
    void release(final SoftDevice device)
    {
        synchronized (contexts)
        {
            final Shared shared = contexts.get(device);
            if (shared == null || --shared.users > 0)
            {
                return;
            }
            try
            {
                shared.context.close();
                contexts.remove(device);
            }
            catch (final RdmaException ex)
            {
                if (ex.errno() != Errno.EBUSY)
                {
                    // closed behind our back by the application: forget it
                    contexts.remove(device);
                }
            }
        }
    }

    private static final class Shared
    {
        final Context context;
        int users;

        Shared(final Context context)
        {
            this.context = context;
        }
    }
}
