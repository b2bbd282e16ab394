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
import io.rdma4j.soft.SoftEngine;
import io.rdma4j.soft.cm.mad.RejectReason;
import io.rdma4j.soft.cm.mad.SidrStatus;
import io.rdma4j.soft.link.Ipv4;
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
 * connection-manager thread. Connections (RC and UC through REQ, REP, RTU, UD through SIDR) are
 * made by the IB CM messages over QP1 that {@link ConnectionManager} sends and receives.
 */
public final class SoftCmId implements CmId
{
    /** The hop limit rdma_cm puts in a RoCEv2 group's address vector (IPV6_DEFAULT_HOPLIMIT). */
    static final int MULTICAST_HOP_LIMIT = 64;

    final SoftEventChannel channel;
    /** The connection manager of the channel: its thread, timers and devices. */
    final ConnectionManager cm;
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
    /** The connection (or SIDR exchange) this id takes part in; guarded by the channel's lock. */
    private CmConnection connection;
    /** A listener's backlog and the connection requests that hold a place in it. */
    private int backlog;
    private int backlogUsed;
    /** Devices a wildcard listener opened to hear requests on. */
    private final List<SoftDevice> listenDevices = new ArrayList<>();
    /** Events of this id retrieved from the channel; guarded by the channel's lock. */
    long reported;
    /** Events of this id acknowledged; guarded by the channel's lock. */
    long acked;

