package io.rdma4j.soft;

import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;

/**
 * An address handle: on RoCEv2 the destination IP address taken from the GID once, so a UD send
 * needs no lookup.
 */
public final class SoftAh implements AddressHandle
{
    private final SoftPd pd;
    private final AhAttr attr;
    private final InetAddress destination;
    private final int destinationIpv4;
    private final int hopLimit;
    private final boolean multicast;
    private volatile boolean valid = true;

    SoftAh(final SoftPd pd, final AhAttr attr)
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
        if (!attr.grh().dgid().isIpv4Mapped())
        {
            throw new RdmaException(Errno.EOPNOTSUPP,
                "destination GID " + attr.grh().dgid() + " is not IPv4-mapped: the software device speaks IPv4 only");
        }
        this.pd = pd;
        this.attr = attr;
        this.destination = attr.grh().dgid().toInet();
        this.destinationIpv4 = attr.grh().dgid().ipv4();
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
     * copy the address out of {@link #destination()} each time.
     */
    public int destinationIpv4()
    {
        return destinationIpv4;
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
        pd.release(this);
    }
}
