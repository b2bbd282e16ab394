package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.link.MemoryNetwork;
import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.soft.link.TestLinks;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.Context;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A test network of software devices, either in memory or over UDP on loopback addresses, so
 * the same behaviour tests run on both links.
 */
public final class Fabric implements AutoCloseable
{
    /** Which link the devices use. */
    public enum Kind
    {
        MEMORY,
        /** UDP only: the same-host path off, as between two hosts. */
        UDP,
        /** UDP links with the same-host path: unicast between the fabric's devices goes through their inboxes. */
        SHM
    }


    private final Kind kind;
    private final MemoryNetwork network = new MemoryNetwork(8192);
    private final List<Context> contexts = new ArrayList<>();
    private final int subnet;
    private int host;
    private java.util.function.UnaryOperator<io.rdma4j.soft.link.Link> linkWrapper = java.util.function.UnaryOperator.identity();
    private boolean pollsInline;
    private long waitSpinNs = SoftDevice.DEFAULT_WAIT_SPIN_NS;
    private LongSupplier clock;
    private UdpLinks.Socket socket;
    private SoftSettings settings;

    /**
     * @param deviceSettings the settings of every device opened from now on (null: the registry's).
     * @return this.
     */
    public Fabric settings(final SoftSettings deviceSettings)
    {
        this.settings = deviceSettings;
        return this;
    }

    /**
     * @param udpSocket the socket UDP devices opened from now on use, whatever rdma4j.soft.socket says.
     * @return this.
     */
    public Fabric socket(final UdpLinks.Socket udpSocket)
    {
        this.socket = udpSocket;
        return this;
    }

    /**
     * @param wrapper wraps the link of every device opened from now on (e.g. to drop datagrams).
     * @return this.
     */
    public Fabric linkWrapper(final java.util.function.UnaryOperator<io.rdma4j.soft.link.Link> wrapper)
    {
        this.linkWrapper = wrapper;
        return this;
    }

    /**
     * @param kind which link.
     */
    public Fabric(final Kind kind)
    {
        this.kind = kind;
        // each fabric takes a /24 of this JVM's own, so neither tests nor concurrent builds share a UDP address
        subnet = TestNet.nextSubnet();
    }

    /**
     * @return the in-memory network (fault injection, taps).
     */
    public MemoryNetwork network()
    {
        return network;
    }

    /**
     * @return the link kind.
     */
    public Kind kind()
    {
        return kind;
    }

    /**
     * @return a new device on the next address of this fabric, opened.
     */
    public Context open()
    {
        return open(DeviceLimits.RXE);
    }

    /**
     * @param inline true for a device in polling mode (CQ polls receive from the network).
     * @return this.
     */
    public Fabric pollsInline(final boolean inline)
    {
        this.pollsInline = inline;
        return this;
    }

    /**
     * @param spinNanos the spin budget of a waiter of every device opened from now on ({@code SoftDevice.Builder
     *                  .waitSpin}).
     * @return this.
     */
    public Fabric waitSpin(final long spinNanos)
    {
        this.waitSpinNs = spinNanos;
        return this;
    }

    /**
     * @param nanoClock the clock of every device opened from now on (null: the system's).
     * @return this.
     */
    public Fabric clock(final LongSupplier nanoClock)
    {
        this.clock = nanoClock;
        return this;
    }

    /**
     * @param limits the device's limits.
     * @return a new device on the next address, opened.
     */
    public Context open(final DeviceLimits limits)
    {
        final InetAddress address = address(++host);
        final SoftDevice.Builder builder = SoftDevice.builder("test" + subnet + "_" + host, address).limits(limits)
            .pollsInline(pollsInline).waitSpin(waitSpinNs);
        if (clock != null)
        {
            builder.clock(clock);
        }
        if (settings != null)
        {
            builder.settings(settings);
        }
        if (kind == Kind.MEMORY)
        {
            builder.link(a -> linkWrapper.apply(network.attach(a)));
        }
        else if (kind == Kind.SHM)
        {
            builder.link(a -> linkWrapper.apply(
                SameHostLink.over(TestLinks.open(a), TestLinks.shmDirectory(),
                    System.getLogger(Fabric.class.getName()))));
        }
        else
        {
            builder.link(a -> linkWrapper.apply(null == socket ? TestLinks.open(a) :
                UdpLinks.open(socket, a, io.rdma4j.soft.link.Link.ROCE_V2_PORT)));
        }
        final Context context = builder.build().open();
        contexts.add(context);
        return context;
    }

    /**
     * Close a context opened elsewhere (on an address of the test's own) with this fabric.
     *
     * @param context the context.
     */
    public void adopt(final Context context)
    {
        contexts.add(context);
    }

    /**
     * @param n host number.
     * @return 127.&lt;this JVM's slot&gt;.&lt;this fabric's subnet&gt;.n (loopback, see {@link TestNet}).
     */
    public InetAddress address(final int n)
    {
        return TestNet.address(subnet, n);
    }

    @Override
    public void close()
    {
        // contexts may still hold objects a failed test left: close the engines regardless
        for (final Context context : contexts)
        {
            ((SoftDevice)context.device()).shutdown();
        }
    }
}
