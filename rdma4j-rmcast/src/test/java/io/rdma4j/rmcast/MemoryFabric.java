package io.rdma4j.rmcast;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.link.FaultInjector;
import io.rdma4j.soft.link.MemoryNetwork;
import io.rdma4j.soft.provider.SoftProvider;
import io.rdma4j.testing.TestNet;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Soft devices on one in-memory network, registered with the provider so the connection manager finds them by
 * their TestNet addresses, with a seeded fault injector that hits multicast deliveries only: the group's data is
 * what reliable multicast must repair; the RC repair traffic has RC's own recovery, tested elsewhere.
 */
final class MemoryFabric implements AutoCloseable
{
    static
    {
        // the provider's default device would take 127.0.0.1: give it this JVM's own address instead
        System.setProperty("rdma4j.soft.address", TestNet.host(1));
    }

    /** The default soft provider, whose connection manager the API's event channels use. */
    private static final SoftProvider SOFT = new SoftProvider();
    private final MemoryNetwork network = new MemoryNetwork(8192);
    private final FaultInjector faults;
    private final List<SoftDevice> devices = new ArrayList<>();
    private final int subnet = TestNet.nextSubnet();

    MemoryFabric(final long seed)
    {
        faults = new FaultInjector(seed).filter((datagram, receiver) -> datagram.destination().isMulticastAddress());
        network.faultInjector(faults);
    }

    FaultInjector faults()
    {
        return faults;
    }

    /**
     * @param host 1..254.
     * @return the address of a new device on the network.
     */
    InetAddress device(final int host)
    {
        final InetAddress address = TestNet.address(subnet, host);
        final SoftDevice device = SoftDevice.builder("rm" + subnet + "_" + host, address).link(network::attach).build();
        SOFT.register(device);
        devices.add(device);
        return address;
    }

    InetSocketAddress group(final int n)
    {
        return new InetSocketAddress(TestNet.groupAddress(subnet, n), 0);
    }

    @Override
    public void close()
    {
        for (final SoftDevice device : devices)
        {
            SOFT.unregister(device);
        }
    }
}
