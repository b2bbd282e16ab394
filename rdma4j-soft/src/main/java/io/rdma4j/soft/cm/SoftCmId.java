package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.Gid;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * A connection-manager id of the soft device ({@code struct rdma_cm_id}): the rdma_cm API over the
 * parts that do the work. Each verb takes the channel's lock, checks the id's state, and hands on
 * to {@link CmBinding} (addresses, device, port), {@link CmListener} (listen and its backlog),
 * {@link CmQpSetup} (the QP rdma_cm creates), {@link CmHandshake} and {@link CmConnection} (the IB
 * CM messages over QP1 that connect RC and UC, and UD through SIDR) or {@link CmMulticastJoins}.
 * <p>
 * Verbs run on the application's threads; the connection manager's thread calls in through the
 * package-private methods at the end, always under the channel's lock.
 */
public final class SoftCmId implements CmId
{
    final SoftEventChannel channel;
    /** The connection manager of the channel: its thread, timers and devices. */
    final ConnectionManager cm;
    /** The id's device, port and addresses. */
    final CmBinding binding;
    private final PortSpace portSpace;
    /** The id's number in {@code rdma4j stat}: in creation order, unique in the process. */
    private final long number;
    private final CmMulticastJoins joins = new CmMulticastJoins(this);
    private volatile Object context;
    private volatile QueuePair qp;
    private CmState state = CmState.IDLE;
    private ProtectionDomain ownPd;
    /** The connection (or SIDR exchange) this id takes part in; guarded by the channel's lock. */
    private CmConnection connection;
    /** The listening side, from listen on; guarded by the channel's lock. */
    private CmListener listener;
    /** Events of this id retrieved from the channel; guarded by the channel's lock. */
    long reported;
    /** Events of this id acknowledged; guarded by the channel's lock. */
    long acked;

    SoftCmId(final SoftEventChannel channel, final Object context, final PortSpace portSpace)
    {
        this.channel = channel;
        this.cm = channel.cm;
        this.number = channel.cm.shared.stat().nextNumber();
        this.binding = new CmBinding(channel.cm, portSpace);
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
        return binding.verbs();
    }

    @Override
    public QueuePair qp()
    {
        return qp;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return binding.localAddress();
    }

    @Override
    public InetSocketAddress peerAddress()
    {
        return binding.peerAddress();
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
        underLock("bindAddr", () ->
        {
            RdmaException.check(state == CmState.IDLE, Errno.EINVAL,
                "bindAddr: the id is " + state + ", already bound; bind works only on an IDLE id");
            binding.bind("bindAddr", address);
            state = CmState.ADDR_BOUND;
        });
    }

