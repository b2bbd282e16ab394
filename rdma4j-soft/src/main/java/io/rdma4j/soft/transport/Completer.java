package io.rdma4j.soft.transport;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.wire.AethFlyweight;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The RC completer: takes ACKs, NAKs, READ responses and ATOMIC ACKs, completes send WQEs in
 * order, and runs the retransmit and RNR timers. It shares the send queue with the
 * {@link Requester} under the QP's send lock; each packet walks {@link CompState} from
 * {@code GET_WQE} to {@code DONE}, one state per check, one {@code ERROR} exit per status.
 * <p>
 * Retries: the retransmit timer is 4.096 µs × 2^timeout (timeout 0: no timer), armed while PSNs
 * are unacknowledged and pushed back on every progress. A timeout, a PSN sequence NAK or a gap in
 * READ responses sends the requester back to the oldest unacknowledged PSN (go-back-N); the NAK
 * and the gap rewind only once per PSN, the timer always. Each retry without progress uses one of
 * retry_cnt; progress restores it.
 * <p>
 * DESIGN (retry_cnt 7): as in rxe, not as in the IB spec, retry_cnt 7 means retry forever. rdma_cm
 * programs 7, and a Linux peer with that value never gives up, so neither do we; values 0..6 count
 * as the spec says and end in RETRY_EXC_ERR. rnr_retry 7 is infinite as the spec says.
 */
final class Completer
{
    /** The value of retry_cnt and rnr_retry that means "forever". */
    static final int INFINITE = 7;

    private static final ValueLayout.OfLong LONG_NATIVE = ValueLayout.JAVA_LONG_UNALIGNED;

    /** The states a response walks through. */
    enum CompState
    {
        GET_WQE, CHECK_PSN, CHECK_ACK, READ, ATOMIC, ACK, COMPLETE, IMPLICIT_COMPLETE, RNR, NAK, RETRY, ERROR,
        DROP, DONE
    }

    private final TransportQp qp;
    private final Requester requester;
    private final CompletionWriter completion = new CompletionWriter();
    private final MemorySegment atomicResult = MemorySegment.ofArray(new long[1]);
    private int psn;
    private int retryLeft;
    private int rnrLeft;
    private volatile long retransmitDeadline = Long.MAX_VALUE;
    private volatile long rnrDeadline = Long.MAX_VALUE;
    private boolean rnrWaiting;
    private int rewoundAt = -1;
    private WcStatus errorStatus;
    /** The clock for the response being handled, once {@link #responseNowRead}. */
    private long responseNowNs;
    private boolean responseNowRead;

    Completer(final TransportQp qp, final Requester requester)
    {
        this.qp = qp;
        this.requester = requester;
    }

    /**
     * The QP entered RTS.
     *
     * @param sqPsn its first PSN.
     */
    void start(final int sqPsn)
    {
        psn = sqPsn & Psn.MASK;
        resetRetries();
        retransmitDeadline = Long.MAX_VALUE;
        rnrDeadline = Long.MAX_VALUE;
        rnrWaiting = false;
        rewoundAt = -1;
    }

    /**
     * @return the oldest PSN not yet acknowledged.
     */
    int psn()
    {
        return psn;
    }

    /**
     * @return true while an RNR NAK's wait runs: the requester sends nothing.
     */
    boolean isRnrWaiting()
    {
        return rnrWaiting;
    }

    private void resetRetries()
    {
        retryLeft = qp.retryCnt();
        rnrLeft = qp.rnrRetry();
    }

    private long timeoutNs()
    {
        final int timeout = qp.timeout();
        return timeout == 0 ? Long.MAX_VALUE : 4096L << timeout;
    }

    /**
     * The requester sent a packet: arm the retransmit timer if it is not running.
     *
     * @param nowNs the clock.
     */
    void armRetransmit(final long nowNs)
    {
        if (retransmitDeadline == Long.MAX_VALUE && timeoutNs() != Long.MAX_VALUE)
        {
            retransmitDeadline = nowNs + timeoutNs();
            qp.device().timerArmed(retransmitDeadline);
        }
    }

