package io.rdma4j.soft;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The software device provider. Its devices, one per IPv4 address, come from the system
 * property {@code rdma4j.soft.address} or the environment variable {@code RDMA4J_SOFT_ADDRESS}
 * (comma-separated; default 127.0.0.1), and the connection manager adds one on demand for any
 * local address an id is bound or resolved to. One process owns UDP 4791 on one address, so
 * processes on one machine each take their own: 127.0.0.2, 127.0.0.3, ... on loopback.
 */
public final class SoftProvider implements RdmaProvider
{
    /** The provider's name. */
    public static final String NAME = "soft";

    private static final List<SoftDevice> DEVICES = new ArrayList<>();
    private static boolean configured;

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public int priority()
    {
        return 100;
    }

    @Override
    public List<Device> devices()
    {
        synchronized (DEVICES)
        {
            configure();
            return List.copyOf(DEVICES);
        }
    }

    @Override
    public String unavailableReason()
    {
        return devices().isEmpty() ? "no soft device is configured (rdma4j.soft.address)" : null;
    }

    @Override
    public EventChannel createEventChannel()
    {
        return io.rdma4j.soft.cm.SoftEventChannel.create();
    }

    /**
     * The device on an address, made (and listed) on first use.
     *
     * @param address a local IPv4 address.
     * @return its device.
     */
    public static SoftDevice deviceFor(final InetAddress address)
    {
        synchronized (DEVICES)
        {
            configure();
            for (final SoftDevice device : DEVICES)
            {
                if (device.address().equals(address))
                {
                    return device;
                }
            }
            if (!(address instanceof Inet4Address))
            {
                throw new RdmaException(Errno.EOPNOTSUPP, "the software device speaks IPv4 only, not " +
                    address.getHostAddress());
            }
            final SoftDevice device = SoftDevice.builder("soft" + DEVICES.size(), address).build();
            DEVICES.add(device);
            return device;
        }
    }

    /**
     * Add a device built elsewhere (with a MemoryLink, say) so the connection manager finds it by
     * address.
     *
     * @param device the device.
     */
    public static void register(final SoftDevice device)
    {
        synchronized (DEVICES)
        {
            configure();
            DEVICES.removeIf(d -> d.address().equals(device.address()));
            DEVICES.add(device);
        }
    }

    /**
     * Forget a registered device.
     *
     * @param device the device.
     */
    public static void unregister(final SoftDevice device)
    {
        synchronized (DEVICES)
        {
            DEVICES.remove(device);
        }
    }

    private static void configure()
    {
        if (configured)
        {
            return;
        }
        configured = true;
        String spec = System.getProperty("rdma4j.soft.address");
        if (spec == null || spec.isBlank())
        {
            spec = System.getenv("RDMA4J_SOFT_ADDRESS");
        }
        if (spec == null || spec.isBlank())
        {
            spec = "127.0.0.1";
        }
        for (final String part : spec.split(","))
        {
            final String text = part.trim();
            if (text.isEmpty())
            {
                continue;
            }
            try
            {
                final InetAddress address = InetAddress.ofLiteral(text);
                DEVICES.add(SoftDevice.builder("soft" + DEVICES.size(), address).build());
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RdmaException(Errno.EINVAL, "rdma4j.soft.address entry '" + text +
                    "' is not an IP address literal", ex);
            }
        }
    }
}