    /**
     * {@inheritDoc}
     * <p>
     * Without a source, the device is the one owning the destination if it is a device's address,
     * else the first device of the destination's IP family the provider lists (the soft device has
     * no routing table). The event comes from the connection-manager thread; ADDR_ERROR with status
     * -ENETUNREACH when the id is bound to a device of the other family than the destination's.
     *
     * @throws RdmaException EINVAL unless the id is IDLE or ADDR_BOUND, or if source and
     *                       destination differ in family; what bindAddr throws for the source.
     */
    @Override
    public void resolveAddr(final InetSocketAddress source, final InetSocketAddress destination, final int timeoutMs)
    {
        underLock("resolveAddr", () ->
        {
            RdmaException.check(destination != null && destination.getAddress() != null, Errno.EINVAL,
                "resolveAddr: the destination is null or unresolved");
            RdmaException.check(state == CmState.IDLE || state == CmState.ADDR_BOUND, Errno.EINVAL,
                "resolveAddr: the id is " + state + "; addresses resolve only from IDLE or ADDR_BOUND");
            final int status = binding.resolve(source, destination, state == CmState.ADDR_BOUND);
            state = CmState.ADDR_QUERY;
            channel.later(() -> complete(CmState.ADDR_QUERY, status,
                CmEventType.ADDR_RESOLVED, CmState.ADDR_RESOLVED, CmEventType.ADDR_ERROR));
        });
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
        underLock("resolveRoute", () ->
        {
            RdmaException.check(state == CmState.ADDR_RESOLVED, Errno.EINVAL,
                "resolveRoute: the id is " + state + "; resolve the address first (ADDR_RESOLVED)");
            state = CmState.ROUTE_QUERY;
            channel.later(() -> complete(CmState.ROUTE_QUERY, 0,
                CmEventType.ROUTE_RESOLVED, CmState.ROUTE_RESOLVED, CmEventType.ROUTE_ERROR));
        });
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
        underLock("listen", () ->
        {
            if (state == CmState.IDLE)
            {
                binding.bind("listen", new InetSocketAddress(InetAddress.ofLiteral("0.0.0.0"), 0));
                state = CmState.ADDR_BOUND;
            }
            RdmaException.check(state == CmState.ADDR_BOUND, Errno.EINVAL,
                "listen: the id is " + state + "; only a bound (ADDR_BOUND) id listens");
            final CmListener listening = new CmListener(this, requestedBacklog);
            if (binding.device() == null)
            {
                listening.openDefaultDevice();
            }
            listener = listening;
            state = CmState.LISTEN;
            cm.listen(listening);
        });
    }

