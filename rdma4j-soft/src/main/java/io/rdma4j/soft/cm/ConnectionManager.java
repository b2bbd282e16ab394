package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.RejectReason;
import io.rdma4j.cm.UdParam;
import io.rdma4j.soft.cm.mad.ServiceId;
import io.rdma4j.soft.cm.mad.SidrStatus;
import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.GlobalRoute;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The IB connection manager of soft devices, as the kernel's ib_cm and rdma_cm run it on RoCE: REQ,
 * REP, RTU, REJ, MRA, DREQ and DREP for RC and UC, SIDR for UD, carried as MADs between the QP1s of
 * two devices. One instance serves the devices its ids use; each soft provider instance holds one
 * ({@link CmShared}), tests make their own with a clock they advance.
 * <p>
 * One thread runs everything: MADs from the devices, retransmission and timewait timers, and the
 * completions of address resolution and joins. MADs wait in a bounded queue; when it is full the
 * MAD is dropped and counted, so a flood costs bounded memory and the device's progress thread
 * never waits on the CM. Every MAD taken ends in one {@link CmCounter}. The per-connection protocol
 * is {@link CmConnection}'s state machine; this class finds the connection a MAD is for.
 * <p>
 * Timing follows rdma_cm: a request unanswered for the CM response timeout (4.096 µs × 2^20, about
 * 4.3 s) is sent again, up to 15 times, before the id reports UNREACHABLE (or DISCONNECTED, for a
 * DREQ). Duplicate requests are answered again from the reply already sent.
 */
public final class ConnectionManager
{
    /** CM response timeout exponent rdma_cm puts in a REQ, local and remote. */
    static final int CM_RESPONSE_TIMEOUT = 20;
    /** Times rdma_cm sends a CM request before giving up. */
    static final int MAX_CM_RETRIES = 15;
    /** The QP ack timeout rdma_cm computes for RoCE: packet life 18 plus ack delay 15 gives 19. */
    static final int LOCAL_ACK_TIMEOUT = 19;
    /** RNR retries and transport retries when the application leaves them to rdma_cm. */
    static final int DEFAULT_RETRY = 7;
    /** Negative errno of a request that got no answer. */
    static final int ETIMEDOUT = -110;
    /** The status of an UNREACHABLE whose peer's host answered with ICMP port unreachable. */
    static final int ECONNREFUSED = -111;
    /** Unreachable reports queued for the CM thread at most: an ICMP flood costs a bounded queue. */
    private static final int MAX_UNREACHABLE_QUEUED = 64;
    /** How often the connections' same-host peers are looked at ({@link #checkPeersAlive}). */
    static final long LIVENESS_NANOS = 1_000_000_000L;
    /** The status of a DISCONNECTED whose peer's process died without a DREQ. */
    static final int ECONNRESET = -104;
    /** How long the exiting process waits for an id's channel another thread holds, per id. */
    private static final long FAREWELL_WAIT_MS = 100;
    /** How long a request waits for its answer before it goes again. */
    static final long RESPONSE_TIMEOUT_NANOS = 4096L << CM_RESPONSE_TIMEOUT;
    /**
     * How long a closed connection's ids stay reserved (timewait) before TIMEWAIT_EXIT: the kernel
     * waits the path's timeout, which rdma_cm sets to the local ACK timeout on RoCE (about 2.1 s).
     */
    static final long TIMEWAIT_NANOS = 4096L << LOCAL_ACK_TIMEOUT;
    /** MADs waiting for the CM thread beyond which further MADs are dropped. */
    public static final int DEFAULT_QUEUE_CAPACITY = 1024;

