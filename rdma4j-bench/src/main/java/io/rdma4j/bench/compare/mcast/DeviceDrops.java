package io.rdma4j.bench.compare.mcast;

import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Verbs;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;

/**
 * The datagrams the device of this process's address dropped on purpose (the soft device's
 * {@code drop_injected}, with {@code rdma4j.soft.loss}): the run's proof that loss was injected. -1 where no device
 * has the address or the engine counts no such thing.
 */
final class DeviceDrops implements AutoCloseable
{
    private static final String DROP_INJECTED = "drop_injected";

    private final Context context;

    /**
     * Open a context of the device that has the address; call once the device is in use.
     *
     * @param local the address.
     * @throws UnknownHostException if the address does not parse.
     */
    DeviceDrops(final String local) throws UnknownHostException
    {
        final InetAddress address = InetAddress.getByName(local);
        Context found = null;
        for (final Device device : Verbs.getDeviceList())
        {
            if (address.equals(device.address()))
            {
                found = device.open();
                break;
            }
        }
        context = found;
    }

    /** @return the device's drops so far, or -1. */
    long injected()
    {
        if (context == null)
        {
            return -1;
        }
        final Map<String, Long> counters = context.counters();
        return counters.getOrDefault(DROP_INJECTED, -1L);
    }

    @Override
    public void close()
    {
        if (context != null)
        {
            context.close();
        }
    }
}