    /**
     * The clock while a response is handled, read at its first use: a response that leaves nothing outstanding
     * and nothing to send, the ACK of a ping-pong, moves no timer and reads none.
     */
    private long responseNow()
    {
        if (!responseNowRead)
        {
            responseNowNs = qp.device().nanoTime();
            responseNowRead = true;
        }
        return responseNowNs;
    }

    private void progress()
    {
        resetRetries();
        rewoundAt = -1;
        retransmitDeadline = Psn.diff(requester.psn(), psn) > 0 && timeoutNs() != Long.MAX_VALUE ?
            responseNow() + timeoutNs() : Long.MAX_VALUE;
    }

    /**
     * Handle a response. Takes the send lock.
     *
     * @param packet the response.
     */
    void onPacket(final PacketInfo packet)
    {
        qp.sendLock().lock();
        try
        {
            final QpState state = qp.state();
            if (state != QpState.RTS && state != QpState.SQD && state != QpState.SQE)
            {
                qp.count(SoftCounter.DROP_QP_STATE);
                return;
            }
            responseNowRead = false;
            run(packet);
        }
        finally
        {
            qp.sendLock().unlock();
        }
    }

    private void run(final PacketInfo packet)
    {
        final SendQueue sq = qp.sendQueue();
        SendWqe wqe = null;
        CompState state = CompState.GET_WQE;
        while (true)
        {
            switch (state)
            {
                case GET_WQE ->
                {
                    wqe = sq.peekTail();
                    state = wqe == null || !wqe.started || wqe.state == SendWqe.STATE_POSTED ||
                        wqe.state == SendWqe.STATE_ERROR ? unexpected() : CompState.CHECK_PSN;
                }
                case CHECK_PSN -> state = checkPsn(packet, wqe);
                case CHECK_ACK -> state = checkAck(packet, wqe);
                case IMPLICIT_COMPLETE ->
                {
                    // a later PSN acknowledges this SEND/WRITE: responses arrive in order
                    psn = Psn.add(wqe.lastPsn, 1);
                    complete(wqe);
                    progress();
                    state = CompState.GET_WQE;
                }
                case READ -> state = read(packet, wqe);
                case ATOMIC -> state = atomic(packet, wqe);
                case ACK ->
                {
                    psn = Psn.add(packet.psn(), 1);
                    progress();
                    state = packet.psn() == wqe.lastPsn ? CompState.COMPLETE : CompState.DONE;
                }
                case COMPLETE ->
                {
                    complete(wqe);
                    state = CompState.DONE;
                }
                case RNR -> state = rnr(packet);
                case NAK -> state = nak(packet);
                case RETRY ->
                {
                    if (rewoundAt != psn)
                    {
                        retry(responseNow());
                    }
                    state = CompState.DONE;
                }
                case ERROR ->
                {
                    fail(wqe, errorStatus);
                    return;
                }
                case DROP ->
                {
                    return;
                }
                case DONE ->
                {
                    // the requester needs the time only to send: with nothing posted, the clock stays unread
                    if (qp.sendQueue().peekNext() != null)
                    {
                        requester.kick(responseNow());
                    }
                    return;
                }
            }
        }
    }

    private CompState checkPsn(final PacketInfo packet, final SendWqe wqe)
    {
        final int p = packet.psn();
        if (Psn.diff(p, requester.psn()) >= 0 && !(Psn.diff(p, requester.psn()) == 0 && isNak(packet)))
        {
            // answers a packet not (re)sent since the last go-back-N: stale
            return unexpected();
        }
        if (Psn.diff(p, wqe.lastPsn) > 0)
        {
            if (wqe.state != SendWqe.STATE_PENDING)
            {
                return unexpected();
            }
            return RequestOpcodes.isReadOrAtomic(wqe.opcode) ? CompState.RETRY : CompState.IMPLICIT_COMPLETE;
        }
        if (Psn.diff(p, psn) < 0)
        {
            return unexpected();
        }
        if (Psn.diff(p, psn) > 0 && packet.has(OpcodeMask.READ))
        {
            // a READ response is missing before this one
            return CompState.RETRY;
        }
        return CompState.CHECK_ACK;
    }

