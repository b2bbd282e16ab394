package io.rdma4j.soft.cm;

import io.rdma4j.soft.DeviceLimits;
import io.rdma4j.soft.SoftContext;
import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.SoftProvider;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.MemoryLink;
import io.rdma4j.soft.link.MemoryNetwork;
import io.rdma4j.soft.link.IpLink;
import io.rdma4j.soft.link.UdpLinks;
import io.rdma4j.verbs.Context;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Soft devices registered with the provider so the connection manager finds them by address:
 * either on one in-memory network (addresses 10.201.N.x, which the host does not own, so only
 * registration makes them bindable) or over UDP on private loopback addresses 127.P.N.x, where P
 * comes from the process id so that concurrent test runs on one host do not collide.
 */
final class CmFabric implements AutoCloseable
{
    /** Which link the devices use. */
    enum Kind
    {
        MEMORY, UDP
    }

    private static final int PID_BYTE = 150 + (int)(ProcessHandle.current().pid() % 100);
    private static int nextSubnet = (int)(ProcessHandle.current().pid() % 200);

    private final Kind kind;
    private final MemoryNetwork network = new MemoryNetwork();
    private final List<SoftDevice> devices = new ArrayList<>();
    private final int subnet;

    CmFabric(final Kind kind)
    {
        this.kind = kind;
        synchronized (CmFabric.class)
        {
            subnet = nextSubnet++ % 250 + 1;
        }
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
        final byte[] raw = kind == Kind.MEMORY ?
            new byte[] {10, (byte)201, (byte)subnet, (byte)host} :
            new byte[] {127, (byte)PID_BYTE, (byte)subnet, (byte)host};
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
        final SoftDevice.Builder builder = SoftDevice.builder("cm" + subnet + "_" + host, address(host)).limits(limits);
        if (kind == Kind.MEMORY)
        {
            builder.link(network::attach);
        }
        else
        {
            builder.link(UdpLinks::open);
        }
        final SoftDevice device = builder.build();
        SoftProvider.register(device);
        devices.add(device);
        return device;
    }

    /**
     * @return a fresh group address, 239.P.x.y, unlikely to be used by another process.
     */
    static InetSocketAddress group()
    {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte)239, (byte)PID_BYTE,
                (byte)random.nextInt(1, 255), (byte)random.nextInt(1, 255)}), 0);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @return how often the device of a context has joined the IP group and not left it.
     */
    static int joinCount(final Context context, final InetAddress group)
    {
        final Link link = ((SoftContext)context).engine().link();
        if (link instanceof IpLink udp)
        {
            return udp.joinCount(group);
        }
        return ((MemoryLink)link).joinCount(group);
    }

    /**
     * @return how many QPs of the context's device are attached to a group.
     */
    static int attached(final Context context, final InetSocketAddress group)
    {
        return ((SoftContext)context).engine().mcast().members(io.rdma4j.verbs.Gid.fromInet(group.getAddress())).length;
    }

    @Override
    public void close()
    {
        for (final SoftDevice device : devices)
        {
            SoftProvider.unregister(device);
        }
    }
}
