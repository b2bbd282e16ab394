package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.RejectReason;
import io.rdma4j.cm.UdParam;
import io.rdma4j.soft.cm.mad.SidrStatus;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;

/**
 * One id's side of a connection (or of a SIDR exchange): the IB CM protocol as a state machine.
 * Its {@link Phase} is the only record of where the connection stands; each phase has a function
 * that takes a message and returns the next phase (or null: the message does not belong here), in
 * the shape of rxe's completer. Before a message reaches the machine, {@link #admits} checks that
 * it is for this connection: from the peer's address, naming the peer's communication id, our QPN
 * or the request's transaction id where it carries them, so that a third party who saw our
 * communication id (it is in every MAD) cannot end the connection.
 * <p>
 * Guarded by the owning id's event-channel lock; timers come back through it.
 */
final class CmConnection
{
    /** Where the exchange stands, from this side. */
    enum Phase
    {
        /** Active: REQ sent, waiting for REP or REJ. */
        REQ_SENT,
        /** Active: the peer MRAed the REQ; a further MRA does not extend the wait. */
        MRA_REQ_RCVD,
        /** Active, QP made by the application: REP received, CONNECT_RESPONSE reported, waiting for establish. */
        REP_RCVD,
        /** Passive: REQ received and reported, waiting for accept or reject. */
        REQ_RCVD,
        /** Passive: REP sent, waiting for RTU. */
        REP_SENT,
        /** Passive: the peer MRAed the REP; a further MRA does not extend the wait. */
        MRA_REP_RCVD,
        /** Both: connected. */
        ESTABLISHED,
        /** DREQ sent, waiting for DREP. */
        DREQ_SENT,
        /** DREQ received and answered; in timewait. */
        DREQ_RCVD,
        /** Our DREQ answered (or given up on); in timewait. */
        TIMEWAIT,
        /** Active UD: SIDR_REQ sent, waiting for SIDR_REP. */
        SIDR_REQ_SENT,
        /** Passive UD: SIDR_REQ received and reported, waiting for accept or reject. */
        SIDR_REQ_RCVD,
        /** Rejected, disconnected or failed: nothing more happens. */
        CLOSED;

        /** @return true while the connection's ids are reserved after it ended. */
        boolean inTimewait()
        {
            return this == DREQ_RCVD || this == TIMEWAIT;
        }
    }

    /**
     * The longest wait an MRA obtains: service timeout 24 (4.096 us x 2^24, about 69 s), what the kernel's CM
     * asks for in its own MRAs. The field goes to 31 (2.4 hours); the kernel bounds a CM MAD's whole life (70 s,
     * plus what MRAs add, at most 5 minutes), and so do we: with this cap and the 15 retries that follow, a
     * request or reply is given up at most about 2.3 minutes after it first went, whoever asks for more.
     */
    static final int MAX_MRA_SERVICE_TIMEOUT = CmWire.MRA_SERVICE_TIMEOUT;
    /**
     * MRAs one connection may receive, honoured or not: a peer that is slow to answer MRAs each copy of our
     * request it receives, and we send at most 1 + 15. More than that is no peer asking for time but someone
     * holding the connection open; the attempt fails then, counted as {@link CmCounter#MRA_LIMIT}.
     */
    static final int MAX_MRAS = 1 + ConnectionManager.MAX_CM_RETRIES;

    final ConnectionManager cm;
    final SoftCmId owner;
    final SoftEngine engine;
    final int localCommId;
    final Gid peer;
    final boolean active;
    Phase phase;
    long tid;
    int remoteCommId;
    int remoteQpn;
    /** Our QP's number as the peer knows it: what its DREQ must name. */
    int localQpn;
    int startingPsn;
    /** The request: the one this passive side answers, or the REQ this active side sent. */
    CmMessage request;
    /** Active: the REP received, whose parameters initQpAttr gives. */
    CmMessage.Rep reply;
    /** The last MAD sent that a lost reply makes us send again, and how often it may be. */
    byte[] pending;
    int retriesLeft;
    CmTimer retry;
    CmTimer timewait;
    /** The listener whose backlog this passive connection holds until accepted or rejected. */
    CmListener listener;
    /** Set by a phase function that drops a message for a reason of its own. */
    private CmCounter verdict;
    /** The MRAs this connection received, honoured or not. */
    private int mrasReceived;