    /** A response no outstanding request expects: counted, then dropped. */
    private CompState unexpected()
    {
        qp.count(SoftCounter.DROP_UNEXPECTED_RESPONSE);
        return CompState.DROP;
    }

    private static boolean isNak(final PacketInfo packet)
    {
        return packet.has(OpcodeMask.AETH) && (packet.syndrome() & AethFlyweight.TYPE_MASK) != AethFlyweight.TYPE_ACK;
    }

    private CompState checkAck(final PacketInfo packet, final SendWqe wqe)
    {
        if (packet.has(OpcodeMask.READ))
        {
            if (wqe.opcode != WrOpcode.RDMA_READ)
            {
                errorStatus = WcStatus.FATAL_ERR;
                return CompState.ERROR;
            }
            return CompState.READ;
        }
        if (packet.has(OpcodeMask.ATOMIC))
        {
            if (!RequestOpcodes.isAtomic(wqe.opcode))
            {
                errorStatus = WcStatus.FATAL_ERR;
                return CompState.ERROR;
            }
            return CompState.ATOMIC;
        }
        final int type = packet.syndrome() & AethFlyweight.TYPE_MASK;
        if (type == AethFlyweight.TYPE_ACK)
        {
            return RequestOpcodes.isReadOrAtomic(wqe.opcode) ? CompState.DROP : CompState.ACK;
        }
        if (type == AethFlyweight.TYPE_RNR_NAK)
        {
            return CompState.RNR;
        }
        if (type == AethFlyweight.TYPE_NAK)
        {
            return CompState.NAK;
        }
        return CompState.DROP;
    }

    private CompState read(final PacketInfo packet, final SendWqe wqe)
    {
        final int length = packet.payloadLength();
        if (wqe.offset + length > wqe.totalLength)
        {
            errorStatus = WcStatus.BAD_RESP_ERR;
            return CompState.ERROR;
        }
        if (!MemoryAccess.scatterToSend(wqe, qp.device().mrTable(), qp.pd(), wqe.offset, packet.segment(),
            packet.payloadOffset(), length))
        {
            errorStatus = WcStatus.LOC_PROT_ERR;
            return CompState.ERROR;
        }
        wqe.offset += length;
        psn = Psn.add(packet.psn(), 1);
        progress();
        if (!packet.has(OpcodeMask.END))
        {
            return CompState.DONE;
        }
        if (wqe.offset != wqe.totalLength)
        {
            errorStatus = WcStatus.BAD_RESP_ERR;
            return CompState.ERROR;
        }
        return CompState.COMPLETE;
    }

    private CompState atomic(final PacketInfo packet, final SendWqe wqe)
    {
        // the original value is stored in host order, as a CPU reading the 8 bytes expects
        atomicResult.set(LONG_NATIVE, 0, packet.orig());
        if (!MemoryAccess.scatterToSend(wqe, qp.device().mrTable(), qp.pd(), 0, atomicResult, 0, Long.BYTES))
        {
            errorStatus = WcStatus.LOC_PROT_ERR;
            return CompState.ERROR;
        }
        psn = Psn.add(packet.psn(), 1);
        progress();
        return CompState.COMPLETE;
    }

    private CompState rnr(final PacketInfo packet)
    {
        qp.count(SoftCounter.RCVD_RNR_ERR);
        if (rnrWaiting)
        {
            return CompState.DROP;
        }
        psn = packet.psn();
        if (qp.rnrRetry() != INFINITE)
        {
            if (rnrLeft == 0)
            {
                qp.count(SoftCounter.RETRY_RNR_EXCEEDED_ERR);
                errorStatus = WcStatus.RNR_RETRY_EXC_ERR;
                return CompState.ERROR;
            }
            rnrLeft--;
        }
        rnrWaiting = true;
        retransmitDeadline = Long.MAX_VALUE;
        rnrDeadline = responseNow() + RnrTimeouts.nanos(packet.syndrome());
        qp.device().timerArmed(rnrDeadline);
        // stop sending: the requester resumes at this PSN when the RNR timer expires
        requester.rewind(psn);
        return CompState.DROP;
    }

