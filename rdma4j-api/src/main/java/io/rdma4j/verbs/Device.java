package io.rdma4j.verbs;

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
     * Open the device ({@code ibv_open_device}).
     *
     * @return a context on it.
     * @throws RdmaException ENODEV if it is gone, or a link error naming the address at fault.
     */
    Context open();
}
