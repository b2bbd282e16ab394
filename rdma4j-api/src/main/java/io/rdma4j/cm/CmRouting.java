package io.rdma4j.cm;

import io.rdma4j.spi.RdmaProvider;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * The rule that gives each connection-manager id its engine: the provider whose device owns the address the id
 * is bound or resolved to (a native device has it as a GID), else the fallback provider (the software device,
 * which takes any address of the host). An id bound to the wildcard, or listening unbound, goes to the first
 * provider in preference order ({@link io.rdma4j.verbs.Verbs#providers()}: those with devices first).
 *
 * @param providers the candidates in preference order, never empty.
 * @param fallback the provider for addresses no candidate owns.
 */
public record CmRouting(List<RdmaProvider> providers, RdmaProvider fallback)
{
    /** The name of the provider that takes the addresses no other owns. */
    public static final String FALLBACK_NAME = "soft";

    /**
     * @param providers the candidates in preference order, never empty.
     * @return the routing with the software device, or the first provider when it is absent, as the fallback.
     */
    public static CmRouting of(final List<RdmaProvider> providers)
    {
        RdmaProvider fallback = providers.getFirst();
        for (final RdmaProvider provider : providers)
        {
            if (provider.name().equals(FALLBACK_NAME))
            {
                fallback = provider;
            }
        }
        return new CmRouting(List.copyOf(providers), fallback);
    }

    /**
     * @param local the address an id is bound to, or the source of a resolution; null or the wildcard for none.
     * @return the provider that serves it.
     */
    public RdmaProvider forLocal(final InetAddress local)
    {
        if (local == null || local.isAnyLocalAddress())
        {
            return providers.getFirst();
        }
        for (final RdmaProvider provider : providers)
        {
            if (provider.ownsAddress(local))
            {
                return provider;
            }
        }
        return fallback;
    }

    /**
     * @param source the source an application gave to resolve from, or null.
     * @param destination the peer or group.
     * @return the provider that serves the source, or, with none given, the address the host's routing table
     *     would send to the destination from.
     */
    public RdmaProvider forResolve(final InetSocketAddress source, final InetSocketAddress destination)
    {
        if (source != null && !source.getAddress().isAnyLocalAddress())
        {
            return forLocal(source.getAddress());
        }
        return forLocal(routeSource(destination));
    }

    // connecting a UDP socket asks the kernel for the route and its source address; nothing is sent
    private static InetAddress routeSource(final InetSocketAddress destination)
    {
        if (destination == null || destination.isUnresolved())
        {
            return null;
        }
        try (DatagramSocket probe = new DatagramSocket())
        {
            probe.connect(new InetSocketAddress(destination.getAddress(), Math.max(1, destination.getPort())));
            return probe.getLocalAddress();
        }
        catch (final IOException | RuntimeException ex)
        {
            // no route: the engine chosen for the wildcard reports the resolution's failure as its own event
            return null;
        }
    }
}
