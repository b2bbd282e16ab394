package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.UdParam;
import io.rdma4j.soft.SoftCounter;
import io.rdma4j.soft.SoftEngine;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.GlobalRoute;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The IB connection manager of the soft device, as the kernel's ib_cm and rdma_cm run it on
 * RoCE: REQ, REP, RTU, REJ, DREQ and DREP for RC and UC, SIDR for UD, carried as MADs between the
 * QP1s of two devices. One thread handles every MAD and every retransmission, so the protocol
 * state of an id changes only on it or on an application thread holding the id's channel lock.
 * <p>
 * Timing follows rdma_cm: a request unanswered for the CM response timeout (4.096 µs × 2^20, about
 * 4.3 s) is sent again, up to 15 times, before the id reports UNREACHABLE (or DISCONNECTED, for a
 * DREQ). Duplicate requests are answered again from the reply already sent.
 */
final class ConnectionManager
{
    /** CM response timeout exponent rdma_cm puts in a REQ, local and remote. */
    static final int CM_RESPONSE_TIMEOUT = 20;
    /** Times rdma_cm sends a CM request before giving up. */
    static final int MAX_CM_RETRIES = 15;
    /** The QP ack timeout rdma_cm computes for RoCE: packet life 18 plus ack delay 15 gives 19. */
    static final int LOCAL_ACK_TIMEOUT = 19;
    /** The path's hop limit on RoCE, as the kernel resolves a route. */
    static final int HOP_LIMIT = 64;
    /** RNR retries and transport retries when the application leaves them to rdma_cm. */
    static final int DEFAULT_RETRY = 7;
    /** Negative errno of a request that got no answer. */
    static final int ETIMEDOUT = -110;

    private static final long RESPONSE_TIMEOUT_NANOS = 4096L << CM_RESPONSE_TIMEOUT;
    private static final ScheduledExecutorService THREAD = Executors.newSingleThreadScheduledExecutor(
        runnable -> Thread.ofPlatform().daemon().name("rdma4j-cm-mad").unstarted(runnable));
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final AtomicInteger NEXT_COMM_ID = new AtomicInteger(RANDOM.nextInt());
    /** The high half of every transaction ID we start, as the kernel's MAD agent puts its own. */
    private static final long TID_HIGH = (RANDOM.nextInt() & 0xFFFFFFFFL) << 32;
    private static final Map<Integer, SoftCmId> BY_COMM_ID = new ConcurrentHashMap<>();
    private static final List<SoftCmId> LISTENERS = new CopyOnWriteArrayList<>();

    private ConnectionManager()
    {
    }

    /**
     * Make a device's QP1 traffic come here.
     *
     * @param engine the device.
     */
    static void install(final SoftEngine engine)
    {
        engine.gsiHandler(ConnectionManager::onMad);
    }

    static int newCommId(final SoftCmId id)
    {
        while (true)
        {
            final int commId = NEXT_COMM_ID.getAndIncrement();
            if (commId != 0 && BY_COMM_ID.putIfAbsent(commId, id) == null)
            {
                return commId;
            }
        }
    }

    static long newTid(final int commId)
    {
        return TID_HIGH | (commId & 0xFFFFFFFFL);
    }

    static int randomPsn()
    {
        return RANDOM.nextInt(1 << 24);
    }

    static void forget(final CmConnection connection)
    {
        BY_COMM_ID.remove(connection.localCommId);
    }

    static void listen(final SoftCmId id)
    {
        LISTENERS.add(id);
    }

    static void stopListening(final SoftCmId id)
    {
        LISTENERS.remove(id);
    }

    /**
     * Send a MAD now and again every CM response timeout until {@link CmConnection#cancelRetry}
     * or the retries run out, when {@code onTimeout} runs (under the id's lock).
     */
    static void sendWithRetries(
        final SoftCmId id, final CmConnection connection, final byte[] mad, final Runnable onTimeout)
    {
        connection.cancelRetry();
        connection.pending = mad;
        connection.retriesLeft = MAX_CM_RETRIES;
        connection.engine.sendMad(mad, connection.peerIp);
        scheduleRetry(id, connection, mad, onTimeout);
    }

    /**
     * The peer acknowledged the request and asked for {@code serviceNanos} more: wait that long
     * (plus the usual response timeout) before sending again, without spending a retry, as the
     * kernel does on an MRA.
     */
    static void extend(final SoftCmId id, final CmConnection connection, final long serviceNanos,
        final Runnable onTimeout)
    {
        final byte[] mad = connection.pending;
        if (mad == null)
        {
            return;
        }
        if (connection.retry != null)
        {
            connection.retry.cancel(false);
        }
        scheduleRetry(id, connection, mad, onTimeout, serviceNanos + RESPONSE_TIMEOUT_NANOS);
    }