    private CompState nak(final PacketInfo packet)
    {
        qp.count(SoftCounter.RCVD_NAKS);
        switch (packet.syndrome())
        {
            case AethFlyweight.NAK_PSN_SEQUENCE_ERROR ->
            {
                qp.count(SoftCounter.RCVD_SEQ_ERR);
                if (Psn.diff(packet.psn(), psn) > 0)
                {
                    // the NAK acknowledges every PSN before the one it names
                    psn = packet.psn();
                    progress();
                }
                return rnrWaiting ? CompState.DROP : CompState.RETRY;
            }
            case AethFlyweight.NAK_INVALID_REQUEST -> errorStatus = WcStatus.REM_INV_REQ_ERR;
            case AethFlyweight.NAK_REMOTE_ACCESS_ERROR -> errorStatus = WcStatus.REM_ACCESS_ERR;
            default -> errorStatus = WcStatus.REM_OP_ERR;
        }
        return CompState.ERROR;
    }

    /**
     * Go back N, using one retry unless retry_cnt is 7.
     *
     * @return false if retries were exhausted (the QP is now in ERR).
     */
    private boolean retry(final long nowNs)
    {
        if (qp.retryCnt() != INFINITE)
        {
            if (retryLeft == 0)
            {
                qp.count(SoftCounter.RETRY_EXCEEDED_ERR);
                fail(qp.sendQueue().peekTail(), WcStatus.RETRY_EXC_ERR);
                return false;
            }
            retryLeft--;
        }
        qp.count(SoftCounter.COMPLETER_RETRY_ERR);
        rewoundAt = psn;
        requester.rewind(psn);
        retransmitDeadline = timeoutNs() == Long.MAX_VALUE ? Long.MAX_VALUE : nowNs + timeoutNs();
        return true;
    }

    /**
     * Run the retransmit and RNR timers. Takes the send lock.
     *
     * @param nowNs the clock.
     * @return the next deadline.
     */
    long onTimer(final long nowNs)
    {
        if (retransmitDeadline > nowNs && rnrDeadline > nowNs)
        {
            return Math.min(retransmitDeadline, rnrDeadline);
        }
        qp.sendLock().lock();
        try
        {
            final QpState state = qp.state();
            if (state != QpState.RTS && state != QpState.SQD && state != QpState.SQE)
            {
                retransmitDeadline = Long.MAX_VALUE;
                rnrDeadline = Long.MAX_VALUE;
                return Long.MAX_VALUE;
            }
            if (rnrWaiting && rnrDeadline <= nowNs)
            {
                rnrWaiting = false;
                rnrDeadline = Long.MAX_VALUE;
                requester.rewind(psn);
                requester.kick(nowNs);
            }
            if (retransmitDeadline <= nowNs)
            {
                retransmitDeadline = Long.MAX_VALUE;
                final SendWqe tail = qp.sendQueue().peekTail();
                if (!rnrWaiting && tail != null && tail.started && Psn.diff(requester.psn(), psn) > 0 &&
                    retry(nowNs))
                {
                    requester.kick(nowNs);
                }
            }
            return Math.min(retransmitDeadline, rnrDeadline);
        }
        finally
        {
            qp.sendLock().unlock();
        }
    }

    private void complete(final SendWqe wqe)
    {
        requester.onCompleted(wqe);
        if (wqe.signaled)
        {
            completion.begin(wqe.wrId, WcOpcode.forSend(wqe.opcode)).byteLen((int)wqe.totalLength).qpNum(qp.qpNum())
                .writeTo(qp.sendCompletions());
        }
        wqe.state = SendWqe.STATE_DONE;
        qp.sendQueue().advanceTail();
    }

    private void fail(final SendWqe wqe, final WcStatus status)
    {
        if (wqe != null)
        {
            wqe.state = SendWqe.STATE_ERROR;
            wqe.errorStatus = status;
        }
        retransmitDeadline = Long.MAX_VALUE;
        rnrDeadline = Long.MAX_VALUE;
        rnrWaiting = false;
        qp.enterError();
    }

    /**
     * Forget timers (RESET or ERR).
     */
    void stop()
    {
        retransmitDeadline = Long.MAX_VALUE;
        rnrDeadline = Long.MAX_VALUE;
        rnrWaiting = false;
    }
}
