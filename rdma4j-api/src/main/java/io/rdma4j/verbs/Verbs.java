package io.rdma4j.verbs;

import io.rdma4j.spi.RdmaProvider;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Where devices are found: the providers on the class path, in priority order.
 */
public final class Verbs
{
    private Verbs()
    {
    }

    /**
     * @return every provider on the class path, preferred first.
     */
    public static List<RdmaProvider> providers()
    {
        final List<RdmaProvider> providers = new ArrayList<>();
        for (final RdmaProvider provider : ServiceLoader.load(RdmaProvider.class))
        {
            providers.add(provider);
        }
        providers.sort(Comparator.comparingInt(RdmaProvider::priority));
        return providers;
    }

    /**
     * @param name a provider name, e.g. {@code soft}.
     * @return that provider.
     * @throws RdmaException ENODEV if no such provider is on the class path.
     */
    public static RdmaProvider provider(final String name)
    {
        for (final RdmaProvider provider : providers())
        {
            if (provider.name().equals(name))
            {
                return provider;
            }
        }
        throw new RdmaException(Errno.ENODEV, "no RDMA provider named '" + name + "' on the class path");
    }

    /**
     * @return every device of every provider ({@code ibv_get_device_list}); empty if none.
     */
    public static List<Device> getDeviceList()
    {
        final List<Device> devices = new ArrayList<>();
        for (final RdmaProvider provider : providers())
        {
            devices.addAll(provider.devices());
        }
        return devices;
    }

    /**
     * @param name a device name.
     * @return that device.
     * @throws RdmaException ENODEV if there is none by that name.
     */
    public static Device getDevice(final String name)
    {
        for (final Device device : getDeviceList())
        {
            if (device.name().equals(name))
            {
                return device;
            }
        }
        throw new RdmaException(Errno.ENODEV, "no RDMA device named '" + name + "'; devices: " +
            getDeviceList().stream().map(Device::name).toList());
    }
}