    SoftCmId(final SoftEventChannel channel, final Object context, final PortSpace portSpace)
    {
        this.channel = channel;
        this.cm = channel.cm;
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

    /**
     * {@inheritDoc}
     * <p>
     * An IDLE id is bound to the wildcard address and a free port first, as rdma_listen does. A
     * listener on the wildcard address hears requests on the process's default devices.
     *
     * @throws RdmaException EINVAL unless the id is IDLE or ADDR_BOUND.
     */
    @Override
    public void listen(final int requestedBacklog)
    {
        channel.lock.lock();
        try
        {
            checkAlive("listen");
            if (state == CmState.IDLE)
            {
                bindLocked("listen", new InetSocketAddress(InetAddress.ofLiteral("0.0.0.0"), 0));
            }
            RdmaException.check(state == CmState.ADDR_BOUND, Errno.EINVAL,
                "listen: the id is " + state + "; only a bound (ADDR_BOUND) id listens");
            if (device == null)
            {
                final SoftDevice chosen = CmDevices.defaultDevice();
                cm.devices.acquire(chosen);
                listenDevices.add(chosen);
            }
            backlog = requestedBacklog <= 0 ? 128 : requestedBacklog;
            state = CmState.LISTEN;
            cm.listen(this);
        }
        finally
        {
            channel.lock.unlock();
        }
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

    /**
     * {@inheritDoc}
     * <p>
     * On a TCP-space id with an RC or UC QP this sends a REQ; the REP takes the QP to RTR and
     * RTS, an RTU goes back and ESTABLISHED follows (REJECTED, or UNREACHABLE after 15 unanswered
     * tries). On a UDP-space id it sends a SIDR_REQ, and ESTABLISHED carries the peer's QPN and
     * Q_Key in {@link io.rdma4j.cm.CmEvent#udParam()}.
     *
     * @throws RdmaException EINVAL unless the route is resolved and the id has a QP; EINVAL if the
     *                       private data is longer than the message holds.
     */
    @Override
    public void connect(final ConnParam param)
    {
        channel.lock.lock();
        try
        {
            checkAlive("connect");
            RdmaException.check(state == CmState.ROUTE_RESOLVED, Errno.EINVAL,
                "connect: the id is " + state + "; resolve the address and the route first (ROUTE_RESOLVED)");
            final ConnParam p = param == null ? ConnParam.defaults() : param;
            final boolean datagram = portSpace == PortSpace.UDP || portSpace == PortSpace.IPOIB;
            RdmaException.check(qp != null || !datagram && p.qpNum() != 0, Errno.EINVAL,
                "connect: the id has no QP; create one with createQp, or name the RC QP you made in ConnParam.qpNum");
            final int limit = datagram ? CmWire.SIDR_REQ_USER_DATA : CmWire.REQ_USER_DATA;
            checkPrivateData("connect", p.privateData(), limit);
            final int peerIp = Ipv4.toInt(peerAddress.getAddress());
            final CmConnection c = new CmConnection(cm, this, engine(), cm.newCommId(this), peerIp, true,
                datagram ? CmConnection.Phase.SIDR_REQ_SENT : CmConnection.Phase.REQ_SENT);
            c.tid = cm.newTid(c.localCommId);
            final long serviceId = CmWire.serviceId(portSpace, peerAddress.getPort());
            final int localIp = Ipv4.toInt(localAddress.getAddress());
            final byte[] mad;
            if (datagram)
            {
                mad = CmWire.encode(new CmMessage.SidrReq(c.tid, c.localCommId, serviceId, localIp, peerIp,
                    localAddress.getPort(), p.privateData()));
            }
            else
            {
                c.startingPsn = ConnectionManager.randomPsn();
                c.localQpn = qp != null ? qp.qpNum() : p.qpNum();
                final CmMessage.Req req = CmMessage.Req.builder()
                    .tid(c.tid)
                    .localCommId(c.localCommId)
                    .serviceId(serviceId)
                    .caGuid(device.guid())
                    .qpn(c.localQpn)
                    .responderResources(
                        ConnectionManager.clamp(p.responderResources(), engine().limits().maxQpRdAtom()))
                    .initiatorDepth(ConnectionManager.clamp(p.initiatorDepth(), engine().limits().maxQpInitRdAtom()))
                    .transportType(qp != null && qp.type() == QpType.UC ? 1 : 0)
                    .flowControl(p.flowControl() != 0)
                    .startingPsn(c.startingPsn)
                    .retryCount(ConnectionManager.retry(p.retryCount()))
                    .rnrRetryCount(ConnectionManager.retry(p.rnrRetryCount()))
                    .pathMtu(engine().activeMtu().value())
                    .srq(p.srq())
                    .localAckTimeout(ConnectionManager.LOCAL_ACK_TIMEOUT)
                    .flowLabel(flowLabel(localAddress.getPort(), peerAddress.getPort()))
                    .hopLimit(ConnectionManager.HOP_LIMIT)
                    .srcIp(localIp)
                    .dstIp(peerIp)
                    .srcPort(localAddress.getPort())
                    .userData(p.privateData())
                    .build();
                mad = CmWire.encode(req);
                c.request = req;
            }
            connection = c;
            state = CmState.CONNECT;
            c.sendWithRetries(mad);
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * For a CONNECT_REQUEST's id: takes the QP to RTR and RTS and sends a REP; ESTABLISHED follows
     * the RTU. For a UD request: sends a SIDR_REP with the QP's number and Q_Key; no event follows.
     *
     * @throws RdmaException EINVAL unless the id came from a CONNECT_REQUEST not yet answered, or if
     *                       it has no QP.
     */
    @Override
    public void accept(final ConnParam param)
    {
        channel.lock.lock();
        try
        {
            checkAlive("accept");
            final CmConnection c = connection;
            RdmaException.check(c != null && (c.phase == CmConnection.Phase.REQ_RCVD ||
                c.phase == CmConnection.Phase.SIDR_REQ_RCVD), Errno.EINVAL,
                "accept: the id has no connection request to answer" + (c == null ? "" : " (" + c.phase + ")"));
            final ConnParam p = param == null ? ConnParam.defaults() : param;
            RdmaException.check(qp != null || c.request instanceof CmMessage.Req && p.qpNum() != 0, Errno.EINVAL,
                "accept: the id has no QP; create one with createQp, or name the QP you made in ConnParam.qpNum");
            if (c.request instanceof CmMessage.SidrReq req)
            {
                checkPrivateData("accept", p.privateData(), CmWire.SIDR_REP_PRIVATE_DATA);
                engine().sendMad(CmWire.encode(new CmMessage.SidrRep(req.tid(), req.requestId(), SidrStatus.SUCCESS,
                    qp.qpNum(), req.serviceId(), RdmaCm.UDP_QKEY, p.privateData())), c.peerIp);
                c.pending = null;
                c.phase = CmConnection.Phase.ESTABLISHED;
                c.releaseBacklog();
                return;
            }
            final CmMessage.Req req = (CmMessage.Req)c.request;
            checkPrivateData("accept", p.privateData(), CmWire.REP_PRIVATE_DATA);
            final int responderResources = Math.min(ConnectionManager.clamp(p.responderResources(),
                engine().limits().maxQpRdAtom()), req.initiatorDepth());
            final int initiatorDepth = Math.min(ConnectionManager.clamp(p.initiatorDepth(),
                engine().limits().maxQpInitRdAtom()), req.responderResources());
            if (qp != null)
            {
                // a side receives from the PSN it announced and sends from the PSN its peer announced
                ConnectionManager.connectQp(qp, engine(), c.peerIp, req.qpn(), c.startingPsn, req.startingPsn(),
                    req.pathMtu(), responderResources, initiatorDepth, req.retryCount(), req.rnrRetryCount());
            }
            // else the application moved the QP it made itself, with initQpAttr
            c.localQpn = qp != null ? qp.qpNum() : p.qpNum();
            final byte[] mad = CmWire.encode(new CmMessage.Rep(req.tid(), c.localCommId, req.localCommId(),
                c.localQpn, c.startingPsn, responderResources, initiatorDepth, p.flowControl() != 0,
                ConnectionManager.retry(p.rnrRetryCount()), p.srq() || qp != null && qp.srq() != null, device.guid(),
                p.privateData()));
            c.phase = CmConnection.Phase.REP_SENT;
            c.releaseBacklog();
            c.sendWithRetries(mad);
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Answers a connection request with a REJ, reason 28 (consumer defined), or a UD request with a
     * SIDR_REP of status REJECT.
     *
     * @throws RdmaException EINVAL unless the id came from a CONNECT_REQUEST not yet answered.
     */
    @Override
    public void reject(final byte[] privateData)
    {
        channel.lock.lock();
        try
        {
            checkAlive("reject");
            final CmConnection c = connection;
            RdmaException.check(c != null && (c.phase == CmConnection.Phase.REQ_RCVD ||
                c.phase == CmConnection.Phase.SIDR_REQ_RCVD), Errno.EINVAL,
                "reject: the id has no connection request to answer" + (c == null ? "" : " (" + c.phase + ")"));
            final CmMessage answer;
            if (c.request instanceof CmMessage.SidrReq req)
            {
                checkPrivateData("reject", privateData, CmWire.SIDR_REP_PRIVATE_DATA);
                answer = new CmMessage.SidrRep(req.tid(), req.requestId(), SidrStatus.REJECT, 0, req.serviceId(), 0,
                    privateData);
            }
            else
            {
                final CmMessage.Req req = (CmMessage.Req)c.request;
                checkPrivateData("reject", privateData, CmWire.REJ_PRIVATE_DATA);
                answer = new CmMessage.Rej(req.tid(), c.localCommId, req.localCommId(), CmWire.REJECTED_REQ,
                    RejectReason.CONSUMER_DEFINED, privateData);
            }
            engine().sendMad(CmWire.encode(answer), c.peerIp);
            c.phase = CmConnection.Phase.CLOSED;
            c.releaseBacklog();
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Moves the QP to ERR (its outstanding work completes flushed) and sends a DREQ; DISCONNECTED
     * follows the peer's DREP, or 15 unanswered tries. After the peer disconnected first
     * (DISCONNECTED already reported), this only confirms it.
     *
     * @throws RdmaException EINVAL if the id is not connected.
     */
    @Override
    public void disconnect()
    {
        channel.lock.lock();
        try
        {
            checkAlive("disconnect");
            final CmConnection c = connection;
            final boolean connected = c != null && switch (c.phase)
            {
                case REQ_SENT, MRA_REQ_RCVD, REP_RCVD, REP_SENT, MRA_REP_RCVD, ESTABLISHED, DREQ_SENT,
                     DREQ_RCVD -> true;
                default -> false;
            };
            RdmaException.check(connected, Errno.EINVAL,
                "disconnect: the id is not connected (" + (c == null ? state : c.phase) + ")");
            ConnectionManager.errorQp(qp);
            if (c.phase == CmConnection.Phase.DREQ_RCVD || c.phase == CmConnection.Phase.DREQ_SENT)
            {
                return;
            }
            if (c.phase == CmConnection.Phase.REQ_SENT || c.phase == CmConnection.Phase.MRA_REQ_RCVD ||
                c.phase == CmConnection.Phase.REP_RCVD)
            {
                // still connecting: the kernel turns this into a REJ of our own request
                c.abandon();
                return;
            }
            c.disconnect();
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * INIT needs only a device; RTR and RTS need the peer's parameters: on the active side from
     * the CONNECT_RESPONSE on, on the passive side from the CONNECT_REQUEST on (the values rdma_cm
     * would use with the request's own resources).
     *
     * @throws RdmaException EINVAL for another state, for an id on no device, or before the
     *                       peer's parameters are known.
     */
    @Override
    public QpAttr initQpAttr(final QpState qpState)
    {
        channel.lock.lock();
        try
        {
            checkAlive("initQpAttr");
            RdmaException.check(qpState == QpState.INIT || qpState == QpState.RTR || qpState == QpState.RTS,
                Errno.EINVAL, "initQpAttr: " + qpState + " is not a state rdma_cm sets up; ask for INIT, RTR or RTS");
            RdmaException.check(verbs != null, Errno.EINVAL, "initQpAttr: the id is on no device (" + stateLocked() +
                "); bind it or resolve an address first");
            final QpType type = qp != null ? qp.type() : portSpace == PortSpace.UDP ? QpType.UD : QpType.RC;
            if (qpState == QpState.INIT)
            {
                return initAttr(type);
            }
            final CmConnection c = connection;
            final CmMessage.Req req = c != null && c.request instanceof CmMessage.Req r ? r : null;
            final boolean known = req != null && (c.active ? c.reply != null :
                c.phase == CmConnection.Phase.REQ_RCVD || c.phase == CmConnection.Phase.REP_SENT ||
                c.phase == CmConnection.Phase.MRA_REP_RCVD || c.phase == CmConnection.Phase.ESTABLISHED);
            RdmaException.check(known, Errno.EINVAL, "initQpAttr: the id has no connection parameters for " + qpState +
                " yet (" + (c == null ? stateLocked() : c.phase) + "); wait for CONNECT_RESPONSE or CONNECT_REQUEST");
            final SoftEngine engine = engine();
            if (c.active)
            {
                final CmMessage.Rep rep = c.reply;
                return qpState == QpState.RTR ?
                    ConnectionManager.rtrAttr(type, engine, c.peerIp, rep.qpn(), c.startingPsn, req.pathMtu(),
                        Math.min(req.responderResources(), rep.initiatorDepth())) :
                    ConnectionManager.rtsAttr(type, rep.startingPsn(),
                        Math.min(req.initiatorDepth(), rep.responderResources()), req.retryCount(),
                        rep.rnrRetryCount());
            }
            return qpState == QpState.RTR ?
                ConnectionManager.rtrAttr(type, engine, c.peerIp, req.qpn(), c.startingPsn, req.pathMtu(),
                    Math.min(engine.limits().maxQpRdAtom(), req.initiatorDepth())) :
                ConnectionManager.rtsAttr(type, req.startingPsn(),
                    Math.min(engine.limits().maxQpInitRdAtom(), req.responderResources()), req.retryCount(),
                    req.rnrRetryCount());
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Sends the RTU; the passive side reports ESTABLISHED on it, this side reports nothing more.
     *
     * @throws RdmaException EINVAL unless the id's connection has reported CONNECT_RESPONSE.
     */
    @Override
    public void establish()
    {
        channel.lock.lock();
        try
        {
            checkAlive("establish");
            final CmConnection c = connection;
            RdmaException.check(c != null && c.phase == CmConnection.Phase.REP_RCVD, Errno.EINVAL,
                "establish: the id has no connect response to complete (" + (c == null ? stateLocked() : c.phase) +
                "); it follows CONNECT_RESPONSE, for a connect without a QP on the id");
            c.establish();
        }
        finally
        {
            channel.lock.unlock();
        }
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
            channel.awaitAcks(() -> left.acked >= left.reported, "leaveMulticast",
                this + " from " + left.address, event -> event.join() == left);
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
        final List<SoftDevice> alsoReleased = new ArrayList<>();
        RdmaException interrupted = null;
        channel.lock.lock();
        try
        {
            if (state == CmState.DESTROYING)
            {
                return;
            }
            if (state == CmState.LISTEN)
            {
                cm.stopListening(this);
            }
            if (connection != null)
            {
                connection.abandon();
            }
            state = CmState.DESTROYING;
            for (final MulticastJoin join : joins)
            {
                undo(join);
            }
            joins.clear();
            for (final SoftCmEvent unseen : channel.takeQueued(event -> event.softId() == this))
            {
                if (unseen.id() != this)
                {
                    // a connection request the application never saw: its id goes with the
                    // listener, and the peer is rejected, as when the kernel destroys a listener
                    alsoReleased.add(((SoftCmId)unseen.id()).discardUnseen());
                }
            }
            if (reservedPort >= 0)
            {
                PortTable.release(portSpace, reservedAddress, reservedPort);
                reservedPort = -1;
            }
            releasedDevice = device;
            releasedPd = ownPd;
            alsoReleased.addAll(listenDevices);
            listenDevices.clear();
            try
            {
                channel.awaitAcks(() -> acked >= reported, "close", this, event -> event.softId() == this);
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
            cm.devices.release(releasedDevice);
        }
        for (final SoftDevice listened : alsoReleased)
        {
            cm.devices.release(listened);
        }
        if (interrupted != null)
        {
            throw interrupted;
        }
    }

    @Override
    public String toString()
    {
        return "cm id " + portSpace + " " + localAddress + " (" + stateLocked() + ")";
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
                verbs = cm.devices.acquire(bound);
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
            final Context opened = cm.devices.acquire(chosen);
            if (state == CmState.IDLE)
            {
                try
                {
                    reservedPort = PortTable.reserve(portSpace, chosen.address(), 0);
                    reservedAddress = chosen.address();
                }
                catch (final RuntimeException ex)
                {
                    cm.devices.release(chosen);
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

    /** The INIT attributes rdma_cm gives a QP of a type: port 1, P_Key index 0, and a Q_Key or access flags. */
    private static QpAttr initAttr(final QpType type)
    {
        final QpAttr init = new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1);
        return switch (type)
        {
            case UD -> init.qkey(RdmaCm.UDP_QKEY);
            case RC -> init.accessFlags(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ);
            // UC has no RDMA READ, so rdma_cm grants it remote write only
            default -> init.accessFlags(AccessFlag.REMOTE_WRITE);
        };
    }

    private static void moveToInitialState(final QueuePair created)
    {
        created.modify(initAttr(created.type()));
        if (created.type() == QpType.UD)
        {
            created.modify(new QpAttr().state(QpState.RTR));
            created.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        }
    }

    private void checkAlive(final String verb)
    {
        RdmaException.check(state != CmState.DESTROYING, Errno.EINVAL, verb + ": the id is destroyed");
    }

    private static void checkPrivateData(final String verb, final byte[] data, final int limit)
    {
        RdmaException.check(data == null || data.length <= limit, Errno.EINVAL,
            verb + ": " + (data == null ? 0 : data.length) + " bytes of private data exceed the " + limit +
            " the message carries");
    }

    /** rdma_cm's RoCE flow label: (source port × 31 + destination port), 20 bits. */
    private static int flowLabel(final int sourcePort, final int destinationPort)
    {
        return (sourcePort * 31 + destinationPort) & 0xFFFFF;
    }

    // ---- the IB CM's side: called on the connection manager's thread ----

    /**
     * @return true if this listener takes requests for the port space and port on the
     * destination address, arriving on that device.
     */
    boolean listensFor(final int space, final int port, final InetAddress destination, final SoftEngine engine)
    {
        channel.lock.lock();
        try
        {
            if (state != CmState.LISTEN || CmWire.portSpaceCode(portSpace) != space || localAddress.getPort() != port)
            {
                return false;
            }
            if (device != null)
            {
                return device == engine.device() && localAddress.getAddress().equals(destination);
            }
            return engine.device().address().equals(destination);
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * Report a request to this listener on a new id, if the backlog has room.
     *
     * @return false when it has none.
     */
    boolean offer(final SoftEngine engine, final CmMessage request, final int peerIp)
    {
        channel.lock.lock();
        try
        {
            if (state != CmState.LISTEN || backlogUsed >= backlog)
            {
                return false;
            }
            final SoftCmId id = new SoftCmId(channel, context, portSpace);
            final boolean datagram = request instanceof CmMessage.SidrReq;
            final CmConnection c = new CmConnection(cm, id, engine, cm.newCommId(id), peerIp, false,
                datagram ? CmConnection.Phase.SIDR_REQ_RCVD : CmConnection.Phase.REQ_RCVD);
            c.request = request;
            c.tid = request.tid();
            c.listener = this;
            final int peerPort;
            final byte[] userData;
            if (request instanceof CmMessage.Req req)
            {
                c.remoteCommId = req.localCommId();
                c.remoteQpn = req.qpn();
                c.startingPsn = ConnectionManager.randomPsn();
                peerPort = req.srcPort();
                userData = req.userData();
            }
            else
            {
                final CmMessage.SidrReq req = (CmMessage.SidrReq)request;
                c.remoteCommId = req.requestId();
                peerPort = req.srcPort();
                userData = req.userData();
            }
            id.device = engine.device();
            id.verbs = cm.devices.acquire(engine.device());
            id.localAddress = new InetSocketAddress(engine.device().address(), localAddress.getPort());
            id.peerAddress = new InetSocketAddress(Ipv4.toAddress(peerIp), peerPort);
            id.connection = c;
            id.state = CmState.CONNECT;
            channel.adopt(id);
            backlogUsed++;
            if (datagram)
            {
                ConnectionManager.post(id, CmEventType.CONNECT_REQUEST, 0, null,
                    ConnectionManager.udParam(userData, peerIp, 0, 0), this);
            }
            else
            {
                ConnectionManager.post(id, CmEventType.CONNECT_REQUEST, 0, ConnectionManager.connParam(request), null,
                    this);
            }
            return true;
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * @return true if the request repeats one this id is answering (a lost reply): the reply
     * goes again, or an MRA if the application has not answered yet.
     */
    boolean answersDuplicate(final CmMessage request, final int peerIp, final int remoteCommId)
    {
        channel.lock.lock();
        try
        {
            final CmConnection c = connection;
            return c != null && c.answersDuplicate(request, peerIp, remoteCommId);
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * A reply or a disconnect for this id's connection.
     *
     * @return HANDLED, or why it was dropped.
     */
    CmCounter onMessage(final CmMessage message, final int peerIp)
    {
        channel.lock.lock();
        try
        {
            final CmConnection c = connection;
            if (c == null || state == CmState.DESTROYING)
            {
                return CmCounter.DROP_UNKNOWN_COMM_ID;
            }
            return c.onMessage(message, peerIp);
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /** Lock held: queue an event of this id's connection. */
    void post(final CmEventType type, final int status, final ConnParam param, final UdParam ud)
    {
        ConnectionManager.post(this, type, status, param, ud, null);
    }

    /** Lock held: queue an event unless the id is being destroyed. */
    void postUnlessDestroyed(final CmEventType type)
    {
        if (state != CmState.DESTROYING)
        {
            post(type, 0, null, null);
        }
    }

    /**
     * @return the task wrapped so that it runs under this id's lock, as the connection's timers must.
     */
    Runnable locked(final Runnable task)
    {
        return () ->
        {
            channel.lock.lock();
            try
            {
                task.run();
            }
            finally
            {
                channel.lock.unlock();
            }
        };
    }

    /**
     * Lock held (the listener's, which is this id's channel's): destroy an id whose
     * CONNECT_REQUEST was never retrieved.
     *
     * @return its device, to release once the lock is let go.
     */
    private SoftDevice discardUnseen()
    {
        if (connection != null)
        {
            connection.abandon();
        }
        state = CmState.DESTROYING;
        channel.forget(this);
        return device;
    }

    /** A connection request this listener held was answered and no longer counts against the backlog. */
    void releaseBacklogPlace()
    {
        channel.lock.lock();
        try
        {
            backlogUsed--;
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * @return the id's connection, or null; for tests that read its ids and counters.
     */
    CmConnection connectionForTest()
    {
        channel.lock.lock();
        try
        {
            return connection;
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * @return the phase of the id's connection, or null; for tests that wait for the protocol.
     */
    CmConnection.Phase connectionPhase()
    {
        channel.lock.lock();
        try
        {
            return connection == null ? null : connection.phase;
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /**
     * @return the id's state as rdma_cm names it: while a connection exists its phase decides
     * between CONNECT and DISCONNECT (the connection is the one record of where it stands).
     */
    CmState stateLocked()
    {
        if (state != CmState.CONNECT || connection == null)
        {
            return state;
        }
        return switch (connection.phase)
        {
            case DREQ_SENT, DREQ_RCVD, TIMEWAIT -> CmState.DISCONNECT;
            default -> CmState.CONNECT;
        };
    }
}