    /**
     * {@inheritDoc}
     * <p>
     * A UD QP goes RESET, INIT (P_Key index 0, port 1, Q_Key {@link RdmaCm#UDP_QKEY}), RTR and RTS
     * (SQ PSN 0) at once; an RC or UC QP stops in INIT with remote write (and read and atomic, for RC) access,
     * where connection establishment would take it on. Without a PD the id allocates its own,
     * deallocated when the id is destroyed.
     *
     * @throws RdmaException EINVAL if the id has no device or already a QP, the PD is of another
     *                       device, or the QP type does not fit the port space.
     */
    @Override
    public QueuePair createQp(final ProtectionDomain pd, final QpInitAttr initAttr)
    {
        return underLockReturning("createQp", () ->
        {
            RdmaException.check(initAttr != null, Errno.EINVAL, "createQp: the init attributes are null");
            final Context verbs = binding.verbs();
            RdmaException.check(verbs != null, Errno.EINVAL,
                "createQp: the id is on no device (" + state + "); bind it to a local address or resolve one first");
            RdmaException.check(qp == null, Errno.EINVAL, "createQp: the id already has QP " +
                Integer.toHexString(qp == null ? 0 : qp.qpNum()) + "; destroy it first");
            CmQpSetup.checkType(portSpace, initAttr.type());
            if (pd == null && ownPd == null)
            {
                ownPd = verbs.allocPd();
            }
            final QueuePair created = CmQpSetup.create(verbs, pd == null ? ownPd : pd, initAttr);
            qp = created;
            return created;
        });
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
        underLock("destroyQp", () ->
        {
            final QueuePair current = qp;
            RdmaException.check(current != null, Errno.EINVAL, "destroyQp: the id has no QP");
            joins.forgetQp(current);
            qp = null;
            current.close();
        });
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
        underLock("connect", () ->
        {
            RdmaException.check(state == CmState.ROUTE_RESOLVED, Errno.EINVAL,
                "connect: the id is " + state + "; resolve the address and the route first (ROUTE_RESOLVED)");
            connection = CmHandshake.connect(this, qp, param == null ? ConnParam.defaults() : param);
            state = CmState.CONNECT;
        });
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
        underLock("accept", () ->
        {
            CmHandshake.accept(this, qp, unansweredRequest("accept"), param == null ? ConnParam.defaults() : param);
        });
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
        underLock("reject", () ->
        {
            CmHandshake.reject(this, unansweredRequest("reject"), privateData);
        });
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
        underLock("disconnect", () ->
        {
            final CmConnection c = connection;
            RdmaException.check(c != null && c.connected(), Errno.EINVAL,
                "disconnect: the id is not connected (" + (c == null ? state : c.phase) + ")");
            ConnectionManager.errorQp(qp);
            c.disconnectByApplication();
        });
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
        return underLockReturning("initQpAttr", () ->
        {
            RdmaException.check(qpState == QpState.INIT || qpState == QpState.RTR || qpState == QpState.RTS,
                Errno.EINVAL, "initQpAttr: " + qpState + " is not a state rdma_cm sets up; ask for INIT, RTR or RTS");
            RdmaException.check(binding.verbs() != null, Errno.EINVAL, "initQpAttr: the id is on no device (" +
                stateLocked() + "); bind it or resolve an address first");
            final QpType type = qp != null ? qp.type() : portSpace == PortSpace.UDP ? QpType.UD : QpType.RC;
            return qpState == QpState.INIT ? CmQpSetup.initAttr(type) :
                CmHandshake.qpAttr(this, connection, type, qpState);
        });
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
        underLock("establish", () ->
        {
            final CmConnection c = connection;
            RdmaException.check(c != null && c.phase == CmConnection.Phase.REP_RCVD, Errno.EINVAL,
                "establish: the id has no connect response to complete (" + (c == null ? stateLocked() : c.phase) +
                "); it follows CONNECT_RESPONSE, for a connect without a QP on the id");
            c.establish();
        });
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
        underLock("joinMulticast", () ->
        {
            RdmaException.check(state == CmState.ADDR_BOUND || state == CmState.ADDR_RESOLVED, Errno.EINVAL,
                "joinMulticast: the id is " + state + "; it must be bound (bindAddr) or address-resolved " +
                "(resolveAddr, then ADDR_RESOLVED) to join");
            RdmaException.check(portSpace == PortSpace.UDP, Errno.EINVAL,
                "joinMulticast: only ids of the UDP port space (UD QPs) join groups; this id is " + portSpace);
            RdmaException.check(binding.device() != null, Errno.EINVAL,
                "joinMulticast: the id is bound to the wildcard address and so to no device");
            joins.join(binding.engine(), group, flags, joinContext);
        });
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
        underLock("leaveMulticast", () ->
        {
            joins.leave(binding, group);
        });
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
        final CmIdRelease release = new CmIdRelease();
        RdmaException interrupted = null;
        channel.lock.lock();
        try
        {
            if (state == CmState.DESTROYING)
            {
                return;
            }
            if (listener != null)
            {
                cm.stopListening(listener);
                release.devices(listener.takeDevices());
            }
            if (connection != null)
            {
                connection.abandon();
            }
            state = CmState.DESTROYING;
            joins.leaveAll(binding);
            for (final SoftCmEvent unseen : channel.takeQueued(event -> event.softId() == this))
            {
                if (unseen.id() != this)
                {
                    // a connection request the application never saw: its id goes with the
                    // listener, and the peer is rejected, as when the kernel destroys a listener
                    release.device(((SoftCmId)unseen.id()).discardUnseen());
                }
            }
            binding.releasePort();
            release.device(binding.device());
            release.pd(ownPd);
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
        release.run(cm.devices);
        if (interrupted != null)
        {
            throw interrupted;
        }
    }

    @Override
    public String toString()
    {
        return "cm id " + portSpace + " " + binding.localAddress() + " (" + stateLocked() + ")";
    }

    /** Lock held: the connection of a CONNECT_REQUEST's id, if the request is not answered yet. */
    private CmConnection unansweredRequest(final String verb)
    {
        final CmConnection c = connection;
        RdmaException.check(c != null && (c.phase == CmConnection.Phase.REQ_RCVD ||
            c.phase == CmConnection.Phase.SIDR_REQ_RCVD), Errno.EINVAL,
            verb + ": the id has no connection request to answer" + (c == null ? "" : " (" + c.phase + ")"));
        return c;
    }

    /** Runs on the connection-manager thread: the end of address or route resolution. */
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
                    (binding.holdsPort() ? CmState.ADDR_BOUND : CmState.IDLE) : CmState.ADDR_RESOLVED;
                channel.post(new SoftCmEvent(channel, failure, this, status, null, null));
            }
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /** Run a verb under the channel's lock, on an id not destroyed. */
    private void underLock(final String verb, final Runnable action)
    {
        underLockReturning(verb, () ->
        {
            action.run();
            return null;
        });
    }

