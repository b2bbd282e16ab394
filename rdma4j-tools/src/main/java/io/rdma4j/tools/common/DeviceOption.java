package io.rdma4j.tools.common;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.Verbs;

import java.util.List;

/**
 * The tools' {@code -d NAME}: a device by name, as rdma-core's tools take it. The connection-manager tools use
 * it to choose the engine (the device's provider); the address an id binds or resolves to still picks the
 * device within it, as in librdmacm.
 */
public final class DeviceOption
{
    private DeviceOption()
    {
    }

    /**
     * @param name a device name, e.g. {@code rxe0} or {@code soft0}.
     * @return the device.
     * @throws RdmaException ENODEV naming the devices there are, when none has that name.
     */
    public static Device find(final String name)
    {
        final List<Device> devices = Verbs.getDeviceList();
        for (final Device device : devices)
        {
            if (device.name().equals(name))
            {
                return device;
            }
        }
        throw new RdmaException(Errno.ENODEV, "no RDMA device named " + name + "; there are " +
            devices.stream().map(Device::name).toList() + " (rdma4j devices lists them)");
    }

    /**
     * @param name the {@code -d} value, or null.
     * @return an event channel on that device's engine, or with no name the channel whose ids each take the
     *     engine of their address ({@link RdmaCm#createEventChannel()}).
     */
    public static EventChannel eventChannel(final String name)
    {
        return name == null ? RdmaCm.createEventChannel() : RdmaCm.createEventChannel(find(name).provider());
    }
}