    CmConnection(final ConnectionManager cm, final SoftCmId owner, final SoftEngine engine, final int localCommId,
        final Gid peer, final boolean active, final Phase phase)
    {
        this.cm = cm;
        this.owner = owner;
        this.engine = engine;
        this.localCommId = localCommId;
        this.peer = peer;
        this.active = active;
        this.phase = phase;
    }

    /**
     * Lock held: a message for this connection.
     *
     * @return how it ended: HANDLED, or the drop's cause.
     */
    CmCounter onMessage(final CmMessage message, final Gid source)
    {
        final CmCounter refused = admits(message, source);
        if (refused != null)
        {
            return refused;
        }
        verdict = CmCounter.HANDLED;
        final Phase next = switch (phase)
        {
            case REQ_SENT -> reqSent(message, false);
            case MRA_REQ_RCVD -> reqSent(message, true);
            case REP_RCVD -> repReceived(message);
            case REP_SENT -> repSent(message, false);
            case MRA_REP_RCVD -> repSent(message, true);
            case ESTABLISHED -> established(message);
            case DREQ_SENT -> dreqSent(message);
            case DREQ_RCVD, TIMEWAIT, CLOSED -> ended(message);
            case SIDR_REQ_SENT -> sidrReqSent(message);
            case REQ_RCVD, SIDR_REQ_RCVD -> null;
        };
        if (next == null)
        {
            return CmCounter.DROP_UNEXPECTED;
        }
        phase = next;
        releaseBacklogUnlessPending();
        return verdict;
    }

    /**
     * @return null if the message may be for this connection, else why it is not.
     */
    private CmCounter admits(final CmMessage message, final Gid source)
    {
        if (!source.equals(peer))
        {
            return CmCounter.DROP_WRONG_SOURCE;
        }
        final boolean peerKnown = remoteCommId != 0;
        return switch (message)
        {
            // a REP answers our REQ under its transaction id; once known, it names the peer's id
            case CmMessage.Rep rep -> rep.tid() != tid ? CmCounter.DROP_WRONG_TID :
                peerKnown && rep.localCommId() != remoteCommId ? CmCounter.DROP_WRONG_REMOTE_COMM_ID : null;
            // before the REP, a REJ or MRA of our REQ is known by the REQ's transaction id only
            case CmMessage.Rej rej -> peerKnown ? peerId(rej.localCommId()) :
                rej.tid() != tid ? CmCounter.DROP_WRONG_TID : null;
            case CmMessage.Mra mra -> peerKnown ? peerId(mra.localCommId()) :
                mra.tid() != tid ? CmCounter.DROP_WRONG_TID : null;
            case CmMessage.Rtu rtu -> peerId(rtu.localCommId());
            case CmMessage.Drep drep -> peerId(drep.localCommId());
            case CmMessage.Dreq dreq -> dreq.remoteQpn() != localQpn ? CmCounter.DROP_WRONG_QPN :
                peerId(dreq.localCommId());
            case CmMessage.SidrRep rep -> rep.tid() != tid ? CmCounter.DROP_WRONG_TID : null;
            default -> CmCounter.DROP_UNEXPECTED;
        };
    }

    private CmCounter peerId(final int claimed)
    {
        return claimed != remoteCommId || remoteCommId == 0 ? CmCounter.DROP_WRONG_REMOTE_COMM_ID : null;
    }

    // ---- one function per phase: the message in, the next phase out ----

    private Phase reqSent(final CmMessage message, final boolean mraHonoured)
    {
        return switch (message)
        {
            case CmMessage.Rep rep -> onRep(rep);
            case CmMessage.Rej rej -> onRej(rej);
            case CmMessage.Mra mra when mra.messageMraed() == CmWire.MRAED_REQ -> onMra(mra, mraHonoured,
                Phase.MRA_REQ_RCVD);
            default -> null;
        };
    }

