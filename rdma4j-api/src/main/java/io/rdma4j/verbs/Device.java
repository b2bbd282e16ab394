package io.rdma4j.verbs;

import java.net.InetAddress;

/**
 * An RDMA device ({@code struct ibv_device}), found with {@link Verbs#getDeviceList()}.
 */
public interface Device
{
    /**
     * @return the device name, e.g. {@code soft0} or {@code rxe0}.
     */
    String name();

    /**
     * @return the node GUID.
     */
    long guid();

    /**
     * @return which provider serves it, e.g. {@code soft} or {@code rdma-core}.
     */
    String provider();

    /**
     * The IP address a device is, for a device that has exactly one and knows it without being opened: a software
     * device's address, from which its GID 0 is made (IPv4 as {@code ::ffff:a.b.c.d}, IPv6 as it is). A device
     * whose GIDs come from the interfaces its ports are on, such as rdma-core's, has none here: open it and read
     * its GID table ({@link Context#queryGid}).
     *
     * @return the device's IP address, or null where it has none of its own.
     */
    default InetAddress address()
    {
        return null;
    }

    /**
     * Open the device ({@code ibv_open_device}).
     *
     * @return a context on it.
     * @throws RdmaException ENODEV if it is gone, or a link error naming the address at fault.
     */
    Context open();
}
