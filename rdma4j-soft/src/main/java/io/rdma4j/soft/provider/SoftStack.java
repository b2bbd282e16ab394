package io.rdma4j.soft.provider;

import io.rdma4j.soft.SoftDevices;
import io.rdma4j.soft.cm.CmShared;
import io.rdma4j.soft.config.SoftSettings;

/**
 * One running software provider: its devices, with their stat publisher and exit cleanup, and its connection
 * manager's state above them, made together from one set of settings and closed together.
 */
final class SoftStack
{
    private final SoftDevices devices;
    private final CmShared cm;

    SoftStack(final SoftSettings settings)
    {
        this.devices = new SoftDevices(settings);
        this.cm = new CmShared(devices);
    }

    SoftDevices devices()
    {
        return devices;
    }

    CmShared cm()
    {
        return cm;
    }

    /** The connection manager first (its goodbyes go out through the devices), then the devices. */
    void close()
    {
        cm.close();
        devices.close();
    }
}
