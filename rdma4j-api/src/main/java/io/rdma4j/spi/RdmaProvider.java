package io.rdma4j.spi;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.verbs.Device;

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
}