    /** @return what a verb run under the channel's lock, on an id not destroyed, returns. */
    private <T> T underLockReturning(final String verb, final Supplier<T> action)
    {
        return withLock(() ->
        {
            checkAlive(verb);
            return action.get();
        });
    }

    /**
     * From the connection-manager thread, about once a second: end this id's connection if its peer's process
     * is known to be gone.
     */
    void checkPeerAlive()
    {
        withLock(() ->
        {
            onLiveConnection(CmConnection::checkPeerAlive);
            return null;
        });
    }

    /**
     * The process is exiting (normal exit, SIGTERM, Ctrl-C): say goodbye as the kernel does for the ids of a
     * dying process, each message sent once and nothing waited for: a connected peer gets a DREQ, an unanswered
     * request a REJ. An id whose channel another thread holds for longer than {@code waitMs} is skipped, so that
     * a stuck application cannot hold the exit up.
     *
     * @param waitMs how long to wait for the channel's lock.
     * @return true if the id was seen to.
     * @throws InterruptedException if the exiting thread is interrupted.
     */
    boolean farewell(final long waitMs) throws InterruptedException
    {
        if (!channel.lock.tryLock(waitMs, java.util.concurrent.TimeUnit.MILLISECONDS))
        {
            return false;
        }
        try
        {
            onLiveConnection(CmConnection::abandon);
            return true;
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    /** Lock held: the action on the connection, if there is one and the id is not being destroyed. */
    private void onLiveConnection(final java.util.function.Consumer<CmConnection> action)
    {
        final CmConnection c = connection;
        if (c != null && state != CmState.DESTROYING)
        {
            action.accept(c);
        }
    }

    /** @return what the action returns, run under the channel's lock. */
    private <T> T withLock(final Supplier<T> action)
    {
        channel.lock.lock();
        try
        {
            return action.get();
        }
        finally
        {
            channel.lock.unlock();
        }
    }

    private void checkAlive(final String verb)
    {
        RdmaException.check(state != CmState.DESTROYING, Errno.EINVAL, verb + ": the id is destroyed");
    }

    // ---- for the rest of the package: the connection manager, the channel and tests ----

    QueuePair qpLocked()
    {
        return qp;
    }

    boolean destroyingLocked()
    {
        return state == CmState.DESTROYING;
    }

    boolean listeningLocked()
    {
        return state == CmState.LISTEN;
    }

    /** A new id made from a connection request takes its connection. */
    void adoptLocked(final CmConnection c)
    {
        connection = c;
        state = CmState.CONNECT;
    }

    /**
     * A reply or a disconnect for this id's connection, from the connection-manager thread.
     *
     * @return HANDLED, or why it was dropped.
     */
    CmCounter onMessage(final CmMessage message, final Gid peer)
    {
        return withLock(() ->
        {
            final CmConnection c = connection;
            return c == null || state == CmState.DESTROYING ? CmCounter.DROP_UNKNOWN_COMM_ID :
                c.onMessage(message, peer);
        });
    }

    /**
     * The peer's host said no RoCEv2 device listens there (ICMP port unreachable), from the connection-manager
     * thread: a request this id is still sending it ends now instead of after its retries.
     *
     * @param peer the unreachable peer.
     */
    void peerUnreachable(final Gid peer)
    {
        withLock(() ->
        {
            onLiveConnection(c -> c.peerUnreachable(peer));
            return null;
        });
    }

    /**
     * @return true if the request repeats one this id is answering (a lost reply): the reply
     * goes again, or an MRA if the application has not answered yet.
     */
    boolean answersDuplicate(final CmMessage request, final Gid peer, final int remoteCommId)
    {
        return withLock(() ->
        {
            final CmConnection c = connection;
            return c != null && c.answersDuplicate(request, peer, remoteCommId);
        });
    }

    /**
     * The listener is destroyed before the application retrieved this id's CONNECT_REQUEST.
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
        return binding.device();
    }

    long number()
    {
        return number;
    }

    /**
     * @return a number that changes when what {@link #describeOn} writes may have: the state, the connection's
     *     phase, the QP, the backlog's use and the groups joined (the addresses change only with the state). For
     *     the stat file's publisher, which writes the ids' lines again only then; formats nothing. Read without the
     *     channel's lock, as a hint: a value torn by a change under way changes the key too, and the change itself
     *     is seen at the next look. A hundred ids a second under their locks, in code run too rarely to be compiled
     *     soon, cost the idle stat thread more than the lines did.
     */
    long describeKey()
    {
        final CmConnection c = connection;
        final CmListener l = listener;
        final QueuePair q = qp;
        long key = number * 31 + state.ordinal();
        key = key * 31 + (c == null ? -1 : c.phaseKey());
        key = key * 31 + (q == null ? -1 : q.qpNum());
        key = key * 31 + (l == null ? -1 : l.backlogKey());
        return key * 31 + joins.describeKey();
    }

    /**
     * Append the id's line to a device's describe section if the id is on that device: number, port space,
     * state (and the connection's phase), addresses, QP, a listener's backlog, the groups joined.
     */
    void describeOn(final SoftDevice device, final StringBuilder text)
    {
        withLock(() ->
        {
            final CmListener l = listener;
            final boolean on = binding.device() == device || (state == CmState.LISTEN && l != null &&
                l.hearsOnLocked(device));
            if (state == CmState.DESTROYING || !on)
            {
                return null;
            }
            text.append("cm id ").append(number).append(' ').append(portSpace).append(' ').append(stateLocked());
            final CmConnection c = connection;
            if (c != null)
            {
                text.append(" (").append(c.phase).append(')');
            }
            appendAddress(text, "local", binding.localAddress());
            appendAddress(text, "remote", binding.peerAddress());
            final QueuePair q = qp;
            if (q != null)
            {
                SoftEngine.appendQpn(text.append(" qp "), q.qpNum());
            }
            if (state == CmState.LISTEN && l != null)
            {
                text.append(" backlog ").append(l.backlogLocked());
            }
            final String groups = joins.describeLocked();
            if (!groups.isEmpty())
            {
                text.append(" groups ").append(groups);
            }
            text.append('\n');
            return null;
        });
    }

    private static void appendAddress(final StringBuilder text, final String label, final InetSocketAddress address)
    {
        if (address != null)
        {
            text.append(' ').append(label).append(' ').append(address.getAddress().getHostAddress()).append(':')
                .append(address.getPort());
        }
    }

    /** @return the id's connection, or null; for tests that read its ids and counters. */
    CmConnection connectionForTest()
    {
        return withLock(() -> connection);
    }

    /** @return the listener's backlog as {@code rdma4j stat} shows it (used/size), or null; for tests. */
    String backlogForTest()
    {
        return withLock(() -> listener == null ? null : listener.backlogLocked());
    }

    /** @return the phase of the id's connection, or null; for tests that wait for the protocol. */
    CmConnection.Phase connectionPhase()
    {
        return withLock(() -> connection == null ? null : connection.phase);
    }

    /**
     * @return the id's state as rdma_cm names it: while a connection exists its phase decides
     * between CONNECT and DISCONNECT (the connection is the one record of where it stands).
     */
    CmState stateLocked()
    {
        return state != CmState.CONNECT || connection == null ? state : connection.idState();
    }
}
