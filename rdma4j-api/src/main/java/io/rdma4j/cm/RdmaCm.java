package io.rdma4j.cm;

import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.verbs.Verbs;

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
     * @return an event channel on the preferred provider.
     */
    public static EventChannel createEventChannel()
    {
        final var providers = Verbs.providers();
        if (providers.isEmpty())
        {
            throw new io.rdma4j.verbs.RdmaException(io.rdma4j.verbs.Errno.ENODEV, "no RDMA provider on the class path");
        }
        return providers.getFirst().createEventChannel();
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