    private Phase repReceived(final CmMessage message)
    {
        return switch (message)
        {
            // the passive side repeats its REP until our RTU: establish sends it
            case CmMessage.Rep rep -> phase;
            case CmMessage.Rej rej -> onRej(rej);
            case CmMessage.Dreq dreq -> onDreq(dreq);
            default -> null;
        };
    }

    private Phase repSent(final CmMessage message, final boolean mraHonoured)
    {
        return switch (message)
        {
            case CmMessage.Rtu rtu -> onRtu();
            case CmMessage.Rej rej -> onRej(rej);
            case CmMessage.Dreq dreq -> onDreq(dreq);
            case CmMessage.Mra mra when mra.messageMraed() == CmWire.MRAED_REP -> onMra(mra, mraHonoured,
                Phase.MRA_REP_RCVD);
            default -> null;
        };
    }

    private Phase established(final CmMessage message)
    {
        return switch (message)
        {
            case CmMessage.Rep rep when active ->
            {
                // our RTU was lost: the passive side sends its REP again
                send(new CmMessage.Rtu(tid, localCommId, remoteCommId));
                yield phase;
            }
            case CmMessage.Rtu rtu -> phase;
            case CmMessage.Dreq dreq -> onDreq(dreq);
            default -> null;
        };
    }

    private Phase dreqSent(final CmMessage message)
    {
        return switch (message)
        {
            case CmMessage.Drep drep ->
            {
                cancelRetry();
                post(CmEventType.DISCONNECTED, 0, null, null);
                yield enterTimewait(Phase.TIMEWAIT);
            }
            // both sides disconnect at once. As the kernel's CM does, the peer's DREQ ends the exchange: our DREQ
            // goes no more and DISCONNECTED is reported now, for Linux never answers a DREQ that crossed its own
            case CmMessage.Dreq dreq -> onDreq(dreq);
            default -> null;
        };
    }

    private Phase ended(final CmMessage message)
    {
        return switch (message)
        {
            case CmMessage.Dreq dreq ->
            {
                // a repeat whose DREP was lost: answer again
                send(drep(dreq));
                yield phase;
            }
            // a peer that does answer a crossed DREQ: its DREP comes after the exchange ended
            case CmMessage.Drep drep when phase.inTimewait() -> phase;
            default -> null;
        };
    }

    private Phase sidrReqSent(final CmMessage message)
    {
        if (!(message instanceof CmMessage.SidrRep rep))
        {
            return null;
        }
        cancelRetry();
        if (rep.status() == SidrStatus.SUCCESS)
        {
            post(CmEventType.ESTABLISHED, 0, null,
                ConnectionManager.udParam(rep.privateData(), peer, rep.qpn(), rep.qkey()));
            return Phase.ESTABLISHED;
        }
        post(CmEventType.UNREACHABLE, rep.status(), null,
            ConnectionManager.udParam(rep.privateData(), peer, 0, 0));
        return Phase.CLOSED;
    }

    // ---- transitions shared by several phases ----

    private Phase onRep(final CmMessage.Rep rep)
    {
        cancelRetry();
        remoteCommId = rep.localCommId();
        remoteQpn = rep.qpn();
        reply = rep;
        final QueuePair qp = owner.qpLocked();
        if (qp == null)
        {
            // the application made its QP itself: it moves it (initQpAttr) and calls establish
            post(CmEventType.CONNECT_RESPONSE, 0, ConnectionManager.connParam(rep), null);
            return Phase.REP_RCVD;
        }
        try
        {
            final CmMessage.Req req = (CmMessage.Req)request;
            ConnectionManager.connectQp(qp, engine, peer, rep.qpn(), startingPsn, rep.startingPsn(),
                req.pathMtu(), Math.min(req.responderResources(), rep.initiatorDepth()),
                Math.min(req.initiatorDepth(), rep.responderResources()), req.retryCount(), rep.rnrRetryCount());
        }
        catch (final RdmaException ex)
        {
            // the kernel rejects the REP it cannot use and reports CONNECT_ERROR
            send(new CmMessage.Rej(tid, localCommId, remoteCommId, CmWire.REJECTED_REP, RejectReason.NO_QP.code(),
                null));
            ConnectionManager.errorQp(qp);
            post(CmEventType.CONNECT_ERROR, -ex.errnoCode(), null, null);
            return Phase.CLOSED;
        }
        send(new CmMessage.Rtu(tid, localCommId, remoteCommId));
        post(CmEventType.ESTABLISHED, 0, ConnectionManager.connParam(rep), null);
        return Phase.ESTABLISHED;
    }

