package io.rdma4j.soft.resource;

import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;
import java.util.function.Consumer;

/**
 * An address handle: on RoCEv2 the destination IP address taken from the GID once, so a UD send
 * needs no lookup.
 */
public final class SoftAh implements AddressHandle
{
    private final ProtectionDomain pd;
    /** The PD's bookkeeping when the handle is destroyed. */
    private final Consumer<SoftAh> onClose;
    private final AhAttr attr;
    private final InetAddress destination;
    private final int destinationIpv4;
    private final Gid destinationGid;
    private final int hopLimit;
    private final boolean multicast;
    private volatile boolean valid = true;

    /**
     * @param pd        the PD it belongs to.
     * @param deviceGid the device's GID: the destination must be of its IP family.
     * @param attr      the address vector.
     * @param onClose   what destroying it tells the PD.
     */
    public SoftAh(final ProtectionDomain pd, final Gid deviceGid, final AhAttr attr, final Consumer<SoftAh> onClose)
    {
        if (attr == null || !attr.isGlobal())
        {
            throw new RdmaException(Errno.EINVAL,
                "a RoCE address handle needs a GRH (is_global): the destination GID is the peer's IP address");
        }
        if (attr.portNum() != 1)
        {
            throw new RdmaException(Errno.EINVAL, "port " + attr.portNum() + " does not exist: the device has port 1");
        }
        if (attr.grh().dgid().isZero())
        {
            throw new RdmaException(Errno.EINVAL, "the destination GID is zero");
        }
        final Gid dgid = attr.grh().dgid();
        checkFamily(dgid, deviceGid, "address handle");
        this.pd = pd;
        this.onClose = onClose;
        this.attr = attr;
        this.destination = dgid.toInet();
        this.destinationIpv4 = dgid.isIpv4Mapped() ? dgid.ipv4() : 0;
        this.destinationGid = dgid;
        this.multicast = attr.grh().dgid().isMulticast();
        final int hops = attr.grh().hopLimit();
        this.hopLimit = hops <= 0 ? 64 : Math.min(hops, 255);
    }

    @Override
    public ProtectionDomain pd()
    {
        return pd;
    }

    @Override
    public AhAttr attr()
    {
        return attr;
    }

    /**
     * @return the IP destination.
     */
    public InetAddress destination()
    {
        return destination;
    }

    /**
     * @return the IP destination as the big-endian int the headers carry, kept so a send does not
     * copy the address out of {@link #destination()} each time; 0 for an IPv6 destination.
     */
    public int destinationIpv4()
    {
        return destinationIpv4;
    }

    /**
     * @return the destination GID: on an IPv6 device its halves are the IPv6 address the headers carry.
     */
    public Gid destinationGid()
    {
        return destinationGid;
    }

    /**
     * Refuse a destination of the other IP family than the device's: an IPv4 device has no route to an IPv6
     * address and the reverse, so sending would only fail later, silently.
     *
     * @param dgid  the destination GID.
     * @param local the device's GID.
     * @param what  what is being set up, for the message.
     * @throws RdmaException EINVAL if the families differ.
     */
    public static void checkFamily(final Gid dgid, final Gid local, final String what)
    {
        if (dgid.isIpv4Mapped() != local.isIpv4Mapped())
        {
            throw new RdmaException(Errno.EINVAL, "the " + what + "'s destination GID " + dgid + " is " +
                (dgid.isIpv4Mapped() ? "IPv4" : "IPv6") + " but the device's GID " + local + " is " +
                (local.isIpv4Mapped() ? "IPv4" : "IPv6") + ": a software device reaches its own IP family only");
        }
    }

    /**
     * @return the IP TTL to send with.
     */
    public int hopLimit()
    {
        return hopLimit;
    }

    /**
     * @return true if the destination is a multicast group.
     */
    public boolean isMulticast()
    {
        return multicast;
    }

    /**
     * @return false once destroyed.
     */
    public boolean isValid()
    {
        return valid;
    }

    @Override
    public void close()
    {
        if (!valid)
        {
            throw new RdmaException(Errno.EINVAL, "the address handle is already destroyed");
        }
        valid = false;
        onClose.accept(this);
    }
}
