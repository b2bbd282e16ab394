package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.UdParam;
import io.rdma4j.soft.SoftContext;
import io.rdma4j.soft.SoftDevice;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.GlobalRoute;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A connection-manager id of the soft device ({@code struct rdma_cm_id}): binding, address and
 * route resolution, QP creation as rdma_cm does it, and multicast joins over RoCEv2.
 * <p>
 * RoCE has no subnet administrator, so a join completes locally: a full member's device joins the
 * IP group at once (the kernel's IGMP join) and MULTICAST_JOIN follows from the
 * connection-manager thread. Connection establishment (IB CM MADs over QP1) is not implemented:
 * listen, connect, accept, reject and disconnect fail with EOPNOTSUPP.
 */
public final class SoftCmId implements CmId
{
    /** The hop limit rdma_cm puts in a RoCEv2 group's address vector (IPV6_DEFAULT_HOPLIMIT). */
    static final int MULTICAST_HOP_LIMIT = 64;

    private final SoftEventChannel channel;
    private final PortSpace portSpace;
    private final List<MulticastJoin> joins = new ArrayList<>();
    private volatile Object context;
    private volatile Context verbs;
    private volatile QueuePair qp;
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress peerAddress;
    private CmState state = CmState.IDLE;
    private SoftDevice device;
    private InetAddress reservedAddress;
    private int reservedPort = -1;
    private ProtectionDomain ownPd;
    /** Events of this id retrieved from the channel; guarded by the channel's lock. */
    long reported;
    /** Events of this id acknowledged; guarded by the channel's lock. */
    long acked;

    SoftCmId(final SoftEventChannel channel, final Object context, final PortSpace portSpace)
    {
        this.channel = channel;
        this.context = context;
        this.portSpace = portSpace;
    }

    @Override
    public EventChannel channel()
    {
        return channel;
    }

    @Override
    public Object context()
    {
        return context;
    }

    @Override
    public void context(final Object newContext)
    {
        context = newContext;
    }

    @Override
    public PortSpace portSpace()
    {
        return portSpace;
    }

    @Override
    public Context verbs()
    {
        return verbs;
    }

    @Override
    public QueuePair qp()
    {
        return qp;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return localAddress;
    }

    @Override
    public InetSocketAddress peerAddress()
    {
        return peerAddress;
    }

    /**
     * {@inheritDoc}
     * <p>
     * The address must belong to a soft device the provider lists (one registered for tests, say)
     * or to this host, every 127.x included, which then gets a device on demand. The wildcard
     * address binds the port in every address but no device.
     *
     * @throws RdmaException EINVAL if the id is not idle.
     */
    @Override
    public void bindAddr(final InetSocketAddress address)
    {
        channel.lock.lock();
        try
        {
            checkAlive("bindAddr");
            RdmaException.check(state == CmState.IDLE, Errno.EINVAL,
                "bindAddr: the id is " + state + ", already bound; bind works only on an IDLE id");
            bindLocked("bindAddr", address);
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Without a source, the device is the one owning the destination if it is a device's address,
     * else the first IPv4 device the provider lists (the soft device has no routing table). The
     * event comes from the connection-manager thread; ADDR_ERROR with status -ENETUNREACH for an
     * IPv6 destination, which the IPv4-only soft device cannot reach.
     *
     * @throws RdmaException EINVAL unless the id is IDLE or ADDR_BOUND, or if source and
     *                       destination differ in family; what bindAddr throws for the source.
     */
    @Override
    public void resolveAddr(final InetSocketAddress source, final InetSocketAddress destination, final int timeoutMs)
    {
        channel.lock.lock();
        try
        {
            checkAlive("resolveAddr");
            RdmaException.check(destination != null && destination.getAddress() != null, Errno.EINVAL,
                "resolveAddr: the destination is null or unresolved");
            RdmaException.check(state == CmState.IDLE || state == CmState.ADDR_BOUND, Errno.EINVAL,
                "resolveAddr: the id is " + state + "; addresses resolve only from IDLE or ADDR_BOUND");
            if (source != null)
            {
                RdmaException.check(source.getAddress() != null &&
                    (source.getAddress() instanceof Inet6Address) == (destination.getAddress() instanceof Inet6Address),
                    Errno.EINVAL, "resolveAddr: source " + source + " and destination " + destination +
                    " are not of one address family");
                if (state == CmState.IDLE)
                {
                    bindLocked("resolveAddr", source);
                }
                else
                {
                    RdmaException.check(source.getAddress().equals(reservedAddress), Errno.EINVAL,
                        "resolveAddr: the id is bound to " + localAddress + ", not to the source " + source);
                }
            }
            int status = 0;
            if (destination.getAddress() instanceof Inet6Address)
            {
                status = -Errno.ENETUNREACH.code();
            }
            else if (device == null)
            {
                status = pickDevice(destination.getAddress());
            }
            peerAddress = destination;
            state = CmState.ADDR_QUERY;
            final int finalStatus = status;
            channel.later(() -> complete(CmState.ADDR_QUERY, finalStatus,
                CmEventType.ADDR_RESOLVED, CmState.ADDR_RESOLVED, CmEventType.ADDR_ERROR));
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * On RoCE the route is the address vector to the resolved GID, known without asking anyone.
     *
     * @throws RdmaException EINVAL unless the address is resolved.
     */
    @Override
    public void resolveRoute(final int timeoutMs)
    {
        channel.lock.lock();
        try
        {
            checkAlive("resolveRoute");
            RdmaException.check(state == CmState.ADDR_RESOLVED, Errno.EINVAL,
                "resolveRoute: the id is " + state + "; resolve the address first (ADDR_RESOLVED)");
            state = CmState.ROUTE_QUERY;
            channel.later(() -> complete(CmState.ROUTE_QUERY, 0,
                CmEventType.ROUTE_RESOLVED, CmState.ROUTE_RESOLVED, CmEventType.ROUTE_ERROR));
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    @Override
    public void listen(final int backlog)
    {
        notImplemented("listen");
    }

    /**
     * {@inheritDoc}
     * <p>
     * A UD QP goes RESET, INIT (P_Key index 0, port 1, Q_Key {@link RdmaCm#UDP_QKEY}), RTR and RTS
     * (SQ PSN 0) at once; an RC or UC QP stops in INIT with remote write (and read, for RC) access,
     * where connection establishment would take it on. Without a PD the id allocates its own,
     * deallocated when the id is destroyed.
     *
     * @throws RdmaException EINVAL if the id has no device or already a QP, the PD is of another
     *                       device, or the QP type does not fit the port space.
     */
    @Override
    public QueuePair createQp(final ProtectionDomain pd, final QpInitAttr initAttr)
    {
        channel.lock.lock();
        try
        {
            checkAlive("createQp");
            RdmaException.check(initAttr != null, Errno.EINVAL, "createQp: the init attributes are null");
            RdmaException.check(verbs != null, Errno.EINVAL,
                "createQp: the id is on no device (" + state + "); bind it to a local address or resolve one first");
            RdmaException.check(qp == null, Errno.EINVAL, "createQp: the id already has QP " +
                Integer.toHexString(qp == null ? 0 : qp.qpNum()) + "; destroy it first");
            checkQpType(initAttr.type());
            ProtectionDomain usePd = pd;
            if (usePd == null)
            {
                if (ownPd == null)
                {
                    ownPd = verbs.allocPd();
                }
                usePd = ownPd;
            }
            RdmaException.check(usePd.context().device() == verbs.device(), Errno.EINVAL,
                "createQp: the PD is on " + usePd.context().device().name() + ", the id on " + verbs.device().name());
            final QueuePair created = usePd.createQp(initAttr);
            try
            {
                moveToInitialState(created);
            }
            catch (final RuntimeException ex)
            {
                created.close();
                throw ex;
            }
            qp = created;
            return created;
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Destroying the QP detaches it from its groups; the joins themselves remain until left.
     *
     * @throws RdmaException EINVAL if the id has no QP.
     */
    @Override
    public void destroyQp()
    {
        channel.lock.lock();
        try
        {
            checkAlive("destroyQp");
            final QueuePair current = qp;
            RdmaException.check(current != null, Errno.EINVAL, "destroyQp: the id has no QP");
            for (final MulticastJoin join : joins)
            {
                if (join.attachedQp == current)
                {
                    join.attachedQp = null;
                }
            }
            qp = null;
            current.close();
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    @Override
    public void connect(final ConnParam param)
    {
        notImplemented("connect");
    }

    @Override
    public void accept(final ConnParam param)
    {
        notImplemented("accept");
    }

    @Override
    public void reject(final byte[] privateData)
    {
        notImplemented("reject");
    }

    @Override
    public void disconnect()
    {
        notImplemented("disconnect");
    }

    @Override
    public void joinMulticast(final InetSocketAddress group, final Object joinContext)
    {
        joinMulticast(group, JoinFlags.FULLMEMBER, joinContext);
    }

    /**
     * {@inheritDoc}
     * <p>
     * A full member's device joins the IP group now; a send-only member's does not, and its QP is
     * never attached. The MULTICAST_JOIN event follows from the connection-manager thread.
     *
     * @throws RdmaException EINVAL if the id is neither ADDR_BOUND nor ADDR_RESOLVED, is bound to
     *                       no device, is not in the UDP port space, or the group is the wildcard
     *                       or not multicast; ENOTSUPP (524) for an IPv6 group, as rdma_cm
     *                       refuses on RoCEv2; EADDRINUSE if the id joined the group already.
     */
    @Override
    public void joinMulticast(final InetSocketAddress group, final JoinFlags flags, final Object joinContext)
    {
        channel.lock.lock();
        try
        {
            checkAlive("joinMulticast");
            RdmaException.check(group != null && group.getAddress() != null, Errno.EINVAL,
                "joinMulticast: the group address is null or unresolved");
            RdmaException.check(flags != null, Errno.EINVAL, "joinMulticast: the join flags are null");
            RdmaException.check(state == CmState.ADDR_BOUND || state == CmState.ADDR_RESOLVED, Errno.EINVAL,
                "joinMulticast: the id is " + state + "; it must be bound (bindAddr) or address-resolved " +
                "(resolveAddr, then ADDR_RESOLVED) to join");
            RdmaException.check(portSpace == PortSpace.UDP, Errno.EINVAL,
                "joinMulticast: only ids of the UDP port space (UD QPs) join groups; this id is " + portSpace);
            RdmaException.check(device != null, Errno.EINVAL,
                "joinMulticast: the id is bound to the wildcard address and so to no device");
            final InetAddress ip = group.getAddress();
            RdmaException.check(!ip.isAnyLocalAddress(), Errno.EINVAL,
                "joinMulticast: " + ip.getHostAddress() + " is the wildcard address, not a group");
            RdmaException.check(!(ip instanceof Inet6Address), Errno.ENOTSUPP,
                "joinMulticast: rdma_cm refuses IPv6 multicast on RoCEv2 (" + ip.getHostAddress() + ")");
            RdmaException.check(ip.isMulticastAddress(), Errno.EINVAL,
                "joinMulticast: " + ip.getHostAddress() + " is not a multicast address (224.0.0.0/4)");
            for (final MulticastJoin join : joins)
            {
                RdmaException.check(!join.address.equals(group), Errno.EADDRINUSE,
                    "joinMulticast: the id has joined " + group + " already");
            }
            final MulticastJoin join = new MulticastJoin(group, flags, joinContext, Gid.fromInet(ip));
            if (!join.sendOnly())
            {
                try
                {
                    engine().link().joinGroup(ip);
                }
                catch (final RuntimeException ex)
                {
                    throw new RdmaException(Errno.ENODEV, "joinMulticast: " + device.name() + " cannot join " +
                        ip.getHostAddress() + ": " + ex.getMessage(), ex);
                }
            }
            joins.add(join);
            final UdParam ud = new UdParam(null,
                new AhAttr(new GlobalRoute(join.mgid, 0, 0, MULTICAST_HOP_LIMIT, 0), 0, 0, 0, 0, 1),
                RdmaCm.MULTICAST_QPN, RdmaCm.UDP_QKEY);
            final SoftCmEvent event = new SoftCmEvent(channel, CmEventType.MULTICAST_JOIN, this, 0, ud, join);
            channel.later(() -> postIfActive(join, event));
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Blocks, as librdmacm does, until every event retrieved for the join is acknowledged; events
     * of it not yet retrieved are dropped.
     *
     * @throws RdmaException EINTR if interrupted while waiting (the group is left by then).
     */
    @Override
    public void leaveMulticast(final InetSocketAddress group)
    {
        channel.lock.lock();
        try
        {
            checkAlive("leaveMulticast");
            MulticastJoin found = null;
            for (final MulticastJoin join : joins)
            {
                if (join.address.equals(group))
                {
                    found = join;
                    break;
                }
            }
            if (found == null)
            {
                throw new RdmaException(Errno.EADDRNOTAVAIL, "leaveMulticast: the id has not joined " + group);
            }
            joins.remove(found);
            undo(found);
            final MulticastJoin left = found;
            channel.awaitAcks(() -> left.acked >= left.reported, "leaveMulticast");
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Leaves every group, frees the port, drops the id's events not yet retrieved and blocks until
     * those retrieved are acknowledged; then deallocates the PD the id allocated (left alone while
     * a QP of the application is still in it) and releases the device context. Closing again does
     * nothing; every other call on a destroyed id fails with EINVAL.
     *
     * @throws RdmaException EINTR if interrupted while waiting; the id is destroyed regardless.
     */
    @Override
    public void close()
    {
        final SoftDevice releasedDevice;
        final ProtectionDomain releasedPd;
        RdmaException interrupted = null;
        channel.lock.lock();
        try
        {
            if (state == CmState.DESTROYING)
            {
                return;
            }
            state = CmState.DESTROYING;
            for (final MulticastJoin join : joins)
            {
                undo(join);
            }
            joins.clear();
            channel.removeQueued(event -> event.softId() == this);
            if (reservedPort >= 0)
            {
                PortTable.release(portSpace, reservedAddress, reservedPort);
                reservedPort = -1;
            }
            releasedDevice = device;
            releasedPd = ownPd;
            try
            {
                channel.awaitAcks(() -> acked >= reported, "close");
            }
            catch (final RdmaException ex)
            {
                // EINTR: finish destroying, then report it
                interrupted = ex;
            }
            finally
            {
                channel.forget(this);
            }
        }
        finally
        {
            channel.lock.unlock();
        }
        // outside the lock: closing the last context stops the device's engine, which takes a while
        if (releasedPd != null)
        {
            try
            {
                releasedPd.close();
            }
            catch (final RdmaException ex)
            {
                // EBUSY: the application still has a QP or MR in it (rdma_destroy_qp was not called)
            }
        }
        if (releasedDevice != null)
        {
            CmDevices.release(releasedDevice);
        }
        if (interrupted != null)
        {
            throw interrupted;
        }
    }

    @Override
    public String toString()
    {
        return "cm id " + portSpace + " " + localAddress + " (" + state + ")";
    }

    /** For the channel, with its lock held. */
    QueuePair qpLocked()
    {
        return qp;
    }

    private void bindLocked(final String verb, final InetSocketAddress address)
    {
        RdmaException.check(address != null && address.getAddress() != null, Errno.EINVAL,
            verb + ": the address is null or unresolved");
        final InetAddress ip = address.getAddress();
        RdmaException.check(!ip.isMulticastAddress(), Errno.EADDRNOTAVAIL,
            verb + ": " + ip.getHostAddress() + " is a multicast address; bind to a local unicast one");
        final SoftDevice bound = ip.isAnyLocalAddress() ? null : CmDevices.deviceOn(ip);
        final int port = PortTable.reserve(portSpace, ip, address.getPort());
        try
        {
            if (bound != null)
            {
                verbs = CmDevices.acquire(bound);
            }
        }
        catch (final RuntimeException ex)
        {
            PortTable.release(portSpace, ip, port);
            throw ex;
        }
        device = bound;
        reservedAddress = ip;
        reservedPort = port;
        localAddress = new InetSocketAddress(ip, port);
        state = CmState.ADDR_BOUND;
    }

    /**
     * Choose and open a device for a destination when the id has none.
     *
     * @return 0, or the negative errno ADDR_ERROR will carry.
     */
    private int pickDevice(final InetAddress destination)
    {
        try
        {
            SoftDevice chosen = CmDevices.registered(destination);
            if (chosen == null)
            {
                chosen = CmDevices.defaultDevice();
            }
            final Context opened = CmDevices.acquire(chosen);
            if (state == CmState.IDLE)
            {
                try
                {
                    reservedPort = PortTable.reserve(portSpace, chosen.address(), 0);
                    reservedAddress = chosen.address();
                }
                catch (final RuntimeException ex)
                {
                    CmDevices.release(chosen);
                    throw ex;
                }
            }
            device = chosen;
            verbs = opened;
            // an id bound to the wildcard keeps its port but now speaks from the device's address
            localAddress = new InetSocketAddress(chosen.address(), reservedPort);
            return 0;
        }
        catch (final RdmaException ex)
        {
            return -ex.errnoCode();
        }
    }

    /** Runs on the connection-manager thread. */
    private void complete(
        final CmState expected, final int status, final CmEventType success, final CmState next,
        final CmEventType failure)
    {
        channel.lock.lock();
        try
        {
            if (state != expected)
            {
                // destroyed meanwhile: the kernel cancels the work and reports nothing
                return;
            }
            if (status == 0)
            {
                state = next;
                channel.post(new SoftCmEvent(channel, success, this, 0, null, null));
            }
            else
            {
                state = expected == CmState.ADDR_QUERY ?
                    (reservedPort >= 0 ? CmState.ADDR_BOUND : CmState.IDLE) : CmState.ADDR_RESOLVED;
                channel.post(new SoftCmEvent(channel, failure, this, status, null, null));
            }
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /** Runs on the connection-manager thread. */
    private void postIfActive(final MulticastJoin join, final SoftCmEvent event)
    {
        channel.lock.lock();
        try
        {
            if (join.active && state != CmState.DESTROYING)
            {
                channel.post(event);
            }
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /** Undo a join: detach (unless send-only), leave the IP group (unless send-only). Lock held. */
    private void undo(final MulticastJoin join)
    {
        join.active = false;
        channel.removeQueued(event -> event.join() == join);
        if (join.attachedQp != null)
        {
            try
            {
                join.attachedQp.detachMulticast(join.mgid, 0);
            }
            catch (final RdmaException ex)
            {
                // the application destroyed or detached the QP itself: nothing left to undo
            }
            join.attachedQp = null;
        }
        if (!join.sendOnly())
        {
            engine().link().leaveGroup(join.address.getAddress());
        }
    }

    private io.rdma4j.soft.SoftEngine engine()
    {
        return ((SoftContext)verbs).engine();
    }

    private void checkQpType(final QpType type)
    {
        final boolean fits = switch (portSpace)
        {
            case UDP, IPOIB -> type == QpType.UD;
            case TCP -> type == QpType.RC || type == QpType.UC;
            case IB -> true;
        };
        RdmaException.check(fits, Errno.EINVAL, "createQp: a " + type + " QP does not fit the " + portSpace +
            " port space (UDP: UD; TCP: RC or UC; IB: any)");
    }

    private static void moveToInitialState(final QueuePair created)
    {
        if (created.type() == QpType.UD)
        {
            created.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(RdmaCm.UDP_QKEY));
            created.modify(new QpAttr().state(QpState.RTR));
            created.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        }
        else if (created.type() == QpType.RC)
        {
            created.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1)
                .accessFlags(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ));
        }
        else
        {
            // UC has no RDMA READ, so rdma_cm grants it remote write only
            created.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1)
                .accessFlags(AccessFlag.REMOTE_WRITE));
        }
    }

    private void checkAlive(final String verb)
    {
        RdmaException.check(state != CmState.DESTROYING, Errno.EINVAL, verb + ": the id is destroyed");
    }

    private void notImplemented(final String verb)
    {
        channel.lock.lock();
        try
        {
            checkAlive(verb);
        }
        finally
        {
            channel.lock.unlock();
        }
        throw new RdmaException(Errno.EOPNOTSUPP, verb + ": RC connection establishment through the connection " +
            "manager is not implemented yet; exchange QP numbers out of band as ibv_rc_pingpong does");
    }
}