    /**
     * The peer acknowledged our message and asked for time: wait its service time, at most
     * {@link #MAX_MRA_SERVICE_TIMEOUT}'s (plus the usual response timeout), before sending again, without
     * spending a retry, once per message, as the kernel does; a repeated MRA is counted and changes nothing,
     * and one past {@link #MAX_MRAS} ends the attempt as its last retry's timeout would.
     */
    private Phase onMra(final CmMessage.Mra mra, final boolean alreadyHonoured, final Phase next)
    {
        if (++mrasReceived > MAX_MRAS)
        {
            verdict = CmCounter.MRA_LIMIT;
            cancelRetry();
            giveUp(ConnectionManager.ETIMEDOUT);
            return phase;
        }
        if (alreadyHonoured)
        {
            verdict = CmCounter.DROP_REPEATED_MRA;
            return phase;
        }
        if (pending != null)
        {
            cancelTimer();
            scheduleRetry((4096L << Math.min(mra.serviceTimeout(), MAX_MRA_SERVICE_TIMEOUT)) +
                ConnectionManager.RESPONSE_TIMEOUT_NANOS);
        }
        return next;
    }

    private Phase onRtu()
    {
        cancelRetry();
        post(CmEventType.ESTABLISHED, 0, null, null);
        return Phase.ESTABLISHED;
    }

    private Phase onRej(final CmMessage.Rej rej)
    {
        cancelRetry();
        ConnectionManager.errorQp(owner.qpLocked());
        post(CmEventType.REJECTED, rej.reason(), ConnectionManager.connParam(rej), null);
        return Phase.CLOSED;
    }

    private Phase onDreq(final CmMessage.Dreq dreq)
    {
        cancelRetry();
        ConnectionManager.errorQp(owner.qpLocked());
        send(drep(dreq));
        post(CmEventType.DISCONNECTED, 0, null, null);
        return enterTimewait(Phase.DREQ_RCVD);
    }

    private CmMessage.Drep drep(final CmMessage.Dreq dreq)
    {
        return new CmMessage.Drep(dreq.tid(), localCommId, remoteCommId);
    }

    /**
     * The connection is over; its ids stay reserved for the timewait, which ends with TIMEWAIT_EXIT
     * (the kernel's IB_CM_TIMEWAIT_EXIT) and frees the local id.
     */
    private Phase enterTimewait(final Phase next)
    {
        timewait = cm.schedule(locked(this::exitTimewait), ConnectionManager.TIMEWAIT_NANOS);
        return next;
    }

    /** Lock held: the timewait ran out. */
    private void exitTimewait()
    {
        timewait = null;
        if (!phase.inTimewait())
        {
            return;
        }
        phase = Phase.CLOSED;
        cm.forget(this);
        if (!owner.destroyingLocked())
        {
            post(CmEventType.TIMEWAIT_EXIT, 0, null, null);
        }
    }

    // ---- what the application's calls do to the machine ----

