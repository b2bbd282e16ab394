package io.rdma4j.soft.cm;

import io.rdma4j.cm.PortSpace;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The ports bound in each port space, as the kernel keeps one table per {@code rdma_port_space} (per network
 * namespace; here, per provider instance: {@link CmShared} holds the one its connection managers use): a port is
 * taken on an address if an id holds it on that address or on the wildcard address.
 */
final class PortTable
{
    /** The kernel picks ephemeral ports from net.ipv4.ip_local_port_range, 32768..60999 by default. */
    private static final int FIRST_EPHEMERAL = 32768;
    private static final int LAST_EPHEMERAL = 60999;

    private final Map<PortSpace, Map<Integer, List<InetAddress>>> table = new EnumMap<>(PortSpace.class);

    /**
     * Take a port.
     *
     * @param space   the id's port space.
     * @param address the address bound, possibly the wildcard.
     * @param port    the port, 0 for any free one.
     * @return the port taken.
     */
    int reserve(final PortSpace space, final InetAddress address, final int port)
    {
        synchronized (table)
        {
            final Map<Integer, List<InetAddress>> ports = table.computeIfAbsent(space, s -> new HashMap<>());
            if (port != 0)
            {
                if (!free(ports, address, port))
                {
                    throw new RdmaException(Errno.EADDRINUSE, "port " + port + " is already bound on " +
                        address.getHostAddress() + " (or the wildcard address) in the " + space + " port space");
                }
                ports.computeIfAbsent(port, p -> new ArrayList<>()).add(address);
                return port;
            }
            final int range = LAST_EPHEMERAL - FIRST_EPHEMERAL + 1;
            // a random start, as the kernel's, so ids in different runs rarely reuse a port at once
            final int start = ThreadLocalRandom.current().nextInt(range);
            for (int i = 0; i < range; i++)
            {
                final int candidate = FIRST_EPHEMERAL + (start + i) % range;
                if (free(ports, address, candidate))
                {
                    ports.computeIfAbsent(candidate, p -> new ArrayList<>()).add(address);
                    return candidate;
                }
            }
            throw new RdmaException(Errno.EADDRINUSE, "no free port left in " + FIRST_EPHEMERAL + ".." +
                LAST_EPHEMERAL + " on " + address.getHostAddress() + " in the " + space + " port space");
        }
    }

    /**
     * Give a port back.
     *
     * @param space   the port space.
     * @param address the address it was reserved on.
     * @param port    the port.
     */
    void release(final PortSpace space, final InetAddress address, final int port)
    {
        synchronized (table)
        {
            final Map<Integer, List<InetAddress>> ports = table.get(space);
            if (ports == null)
            {
                return;
            }
            final List<InetAddress> holders = ports.get(port);
            if (holders != null)
            {
                holders.remove(address);
                if (holders.isEmpty())
                {
                    ports.remove(port);
                }
            }
        }
    }

    private static boolean free(final Map<Integer, List<InetAddress>> ports, final InetAddress address, final int port)
    {
        final List<InetAddress> holders = ports.get(port);
        if (holders == null)
        {
            return true;
        }
        for (final InetAddress holder : holders)
        {
            if (holder.isAnyLocalAddress() || address.isAnyLocalAddress() || holder.equals(address))
            {
                return false;
            }
        }
        return true;
    }
}
