package io.rdma4j.spi;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.verbs.Device;

import java.net.InetAddress;
import java.util.List;

/**
 * An engine behind the API, found with {@link java.util.ServiceLoader}: the software RoCEv2
 * device, or rdma-core through FFM.
 */
public interface RdmaProvider
{
    /**
     * @return a short name, e.g. {@code soft}.
     */
    String name();

    /**
     * @return lower values are preferred when several providers have devices.
     */
    int priority();

    /**
     * @return the devices this provider serves now; empty (never an error) when it has none.
     */
    List<Device> devices();

    /**
     * @return why {@link #devices()} is empty, or null when it is not.
     */
    String unavailableReason();

    /**
     * @return a new connection-manager event channel on this provider ({@code rdma_create_event_channel}).
     */
    EventChannel createEventChannel();

    /**
     * Whether one of this provider's devices has a local IP address, so that the connection manager gives an id
     * bound or resolved to it to this provider ({@link io.rdma4j.cm.RdmaCm#createEventChannel()}).
     *
     * @param address a local unicast address, never the wildcard.
     * @return true if a device of this provider owns it; the software device claims none, being the fallback.
     */
    default boolean ownsAddress(final InetAddress address)
    {
        return false;
    }

    /**
     * @return the system properties and environment variables this provider reads, declared where they are read,
     *     so that one table of every setting ({@code Verbs.settings()}) can be rendered; none by default.
     */
    default List<Setting> settings()
    {
        return List.of();
    }
}
