package io.rdma4j.soft.cm;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.IpLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.MemoryLink;
import io.rdma4j.soft.link.MemoryNetwork;
import io.rdma4j.soft.link.TestLinks;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Soft devices registered with the provider so the connection manager finds them by address:
 * either on one in-memory network (addresses 10.201.N.x, which the host does not own, so only
 * registration makes them bindable) or over UDP on loopback addresses of this JVM's own (see {@link TestNet}),
 * so that concurrent test runs on one host do not collide.
 */
final class CmFabric implements AutoCloseable
{
    /** Which link the devices use. */
    enum Kind
    {
        MEMORY, UDP,
        /** In memory, on IPv6 addresses fd77:201:N::x: the whole CM over IPv6 (its header, MAD GIDs, AVs). */
        MEMORY6
    }

    private static final int GROUP_SUBNET = TestNet.nextSubnet();
    private static final AtomicInteger NEXT_GROUP = new AtomicInteger();

    private final Kind kind;
    private final MemoryNetwork network = new MemoryNetwork();
    private final List<SoftDevice> devices = new ArrayList<>();
    private final int subnet;
    private SoftSettings settings;

    CmFabric(final Kind kind)
    {
        this.kind = kind;
        subnet = TestNet.nextSubnet();
    }

    /**
     * @param deviceSettings the settings of every device made from now on (null: the registry's).
     * @return this.
     */
    CmFabric settings(final SoftSettings deviceSettings)
    {
        settings = deviceSettings;
        return this;
    }

    Kind kind()
    {
        return kind;
    }

    /**
     * @return the in-memory network (its fault injector applies to MEMORY fabrics only).
     */
    MemoryNetwork network()
    {
        return network;
    }

    InetAddress address(final int host)
    {
        if (kind == Kind.UDP)
        {
            return TestNet.address(subnet, host);
        }
        final byte[] raw = kind == Kind.MEMORY ?
            new byte[] {10, (byte)201, (byte)subnet, (byte)host} :
            new byte[] {(byte)0xfd, 0x77, 2, 1, 0, (byte)subnet, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte)host};
        try
        {
            return InetAddress.getByAddress(raw);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    InetSocketAddress socketAddress(final int host, final int port)
    {
        return new InetSocketAddress(address(host), port);
    }

    /**
     * @return a registered device on address(host).
     */
    SoftDevice device(final int host)
    {
        return device(host, DeviceLimits.RXE);
    }

    SoftDevice device(final int host, final DeviceLimits limits)
    {
        final SoftDevice.Builder builder = SoftDevice.builder("cm" + subnet + "_" + host, address(host)).limits(limits)
            .registry(CmTesting.DEVICES);
        if (kind != Kind.UDP)
        {
            builder.link(network::attach);
        }
        else
        {
            builder.link(TestLinks::open);
        }
        if (settings != null)
        {
            builder.settings(settings);
        }
        final SoftDevice device = builder.build();
        CmTesting.DEVICES.register(device);
        devices.add(device);
        return device;
    }

    /**
     * @return a group of this JVM's own that no earlier call returned (until 254 calls wrap around).
     */
    static InetSocketAddress group()
    {
        return new InetSocketAddress(TestNet.groupAddress(GROUP_SUBNET, NEXT_GROUP.getAndIncrement() % 254 + 1), 0);
    }

    /**
     * @return how often the device of a context has joined the IP group and not left it.
     */
    static int joinCount(final Context context, final InetAddress group)
    {
        final Link link = SoftEngine.of(context).link();
        if (link instanceof IpLink udp)
        {
            return udp.joinCount(group);
        }
        if (link instanceof io.rdma4j.soft.link.SameHostLink sameHost)
        {
            return sameHost.udp().joinCount(group);
        }
        return ((MemoryLink)link).joinCount(group);
    }

    /**
     * @return how many QPs of the context's device are attached to a group.
     */
    static int attached(final Context context, final InetSocketAddress group)
    {
        return SoftEngine.of(context).mcast().members(io.rdma4j.verbs.Gid.fromInet(group.getAddress())).length;
    }

    @Override
    public void close()
    {
        for (final SoftDevice device : devices)
        {
            CmTesting.DEVICES.unregister(device);
        }
    }
}
