package io.rdma4j.rdmacore;

import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;

import java.lang.foreign.MemorySegment;

/**
 * An RDMA device of this machine as libibverbs lists it ({@code struct ibv_device *}), e.g. {@code rxe0} or
 * {@code mlx5_0}.
 */
public final class NativeDevice implements Device
{
    private final String name;
    private final long guid;
    private final MemorySegment device;

    NativeDevice(final String name, final long guid, final MemorySegment device)
    {
        this.name = name;
        this.guid = guid;
        this.device = device;
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public long guid()
    {
        return guid;
    }

    @Override
    public String provider()
    {
        return NativeDevices.PROVIDER_NAME;
    }

    /**
     * Not {@code address()}, as the other native objects name their C pointer: on a device that name is the API's
     * IP address ({@link Device#address()}), which a native device does not know before it is opened.
     *
     * @return the {@code struct ibv_device *}.
     */
    public MemorySegment pointer()
    {
        return device;
    }

    @Override
    public NativeContext open()
    {
        return NativeContext.open(this);
    }

    @Override
    public String toString()
    {
        return name + " (native, GUID " + String.format("%016x", guid) + ')';
    }
}
