package io.rdma4j.rdmacore.provider;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.rdmacore.NativeDevices;
import io.rdma4j.rdmacore.NativeLibrary;
import io.rdma4j.rdmacore.cm.NativeEventChannel;
import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.spi.Setting;
import io.rdma4j.verbs.Device;

import java.net.InetAddress;
import java.util.List;

/**
 * The native provider: the RDMA devices of this machine (a NIC's, or Soft-RoCE's rxe) through rdma-core's
 * libibverbs, and its connection manager through librdmacm, both called with the FFM API. Without libibverbs,
 * or with it and no device, it lists nothing and {@link #unavailableReason()} says why in one sentence;
 * nothing is thrown.
 * <p>
 * The device list is read once per process and kept ({@link NativeDevices}): a device added later is seen by
 * the next process.
 */
public final class NativeProvider implements RdmaProvider
{
    /** The provider's name, also what {@code rdma4j.provider} selects. */
    public static final String NAME = NativeDevices.PROVIDER_NAME;

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public int priority()
    {
        // real hardware (or the kernel's rxe) is preferred to the software device when both have devices
        return 50;
    }

    @Override
    public List<Device> devices()
    {
        return NativeDevices.list();
    }

    @Override
    public String unavailableReason()
    {
        return NativeDevices.unavailableReason();
    }

    @Override
    public EventChannel createEventChannel()
    {
        return NativeEventChannel.create();
    }

    /**
     * librdmacm is asked: an address that {@code rdma_bind_addr} accepts is one of a native device's.
     */
    @Override
    public boolean ownsAddress(final InetAddress address)
    {
        return !address.isAnyLocalAddress() && !devices().isEmpty() && NativeEventChannel.canBind(address);
    }

    @Override
    public List<Setting> settings()
    {
        return List.of(NativeLibrary.IBVERBS, NativeLibrary.RDMACM);
    }
}
