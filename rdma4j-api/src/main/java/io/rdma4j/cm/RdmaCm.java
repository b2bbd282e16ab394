package io.rdma4j.cm;

import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.Verbs;

import java.util.ArrayList;
import java.util.List;

/**
 * Where event channels come from.
 */
public final class RdmaCm
{
    /** The Q_Key rdma_cm gives UD QPs and multicast groups in the UDP port space. */
    public static final int UDP_QKEY = 0x01234567;

    /** The remote QPN of every multicast group. */
    public static final int MULTICAST_QPN = 0xFFFFFF;

    private RdmaCm()
    {
    }

    /**
     * An event channel whose ids each use the engine of their address: the native device that owns the address
     * an id is bound or resolved to, and the software device where none does ({@link CmRouting}). Where only
     * one provider can serve (no native device, or {@code rdma4j.provider} names one), it is that provider's
     * channel itself.
     *
     * @return an event channel.
     * @throws io.rdma4j.verbs.RdmaException ENODEV if no provider is on the class path.
     */
    public static EventChannel createEventChannel()
    {
        return createEventChannel(Verbs.providers());
    }

    /**
     * @param providers the providers allowed, in preference order.
     * @return the channel {@link #createEventChannel()} describes, over these providers.
     */
    static EventChannel createEventChannel(final List<RdmaProvider> providers)
    {
        if (providers.isEmpty())
        {
            throw new RdmaException(Errno.ENODEV, "no RDMA provider on the class path");
        }
        // a provider without devices owns no address: only those with devices and the fallback take part
        final CmRouting all = CmRouting.of(providers);
        final List<RdmaProvider> candidates = new ArrayList<>();
        for (final RdmaProvider provider : providers)
        {
            if (provider == all.fallback() || provider.unavailableReason() == null)
            {
                candidates.add(provider);
            }
        }
        if (candidates.size() == 1)
        {
            return candidates.getFirst().createEventChannel();
        }
        return new RoutedEventChannel(CmRouting.of(candidates));
    }

    /**
     * @param providerName e.g. {@code soft}.
     * @return an event channel on that provider.
     */
    public static EventChannel createEventChannel(final String providerName)
    {
        final RdmaProvider provider = Verbs.provider(providerName);
        return provider.createEventChannel();
    }
}