    private static void scheduleRetry(
        final SoftCmId id, final CmConnection connection, final byte[] mad, final Runnable onTimeout)
    {
        scheduleRetry(id, connection, mad, onTimeout, RESPONSE_TIMEOUT_NANOS);
    }

    private static void scheduleRetry(
        final SoftCmId id, final CmConnection connection, final byte[] mad, final Runnable onTimeout,
        final long delayNanos)
    {
        connection.retry = THREAD.schedule(() ->
        {
            id.channel.lock.lock();
            try
            {
                if (connection.pending != mad)
                {
                    return;
                }
                if (connection.retriesLeft-- > 0)
                {
                    connection.engine.sendMad(mad, connection.peerIp);
                    scheduleRetry(id, connection, mad, onTimeout);
                }
                else
                {
                    connection.pending = null;
                    connection.retry = null;
                    onTimeout.run();
                }
            }
            finally
            {
                id.channel.lock.unlock();
            }
        }, delayNanos, TimeUnit.NANOSECONDS);
    }

    private static void onMad(final SoftEngine engine, final byte[] mad, final int sourceIpv4, final int sourcePort)
    {
        THREAD.execute(() -> dispatch(engine, mad, sourceIpv4));
    }

    private static void dispatch(final SoftEngine engine, final byte[] mad, final int sourceIpv4)
    {
        final CmMessage message = CmWire.decode(mad);
        if (message == null)
        {
            engine.counters().increment(SoftCounter.GSI_DROPPED_MADS);
            return;
        }
        switch (message)
        {
            case CmMessage.Req req -> onRequest(engine, message, req.serviceId(), req.dstIp(), sourceIpv4,
                req.localCommId());
            case CmMessage.SidrReq req -> onRequest(engine, message, req.serviceId(), req.dstIp(), sourceIpv4,
                req.requestId());
            case CmMessage.Rep rep -> deliver(engine, rep.remoteCommId(), sourceIpv4, message);
            case CmMessage.Rtu rtu -> deliver(engine, rtu.remoteCommId(), sourceIpv4, message);
            case CmMessage.Rej rej -> deliver(engine, rej.remoteCommId(), sourceIpv4, message);
            case CmMessage.Drep drep -> deliver(engine, drep.remoteCommId(), sourceIpv4, message);
            case CmMessage.Mra mra -> deliver(engine, mra.remoteCommId(), sourceIpv4, message);
            case CmMessage.SidrRep rep -> deliver(engine, rep.requestId(), sourceIpv4, message);
            case CmMessage.Dreq dreq ->
            {
                if (!deliver(engine, dreq.remoteCommId(), sourceIpv4, message))
                {
                    // the connection is gone here (destroyed, or its DREP lost): say it is over
                    engine.sendMad(CmWire.encode(new CmMessage.Drep(dreq.tid(), dreq.remoteCommId(),
                        dreq.localCommId())), sourceIpv4);
                }
            }
        }
    }

    private static boolean deliver(final SoftEngine engine, final int localCommId, final int sourceIpv4,
        final CmMessage message)
    {
        final SoftCmId id = BY_COMM_ID.get(localCommId);
        if (id == null || !id.onMessage(message, sourceIpv4))
        {
            engine.counters().increment(SoftCounter.GSI_DROPPED_MADS);
            return false;
        }
        return true;
    }

    /**
     * A REQ or SIDR_REQ: answered again if it duplicates one in progress, reported to a listener
     * on a new id, or refused as the kernel refuses it when nobody listens.
     */
    private static void onRequest(final SoftEngine engine, final CmMessage request, final long serviceId,
        final int dstIp, final int sourceIpv4, final int remoteCommId)
    {
        for (final SoftCmId id : BY_COMM_ID.values())
        {
            if (id.answersDuplicate(request, sourceIpv4, remoteCommId))
            {
                return;
            }
        }
        final int space = (int)(serviceId >>> 16) & 0xFFFF;
        final int port = (int)serviceId & 0xFFFF;
        final InetAddress destination = Ipv4.toAddress(dstIp);
        SoftCmId listener = null;
        for (final SoftCmId candidate : LISTENERS)
        {
            if (candidate.listensFor(space, port, destination, engine))
            {
                listener = candidate;
                break;
            }
        }
        if (listener == null || !listener.offer(engine, request, sourceIpv4))
        {
            engine.counters().increment(SoftCounter.GSI_DROPPED_MADS);
            refuse(engine, request, sourceIpv4, listener == null ? CmWire.REJ_INVALID_SERVICE_ID :
                CmWire.REJ_NO_RESOURCES);
        }
    }

