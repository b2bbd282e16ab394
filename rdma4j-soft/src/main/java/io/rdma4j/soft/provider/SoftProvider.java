package io.rdma4j.soft.provider;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.soft.SoftDevices;
import io.rdma4j.soft.cm.ConnectionManager;
import io.rdma4j.soft.cm.SoftEventChannel;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.spi.Setting;
import io.rdma4j.verbs.Device;

import java.util.List;

/**
 * The software device as an {@link RdmaProvider}: its devices are {@link SoftDevices}' (the settings that
 * make them are described there), and its event channels share the process's {@link ConnectionManager}.
 * The top of the engine: it is the one class that sees both the devices and the connection manager above them.
 */
public final class SoftProvider implements RdmaProvider
{
    @Override
    public String name()
    {
        return SoftDevices.NAME;
    }

    @Override
    public int priority()
    {
        return 100;
    }

    @Override
    public List<Device> devices()
    {
        return List.copyOf(SoftDevices.all());
    }

    @Override
    public String unavailableReason()
    {
        return devices().isEmpty() ? "no soft device is configured (" + SoftSettings.ADDRESS.property() + ")" : null;
    }

    @Override
    public EventChannel createEventChannel()
    {
        return SoftEventChannel.create(ConnectionManager.shared());
    }

    /**
     * Declared in {@link SoftSettings}, which the registry reads once ({@link SoftDevices#settings()}).
     */
    @Override
    public List<Setting> settings()
    {
        return SoftSettings.DECLARED;
    }
}