    private static final System.Logger LOG = System.getLogger(ConnectionManager.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();

    private final CmClock clock;
    private final int queueCapacity;
    /** Every device's MADs together, and failed timers and completions, which are no device's. */
    private final Counters counters = new Counters();
    private final Map<Integer, SoftCmId> byCommId = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger unreachableQueued = new java.util.concurrent.atomic.AtomicInteger();
    private final List<CmListener> listeners = new CopyOnWriteArrayList<>();
    /** The high half of every transaction ID we start, as the kernel's MAD agent puts its own. */
    private final long tidHigh = (RANDOM.nextInt() & 0xFFFFFFFFL) << 32;
    /** The CM thread: its queues, its timers, its agent runner. */
    private final CmLoop<ReceivedMad> loop;
    /** What it shares with the other managers of its provider instance: devices, ports, stat lines. */
    final CmShared shared;
    final CmDevices devices = new CmDevices(this);

    private ConnectionManager(final CmShared shared, final CmClock clock, final int queueCapacity, final String name)
    {
        this.shared = shared;
        this.clock = clock;
        this.queueCapacity = queueCapacity;
        this.loop = new CmLoop<>(clock, queueCapacity, this::dispatch, () -> count(CmCounter.TASK_FAILED), null, name,
            LOG);
        loop.start();
    }

    /**
     * A connection manager on the system clock, as a provider instance holds one ({@link CmShared#manager()}).
     *
     * @param shared what it shares with the instance's other managers.
     * @return the manager; its thread is a daemon that lives until {@link #stop}.
     */
    static ConnectionManager withSystemClock(final CmShared shared)
    {
        final ConnectionManager cm = new ConnectionManager(shared, CmClock.system(), DEFAULT_QUEUE_CAPACITY,
            "rdma4j-cm");
        cm.schedule(cm::checkPeersAlive, LIVENESS_NANOS);
        return cm;
    }

    /**
     * Once a second, on the CM thread: a connection whose same-host peer's process is known to be gone (killed
     * without closing, so no DREQ came) is over, as the kernel's rdma_cm ends a dead process's connections.
     * Only links that can know say so (a same-host inbox names its owner's pid); the others' peers are left to
     * the QP's retries and the application's heartbeat.
     */
    private void checkPeersAlive()
    {
        try
        {
            // one look per peer process first: an idle server's hundred connections to one client cost one
            if (devices.anyPeerProcessGone())
            {
                for (final SoftCmId id : idsNow())
                {
                    id.checkPeerAlive();
                }
            }
        }
        finally
        {
            schedule(this::checkPeersAlive, LIVENESS_NANOS);
        }
    }

    /**
     * A connection manager of its own, for tests: ids of channels made on it use its clock. A device
     * is served by the manager that opened it last.
     *
     * @param shared        the devices, ports and stat lines it shares with its instance's other managers.
     * @param clock         the time its timers run by.
     * @param queueCapacity MADs that may wait for its thread.
     * @return the manager; its thread is a daemon that lives as long as the process.
     */
    static ConnectionManager create(final CmShared shared, final CmClock clock, final int queueCapacity)
    {
        return new ConnectionManager(shared, clock, queueCapacity, "rdma4j-cm-test");
    }

    /**
     * @param counter what to read.
     * @return how many MADs ended that way.
     */
    public long counter(final CmCounter counter)
    {
        return counters.get(counter.counter());
    }

    /**
     * @return the most MADs that ever waited for the CM thread at once.
     */
    public int queueHighWater()
    {
        return loop.madHighWater();
    }

    /**
     * @return the bound of the MAD queue.
     */
    public int queueCapacity()
    {
        return queueCapacity;
    }

    long nanoTime()
    {
        return clock.nanoTime();
    }

    void count(final CmCounter counter)
    {
        counters.increment(counter.counter());
    }

    /** A MAD's verdict, for the manager and for the device it came from, whose stat file and MBean show it. */
    private void count(final CmCounter counter, final SoftEngine engine)
    {
        count(counter);
        engine.counters().increment(counter.counter());
    }

    // ---- the work queue and the timers ----

    /**
     * Make a device's QP1 traffic come here.
     *
     * @param engine the device.
     */
    void install(final SoftEngine engine)
    {
        engine.gsiHandler(this::receive);
        engine.unreachableHandler(this::peerUnreachable);
    }

    /**
     * A peer's host answered with ICMP port unreachable, on a device's progress thread: the ids still sending
     * it a request are told on the CM thread. Reports beyond {@value #MAX_UNREACHABLE_QUEUED} queued are
     * dropped; the requests they concern end by their timeouts as before.
     */
    private void peerUnreachable(final SoftEngine engine, final Gid peer)
    {
        if (unreachableQueued.incrementAndGet() > MAX_UNREACHABLE_QUEUED)
        {
            unreachableQueued.decrementAndGet();
            return;
        }
        later(() ->
        {
            unreachableQueued.decrementAndGet();
            for (final SoftCmId id : idsNow())
            {
                id.peerUnreachable(peer);
            }
        });
    }

    /**
     * A MAD from a device, on its progress thread: queued for the CM thread, or dropped and counted
     * if the queue is full. Takes one short lock and never blocks on the protocol.
     */
    void receive(final SoftEngine engine, final byte[] mad, final Gid source, final int sourcePort)
    {
        if (!loop.offerMad(new ReceivedMad(engine, mad, source)))
        {
            count(CmCounter.DROP_QUEUE_FULL, engine);
            engine.counters().increment(SoftCounter.GSI_DROPPED_MADS);
        }
    }

    /**
     * Run a completion on the CM thread, after every completion submitted before. Completions come
     * from application calls (one per call), so their queue needs no bound of its own.
     */
    void later(final Runnable completion)
    {
        loop.later(completion);
    }

    /**
     * Run a task on the CM thread once the clock has moved on by {@code delayNanos}.
     *
     * @return the timer, to cancel.
     */
    CmTimer schedule(final Runnable task, final long delayNanos)
    {
        return loop.schedule(task, delayNanos);
    }

    void cancel(final CmTimer timer)
    {
        loop.cancel(timer);
    }

    /**
     * For tests: wait until the CM thread has nothing queued and no timer due, and sleeps.
     */
    void awaitIdle() throws InterruptedException
    {
        loop.awaitIdle();
    }

    /**
     * End the thread once it has finished its current task; what is queued is dropped: tests, and a provider
     * instance that closes ({@link CmShared#close}).
     */
    void stop()
    {
        loop.stop();
    }

    // ---- ids ----

    /**
     * @return a new local communication id for the id: random and unused, so that an id cannot be
     * guessed from another (the kernel mixes a random operand into its ids for the same reason).
     */
    int newCommId(final SoftCmId id)
    {
        while (true)
        {
            final int commId = RANDOM.nextInt();
            if (commId != 0 && byCommId.putIfAbsent(commId, id) == null)
            {
                return commId;
            }
        }
    }

    long newTid(final int commId)
    {
        return tidHigh | (commId & 0xFFFFFFFFL);
    }

    static int randomPsn()
    {
        return RANDOM.nextInt(1 << 24);
    }

    void forget(final CmConnection connection)
    {
        byCommId.remove(connection.localCommId);
    }

    void listen(final CmListener id)
    {
        listeners.add(id);
    }

    void stopListening(final CmListener id)
    {
        listeners.remove(id);
    }

    // ---- dispatch, on the CM thread ----

    private void dispatch(final ReceivedMad received)
    {
        final SoftEngine engine = received.engine;
        final CmCounter outcome;
        try
        {
            outcome = verdict(received);
        }
        catch (final RuntimeException ex)
        {
            // the run loop counts it for the manager and logs it; only here is it known whose MAD it was
            engine.counters().increment(CmCounter.TASK_FAILED.counter());
            throw ex;
        }
        count(outcome, engine);
        if (outcome != CmCounter.HANDLED && outcome != CmCounter.REFUSED)
        {
            engine.counters().increment(SoftCounter.GSI_DROPPED_MADS);
        }
    }

    private CmCounter verdict(final ReceivedMad received)
    {
        final SoftEngine engine = received.engine;
        final Gid source = received.source;
        final CmMessage message = CmWire.decode(received.bytes);
        final CmCounter outcome;
        if (message == null)
        {
            outcome = CmCounter.DROP_MALFORMED;
        }
        else
        {
            outcome = switch (message)
            {
                case CmMessage.Req req -> onRequest(engine, message, req.serviceId(), req.dstIp(), source,
                    req.localCommId());
                case CmMessage.SidrReq req -> onRequest(engine, message, req.serviceId(), req.dstIp(), source,
                    req.requestId());
                case CmMessage.Rep rep -> deliver(rep.remoteCommId(), source, message);
                case CmMessage.Rtu rtu -> deliver(rtu.remoteCommId(), source, message);
                case CmMessage.Rej rej -> deliver(rej.remoteCommId(), source, message);
                case CmMessage.Drep drep -> deliver(drep.remoteCommId(), source, message);
                case CmMessage.Mra mra -> deliver(mra.remoteCommId(), source, message);
                case CmMessage.SidrRep rep -> deliver(rep.requestId(), source, message);
                case CmMessage.Dreq dreq -> onDreq(engine, dreq, source);
            };
        }
        return outcome;
    }

    private CmCounter onDreq(final SoftEngine engine, final CmMessage.Dreq dreq, final Gid source)
    {
        final CmCounter outcome = deliver(dreq.remoteCommId(), source, dreq);
        if (outcome == CmCounter.DROP_UNKNOWN_COMM_ID)
        {
            // the connection is gone here (destroyed, or its DREP lost): say it is over, as the kernel does
            engine.sendMad(CmWire.encode(new CmMessage.Drep(dreq.tid(), dreq.remoteCommId(), dreq.localCommId())),
                source);
        }
        return outcome;
    }

    private CmCounter deliver(final int localCommId, final Gid source, final CmMessage message)
    {
        final SoftCmId id = byCommId.get(localCommId);
        return id == null ? CmCounter.DROP_UNKNOWN_COMM_ID : id.onMessage(message, source);
    }

    /**
     * A REQ or SIDR_REQ: answered again if it duplicates one in progress, reported to a listener
     * on a new id, dropped if the listener's backlog is full, or refused as the kernel refuses it when
     * nobody listens.
     */
    private CmCounter onRequest(final SoftEngine engine, final CmMessage request, final long serviceId,
        final Gid dstIp, final Gid source, final int remoteCommId)
    {
        for (final SoftCmId id : byCommId.values())
        {
            if (id.answersDuplicate(request, source, remoteCommId))
            {
                return CmCounter.HANDLED;
            }
        }
        final int space = ServiceId.portSpace(serviceId);
        final int port = ServiceId.port(serviceId);
        final InetAddress destination = dstIp.toInet();
        CmListener listener = null;
        for (final CmListener candidate : listeners)
        {
            if (candidate.listensFor(space, port, destination, engine))
            {
                listener = candidate;
                break;
            }
        }
        final CmCounter offered = listener == null ? CmCounter.REFUSED : listener.offer(engine, request, source);
        if (offered != CmCounter.REFUSED)
        {
            // handled, or dropped unanswered for a full backlog: the peer's next try may find a place
            return offered;
        }
        refuse(engine, request, source, listener == null ? RejectReason.INVALID_SERVICE_ID.code() :
            RejectReason.NO_RESOURCES.code());
        return CmCounter.REFUSED;
    }

    private static void refuse(final SoftEngine engine, final CmMessage request, final Gid peer, final int reason)
    {
        final CmMessage answer = switch (request)
        {
            case CmMessage.Req req -> new CmMessage.Rej(req.tid(), 0, req.localCommId(), CmWire.REJECTED_REQ, reason,
                null);
            case CmMessage.SidrReq req -> new CmMessage.SidrRep(req.tid(), req.requestId(),
                reason == RejectReason.INVALID_SERVICE_ID.code() ? SidrStatus.UNSUPPORTED : SidrStatus.REJECT, 0,
                req.serviceId(), 0, null);
            default -> null;
        };
        if (answer != null)
        {
            engine.sendMad(CmWire.encode(answer), peer);
        }
    }

    // ---- what rdma_cm derives from the messages ----

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
     * @return the address vector to a peer over RoCE: its GID (IPv4-mapped for IPv4).
     */
    static AhAttr pathTo(final Gid peer)
    {
        return new AhAttr(new GlobalRoute(peer, 0, 0, Ipv4.DEFAULT_HOP_LIMIT, 0), 0, 0, 0, 0, 1);
    }

    static UdParam udParam(final byte[] privateData, final Gid peer, final int qpn, final int qkey)
    {
        return new UdParam(privateData, pathTo(peer), qpn, qkey);
    }

    /**
     * @return the attributes that take a connection's QP to RTR, as {@code rdma_init_qp_attr} gives them.
     */
    static QpAttr rtrAttr(final QpType type, final SoftEngine engine, final Gid peer, final int remoteQpn,
        final int receivePsn, final int pathMtu, final int responderResources)
    {
        final int mtu = Math.min(pathMtu, engine.activeMtu().value());
        final QpAttr rtr = new QpAttr().state(QpState.RTR).pathMtu(Mtu.fromValue(mtu)).destQpNum(remoteQpn)
            .rqPsn(receivePsn).ahAttr(pathTo(peer)).minRnrTimer(0);
        if (type == QpType.RC)
        {
            rtr.maxDestRdAtomic(responderResources);
        }
        return rtr;
    }

    /**
     * @return the attributes that take a connection's QP to RTS.
     */
    static QpAttr rtsAttr(final QpType type, final int sendPsn, final int initiatorDepth, final int retryCount,
        final int rnrRetryCount)
    {
        final QpAttr rts = new QpAttr().state(QpState.RTS).sqPsn(sendPsn);
        if (type == QpType.RC)
        {
            rts.timeout(LOCAL_ACK_TIMEOUT).retryCnt(retryCount).rnrRetry(rnrRetryCount).maxRdAtomic(initiatorDepth);
        }
        return rts;
    }

    /**
     * Take a QP to RTR and RTS for a connection, as librdmacm does in rdma_connect's reply
     * handling and in rdma_accept.
     */
    static void connectQp(final QueuePair qp, final SoftEngine engine, final Gid peer, final int remoteQpn,
        final int receivePsn, final int sendPsn, final int pathMtu, final int responderResources,
        final int initiatorDepth, final int retryCount, final int rnrRetryCount)
    {
        try
        {
            qp.modify(rtrAttr(qp.type(), engine, peer, remoteQpn, receivePsn, pathMtu, responderResources));
            qp.modify(rtsAttr(qp.type(), sendPsn, initiatorDepth, retryCount, rnrRetryCount));
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

    /** A MAD as a device handed it over. */
    private record ReceivedMad(SoftEngine engine, byte[] bytes, Gid source)
    {
    }

    /**
     * On the way out of the process: every id with a connection says goodbye (DREQ, or REJ to a request), as the
     * kernel's rdma_cm does for a process that exits or is killed by a signal the JVM catches (SIGTERM, SIGINT),
     * so its peers see DISCONNECTED at once instead of finding out through their own timeouts. What SIGKILL
     * ends, nobody can answer for: see the README's liveness notes.
     *
     * @return ids seen to.
     */
    int farewell()
    {
        int seen = 0;
        for (final SoftCmId id : idsNow())
        {
            try
            {
                seen += id.farewell(FAREWELL_WAIT_MS) ? 1 : 0;
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                break;
            }
            catch (final RuntimeException ex)
            {
                // an id torn down under us: the others still get theirs
            }
        }
        return seen;
    }

    /** @return the ids with a connection now, a copy to walk while the tables change. */
    private java.util.Set<SoftCmId> idsNow()
    {
        return java.util.Set.copyOf(byCommId.values());
    }
}