    private static void refuse(final SoftEngine engine, final CmMessage request, final int peerIp, final int reason)
    {
        final CmMessage answer = switch (request)
        {
            case CmMessage.Req req -> new CmMessage.Rej(req.tid(), 0, req.localCommId(), CmWire.REJECTED_REQ, reason,
                null);
            case CmMessage.SidrReq req -> new CmMessage.SidrRep(req.tid(), req.requestId(),
                reason == CmWire.REJ_INVALID_SERVICE_ID ? CmWire.SIDR_UNSUPPORTED : CmWire.SIDR_REJECT, 0,
                req.serviceId(), 0, null);
            default -> null;
        };
        if (answer != null)
        {
            engine.sendMad(CmWire.encode(answer), peerIp);
        }
    }

    /**
     * @return the connection parameters a REQ or REP carries, as rdma_cm reports them.
     */
    static ConnParam connParam(final CmMessage message)
    {
        return switch (message)
        {
            case CmMessage.Req req -> new ConnParam(req.userData(), req.responderResources(), req.initiatorDepth(),
                req.flowControl() ? 1 : 0, req.retryCount(), req.rnrRetryCount(), req.srq(), req.qpn());
            case CmMessage.Rep rep -> new ConnParam(rep.privateData(), rep.responderResources(),
                rep.initiatorDepth(), rep.flowControl() ? 1 : 0, 0, rep.rnrRetryCount(), rep.srq(), rep.qpn());
            case CmMessage.Rej rej -> new ConnParam(rej.privateData(), 0, 0, 0, 0, 0, false, 0);
            default -> null;
        };
    }

    /**
     * @return the address vector to a peer over RoCE: its IPv4-mapped GID.
     */
    static AhAttr pathTo(final int peerIp)
    {
        return new AhAttr(new GlobalRoute(Gid.fromIpv4(peerIp), 0, 0, HOP_LIMIT, 0), 0, 0, 0, 0, 1);
    }

    static UdParam udParam(final byte[] privateData, final int peerIp, final int qpn, final int qkey)
    {
        return new UdParam(privateData, pathTo(peerIp), qpn, qkey);
    }

    /**
     * Take a QP to RTR and RTS for a connection, as librdmacm does in rdma_connect's reply
     * handling and in rdma_accept.
     */
    static void connectQp(final QueuePair qp, final SoftEngine engine, final int peerIp, final int remoteQpn,
        final int receivePsn, final int sendPsn, final int pathMtu, final int responderResources,
        final int initiatorDepth, final int retryCount, final int rnrRetryCount)
    {
        try
        {
            final int mtu = Math.min(pathMtu, engine.activeMtu().value());
            final QpAttr rtr = new QpAttr().state(QpState.RTR).pathMtu(io.rdma4j.verbs.Mtu.fromValue(mtu))
                .destQpNum(remoteQpn).rqPsn(receivePsn).ahAttr(pathTo(peerIp)).minRnrTimer(0);
            final QpAttr rts = new QpAttr().state(QpState.RTS).sqPsn(sendPsn);
            if (qp.type() == io.rdma4j.verbs.QpType.RC)
            {
                rtr.maxDestRdAtomic(responderResources);
                rts.timeout(LOCAL_ACK_TIMEOUT).retryCnt(retryCount).rnrRetry(rnrRetryCount)
                    .maxRdAtomic(initiatorDepth);
            }
            qp.modify(rtr);
            qp.modify(rts);
        }
        catch (final RdmaException ex)
        {
            throw new RdmaException(ex.errno(), "the QP could not be connected: " + ex.getMessage(), ex);
        }
    }

    static void errorQp(final QueuePair qp)
    {
        if (qp != null)
        {
            try
            {
                qp.modify(new QpAttr().state(QpState.ERR));
            }
            catch (final RdmaException ex)
            {
                // destroyed meanwhile, or in RESET: nothing left to flush
            }
        }
    }

    static int clamp(final int requested, final int deviceMax)
    {
        return requested < 0 || requested > deviceMax ? deviceMax : requested;
    }

    static int retry(final int requested)
    {
        return requested < 0 || requested > 7 ? DEFAULT_RETRY : requested;
    }

    static void post(final SoftCmId id, final CmEventType type, final int status, final ConnParam param,
        final UdParam ud, final SoftCmId listener)
    {
        id.channel.post(new SoftCmEvent(id.channel, type, id, status, ud, null, param, listener));
    }
}