    /** Lock held: send our request (REQ, REP, DREQ, SIDR_REQ) and keep sending it until answered. */
    void sendWithRetries(final byte[] mad)
    {
        cancelRetry();
        pending = mad;
        retriesLeft = ConnectionManager.MAX_CM_RETRIES;
        engine.sendMad(mad, peer);
        scheduleRetry(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
    }

    /** Lock held: the state rdma_cm names its id by while this connection exists. */
    CmState idState()
    {
        return switch (phase)
        {
            case DREQ_SENT, DREQ_RCVD, TIMEWAIT -> CmState.DISCONNECT;
            default -> CmState.CONNECT;
        };
    }

    /** Lock held: whether disconnect applies, from the REQ sent or REP sent on to a disconnect under way. */
    boolean connected()
    {
        return switch (phase)
        {
            case REQ_SENT, MRA_REQ_RCVD, REP_RCVD, REP_SENT, MRA_REP_RCVD, ESTABLISHED, DREQ_SENT, DREQ_RCVD -> true;
            default -> false;
        };
    }

    /**
     * Lock held: the application disconnects (its QP is in ERR already). A disconnect under way
     * only confirms; a connection still connecting is abandoned (the kernel turns it into a REJ of
     * our own request); an established one sends a DREQ.
     */
    void disconnectByApplication()
    {
        if (phase == Phase.DREQ_RCVD || phase == Phase.DREQ_SENT)
        {
            return;
        }
        if (phase == Phase.REQ_SENT || phase == Phase.MRA_REQ_RCVD || phase == Phase.REP_RCVD)
        {
            abandon();
            return;
        }
        disconnect();
    }

    /** Lock held: the application disconnects an established connection. */
    void disconnect()
    {
        phase = Phase.DREQ_SENT;
        releaseBacklog();
        sendWithRetries(CmWire.encode(new CmMessage.Dreq(cm.newTid(localCommId), localCommId, remoteCommId,
            remoteQpn)));
    }

    /** Lock held: the active side that made its own QP established the connection: send the RTU. */
    void establish()
    {
        send(new CmMessage.Rtu(tid, localCommId, remoteCommId));
        phase = Phase.ESTABLISHED;
    }

    /**
     * Lock held: the id is destroyed mid-connection. As the kernel does when a cm_id goes, a
     * connected peer gets a DREQ and an unanswered request a rejection, each sent once.
     */
    void abandon()
    {
        cancelRetry();
        if (timewait != null)
        {
            cm.cancel(timewait);
            timewait = null;
        }
        final CmMessage farewell = switch (phase)
        {
            case ESTABLISHED, REP_SENT, MRA_REP_RCVD -> new CmMessage.Dreq(cm.newTid(localCommId), localCommId,
                remoteCommId, remoteQpn);
            case REQ_SENT, MRA_REQ_RCVD, REP_RCVD -> new CmMessage.Rej(tid, localCommId, remoteCommId,
                CmWire.REJECTED_OTHER, RejectReason.TIMEOUT.code(), null);
            case REQ_RCVD -> new CmMessage.Rej(tid, localCommId, remoteCommId, CmWire.REJECTED_REQ,
                RejectReason.CONSUMER_DEFINED.code(), null);
            case SIDR_REQ_RCVD -> new CmMessage.SidrRep(tid, remoteCommId, SidrStatus.REJECT, 0,
                ((CmMessage.SidrReq)request).serviceId(), 0, null);
            default -> null;
        };
        if (farewell != null)
        {
            ConnectionManager.errorQp(owner.qpLocked());
            send(farewell);
        }
        phase = Phase.CLOSED;
        releaseBacklog();
        cm.forget(this);
    }

    /**
     * Lock held: a REQ or SIDR_REQ arrived again (its answer was lost, or is late).
     *
     * @return true if it repeats this passive connection's request; the answer goes again, or an
     * MRA if the application has not answered yet.
     */
    boolean answersDuplicate(final CmMessage repeated, final Gid source, final int peerCommId)
    {
        if (active || !source.equals(peer) || peerCommId != remoteCommId || request == null ||
            request.getClass() != repeated.getClass())
        {
            return false;
        }
        if (pending != null)
        {
            engine.sendMad(pending, peer);
        }
        else if (phase == Phase.REQ_RCVD)
        {
            // the application has not answered yet: ask the peer for time, as the kernel's MRA does
            send(new CmMessage.Mra(tid, localCommId, remoteCommId, CmWire.MRAED_REQ, CmWire.MRA_SERVICE_TIMEOUT));
        }
        return true;
    }

    /**
     * Lock held: a passive connection that was established or has ended (rejected, timed out, disconnected)
     * no longer counts against its listener's backlog; one still waiting for its answer or its RTU does.
     */
    private void releaseBacklogUnlessPending()
    {
        if (phase != Phase.REQ_RCVD && phase != Phase.SIDR_REQ_RCVD && phase != Phase.REP_SENT &&
            phase != Phase.MRA_REP_RCVD)
        {
            releaseBacklog();
        }
    }

    /** Lock held: a passive connection no longer counts against the backlog. */
    void releaseBacklog()
    {
        final CmListener held = listener;
        listener = null;
        if (held != null)
        {
            held.releaseBacklogPlace();
        }
    }

    void cancelRetry()
    {
        pending = null;
        cancelTimer();
    }

    private void cancelTimer()
    {
        if (retry != null)
        {
            cm.cancel(retry);
            retry = null;
        }
    }

    private void scheduleRetry(final long delayNanos)
    {
        final byte[] mad = pending;
        retry = cm.schedule(locked(() -> onRetryTimer(mad)), delayNanos);
    }

    /** Lock held: no answer in time. */
    private void onRetryTimer(final byte[] mad)
    {
        if (pending != mad)
        {
            return;
        }
        if (retriesLeft-- > 0)
        {
            engine.sendMad(mad, peer);
            scheduleRetry(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
            return;
        }
        pending = null;
        retry = null;
        giveUp(ConnectionManager.ETIMEDOUT);
    }

    /**
     * Lock held: the peer's host answered with ICMP port unreachable. A request still being sent to it ends as
     * its last retry's timeout would, with ECONNREFUSED for a status; nothing else changes (the ICMP error may
     * answer an older datagram, or another id's).
     */
    void peerUnreachable(final Gid unreachable)
    {
        if (pending == null || !peer.equals(unreachable))
        {
            return;
        }
        cancelRetry();
        giveUp(ConnectionManager.ECONNREFUSED);
    }

    /** @return the phase's ordinal, or -1 while none is set; read without the lock by the stat thread's key. */
    int phaseKey()
    {
        final Phase p = phase;
        return p == null ? -1 : p.ordinal();
    }

    /**
     * Lock held: an established connection whose peer's process the device knows to be gone (a same-host peer
     * killed without closing) is over: DISCONNECTED, as if its DREQ had come, with ECONNRESET for a status.
     */
    void checkPeerAlive()
    {
        if (phase != Phase.ESTABLISHED || !engine.peerProcessGone(peer))
        {
            return;
        }
        cancelRetry();
        ConnectionManager.errorQp(owner.qpLocked());
        post(CmEventType.DISCONNECTED, ConnectionManager.ECONNRESET, null, null);
        phase = enterTimewait(Phase.DREQ_RCVD);
    }

    /** Lock held: our request is answered no more. */
    private void giveUp(final int status)
    {
        if (phase == Phase.DREQ_SENT)
        {
            post(CmEventType.DISCONNECTED, status, null, null);
            phase = enterTimewait(Phase.TIMEWAIT);
            return;
        }
        phase = Phase.CLOSED;
        releaseBacklog();
        ConnectionManager.errorQp(owner.qpLocked());
        post(CmEventType.UNREACHABLE, status, null, null);
    }

    private void send(final CmMessage message)
    {
        engine.sendMad(CmWire.encode(message), peer);
    }

    @Override
    public String toString()
    {
        return "connection " + Integer.toHexString(localCommId) + " (" + phase + ")";
    }

    /** Lock held: queue an event of the owner id. */
    private void post(final CmEventType type, final int status, final ConnParam param, final UdParam ud)
    {
        ConnectionManager.post(owner, type, status, param, ud, null);
    }

    /** @return the task wrapped so that it runs under the channel's lock, as the timers must. */
    private Runnable locked(final Runnable task)
    {
        return () ->
        {
            owner.channel.lock.lock();
            try
            {
                task.run();
            }
            finally
            {
                owner.channel.lock.unlock();
            }
        };
    }
}
