package io.rdma4j.soft.transport;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WrOpcode;

/**
 * The RC/UC requester: turns send WQEs into request packets, segmented by the path MTU into
 * FIRST/MIDDLE/LAST/ONLY, one PSN per packet (an RDMA READ request takes one PSN per response
 * packet it asks for). Guarded by the QP's send lock, shared with the {@link Completer}.
 * <p>
 * Flow control (RC): at most {@link #WINDOW} PSNs beyond the oldest unacknowledged one; at most
 * max_rd_atomic READs and atomics outstanding (DESIGN: max_rd_atomic 0 is treated as 1, so that a
 * READ posted on such a QP is not stalled forever); a FENCE waits until every earlier READ and
 * atomic completed. AckReq is set on the last packet of each message and whenever
 * {@link #PACKETS_PER_ACK} packets went without one.
 * <p>
 * Go-back-N ({@link #rewind}) restarts at the oldest unacknowledged PSN with the same
 * segmentation, so every packet keeps its PSN; a partly acknowledged SEND or WRITE resumes at its
 * first unacknowledged packet, a partly received READ asks for the rest only. DESIGN: a packet the
 * link refuses is treated as lost on the wire (the retransmit timer recovers it) rather than rolled
 * back; a packet whose payload's arena closed under the send is a local protection error (LOC_PROT_ERR),
 * on RC at once, as its retransmission would find. UC: a WQE completes once its last packet left.
 */
final class Requester
{
    /** Unacknowledged PSNs allowed in flight (rxe's RXE_MAX_UNACKED_PSNS). */
    static final int WINDOW = 128;
    /** Packets without AckReq before one is forced (rxe's RXE_MAX_PKT_PER_ACK). */
    static final int PACKETS_PER_ACK = 64;

    private final TransportQp qp;
    private final boolean uc;
    private final PacketOut out;
    private final CompletionWriter completion = new CompletionWriter();
    private Completer completer;
    private int psn;
    private int nextNewPsn;
    private int packetsSinceAckReq;
    private int readAtomicInFlight;

    Requester(final TransportQp qp, final boolean uc)
    {
        this.qp = qp;
        this.uc = uc;
        this.out = new PacketOut(qp, false);
    }

    void completer(final Completer completer)
    {
        this.completer = completer;
    }

    /**
     * The QP entered RTS: start at its sq_psn.
     *
     * @param sqPsn the first PSN.
     */
    void start(final int sqPsn)
    {
        psn = sqPsn & Psn.MASK;
        nextNewPsn = psn;
        packetsSinceAckReq = 0;
        readAtomicInFlight = 0;
    }

    /**
     * @return the next PSN the requester will send.
     */
    int psn()
    {
        return psn;
    }

    /**
     * Send what the window, the credits and fences allow.
     *
     * @param nowNs the clock.
     */
    void kick(final long nowNs)
    {
        final QpState state = qp.state();
        if (state != QpState.RTS && state != QpState.SQD)
        {
            return;
        }
        if (!uc && completer.isRnrWaiting())
        {
            return;
        }
        final SendQueue sq = qp.sendQueue();
        for (SendWqe wqe = sq.peekNext(); wqe != null; wqe = sq.peekNext())
        {
            if (wqe.state == SendWqe.STATE_POSTED)
            {
                if (!admit(wqe) || !startWqe(wqe))
                {
                    return;
                }
            }
            if (!uc && Psn.diff(psn, completer.psn()) >= WINDOW)
            {
                return;
            }
            final boolean last = sendPacket(wqe, nowNs);
            if (qp.state() == QpState.ERR)
            {
                return;
            }
            if (last)
            {
                wqe.state = SendWqe.STATE_PENDING;
                sq.advanceNext();
                if (uc)
                {
                    completeUc(wqe);
                }
            }
        }
    }

    private boolean admit(final SendWqe wqe)
    {
        if (uc)
        {
            return true;
        }
        if ((wqe.sendFlags & SendFlags.FENCE) != 0 && readAtomicInFlight > 0)
        {
            return false;
        }
        if (RequestOpcodes.isReadOrAtomic(wqe.opcode) && readAtomicInFlight >= Math.max(1, qp.maxRdAtomic()))
        {
            return false;
        }
        return Psn.diff(psn, completer.psn()) < WINDOW;
    }

    /**
     * Assign PSNs on first start; on a retry, find where to resume.
     *
     * @return false if the WQE failed locally (the QP is now in ERR).
     */
    private boolean startWqe(final SendWqe wqe)
    {
        if (RequestOpcodes.of(uc, wqe.opcode, RequestOpcodes.ONLY) == null)
        {
            // LOCAL_INV and BIND_MW: the software device has no memory windows or fast-register MRs
            fail(wqe, WcStatus.LOC_QP_OP_ERR);
            return false;
        }
        final int mtu = qp.pathMtu().bytes();
        if (!wqe.started)
        {
            wqe.started = true;
            wqe.firstPsn = psn;
            final int packets = RequestOpcodes.isAtomic(wqe.opcode) ? 1 : Psn.packets(wqe.totalLength, mtu);
            wqe.lastPsn = Psn.add(psn, packets - 1);
            wqe.offset = 0;
        }
        else if (wqe.opcode != WrOpcode.RDMA_READ)
        {
            // a READ keeps the bytes already received (the completer's offset); others skip acked packets
            final int acked = Math.max(0, Psn.diff(psn, wqe.firstPsn));
            wqe.offset = RequestOpcodes.isAtomic(wqe.opcode) ? 0 : Math.min(wqe.totalLength, (long)acked * mtu);
        }
        if (RequestOpcodes.isReadOrAtomic(wqe.opcode))
        {
            readAtomicInFlight++;
        }
        wqe.state = SendWqe.STATE_PROCESSING;
        return true;
    }

    /**
     * Build and send the next packet of a WQE.
     *
     * @return true if it was the WQE's last packet.
     */
    private boolean sendPacket(final SendWqe wqe, final long nowNs)
    {
        final int packetPsn = psn;
        final boolean last;
        final int payload;
        if (wqe.opcode == WrOpcode.RDMA_READ)
        {
            final long remaining = wqe.totalLength - wqe.offset;
            out.begin(Opcode.RC_RDMA_READ_REQUEST, packetPsn)
                .va(wqe.remoteAddr + wqe.offset).rkey(wqe.rkey).dmaLength(remaining).ackReq(true);
            payload = 0;
            last = true;
            psn = Psn.add(psn, Psn.packets(remaining, qp.pathMtu().bytes()));
            packetsSinceAckReq = 0;
        }
        else if (RequestOpcodes.isAtomic(wqe.opcode))
        {
            final PacketInfo spec = out.begin(RequestOpcodes.of(uc, wqe.opcode, RequestOpcodes.ONLY), packetPsn)
                .va(wqe.remoteAddr).rkey(wqe.rkey).ackReq(true);
            if (wqe.opcode == WrOpcode.ATOMIC_CMP_AND_SWP)
            {
                spec.swapAdd(wqe.swap).compare(wqe.compareAdd);
            }
            else
            {
                spec.swapAdd(wqe.compareAdd);
            }
            payload = 0;
            last = true;
            psn = Psn.add(psn, 1);
            packetsSinceAckReq = 0;
        }
        else
        {
            final int mtu = qp.pathMtu().bytes();
            final long remaining = wqe.totalLength - wqe.offset;
            final boolean first = wqe.offset == 0;
            last = remaining <= mtu;
            payload = (int)Math.min(mtu, remaining);
            final int position = first ? (last ? RequestOpcodes.ONLY : RequestOpcodes.FIRST) :
                (last ? RequestOpcodes.LAST : RequestOpcodes.MIDDLE);
            final Opcode opcode = RequestOpcodes.of(uc, wqe.opcode, position);
            final PacketInfo spec = out.begin(opcode, packetPsn);
            if (opcode.has(OpcodeMask.RETH))
            {
                spec.va(wqe.remoteAddr).rkey(wqe.rkey).dmaLength(wqe.totalLength);
            }
            if (opcode.has(OpcodeMask.IMMDT))
            {
                spec.immediate(wqe.immData);
            }
            if (opcode.has(OpcodeMask.IETH))
            {
                spec.invalidateRkey(wqe.invalidateRkey);
            }
            spec.se(last && (wqe.sendFlags & SendFlags.SOLICITED) != 0 &&
                (opcode.has(OpcodeMask.SEND) || opcode.has(OpcodeMask.IMMDT)));
            final boolean ackReq = !uc && (last || ++packetsSinceAckReq >= PACKETS_PER_ACK);
            if (ackReq)
            {
                packetsSinceAckReq = 0;
                spec.ackReq(true);
            }
            if (!out.stagePayload(wqe, qp.device().mrTable(), qp.pd(), wqe.offset, payload))
            {
                fail(wqe, WcStatus.LOC_PROT_ERR);
                return false;
            }
            wqe.offset += payload;
            psn = Psn.add(psn, 1);
        }
        if (Psn.diff(packetPsn, nextNewPsn) < 0)
        {
            qp.count(SoftCounter.RETRANSMITTED_PKTS);
        }
        if (Psn.diff(psn, nextNewPsn) > 0)
        {
            nextNewPsn = psn;
        }
        wqe.packetsSent++;
        qp.count(SoftCounter.RDMA_SENDS);
        if (out.send(payload) == PacketOut.PAYLOAD_GONE)
        {
            // the application closed the region's arena under the send: a local protection fault, as a bad
            // lkey is. UC has no retransmission that would find it, so without this its WQE completed as sent
            fail(wqe, WcStatus.LOC_PROT_ERR);
            return false;
        }
        if (!uc)
        {
            completer.armRetransmit(nowNs);
        }
        return last;
    }

    /**
     * Send a keepalive probe: a zero-length RDMA WRITE ONLY at the PSN before the next one, with AckReq. The peer
     * has taken that PSN already, so the probe is a duplicate, which a responder acknowledges again and does not
     * execute (C9-105; rxe's duplicate_request does so for any SEND or WRITE): no receive taken, no completion,
     * no rkey or access check, the PSNs unchanged. Call only when nothing is outstanding, so that the next PSN is
     * the peer's expected one.
     *
     * @param probePsn {@link #probePsn()}.
     */
    void sendProbe(final int probePsn)
    {
        out.begin(Opcode.RC_RDMA_WRITE_ONLY, probePsn).va(0).rkey(0).dmaLength(0).ackReq(true);
        qp.count(SoftCounter.KEEPALIVE_PROBES);
        out.send(0);
    }

    /**
     * @return the PSN of a keepalive probe: the one before the next, which the peer took last.
     */
    int probePsn()
    {
        return Psn.add(psn, -1);
    }

    /**
     * @return true while a PSN is unacknowledged, a WQE waits to be sent, or an RNR wait runs: the retransmit
     *         timer watches the peer then, and keepalive does not.
     */
    boolean busy()
    {
        return psn != completer.psn() || qp.sendQueue().peekNext() != null || completer.isRnrWaiting() ||
            qp.sendQueue().peekTail() != null;
    }

    private void completeUc(final SendWqe wqe)
    {
        if (wqe.signaled)
        {
            completion.begin(wqe.wrId, WcOpcode.forSend(wqe.opcode)).byteLen((int)wqe.totalLength).qpNum(qp.qpNum())
                .writeTo(qp.sendCompletions());
        }
        qp.sendQueue().advanceTail();
    }

    /**
     * A WQE completed: give back its read/atomic credit.
     *
     * @param wqe the WQE.
     */
    void onCompleted(final SendWqe wqe)
    {
        if (RequestOpcodes.isReadOrAtomic(wqe.opcode) && readAtomicInFlight > 0)
        {
            readAtomicInFlight--;
        }
    }

    /**
     * Go back to the oldest unacknowledged PSN: every outstanding WQE is sent again from there.
     *
     * @param fromPsn the completer's PSN.
     */
    void rewind(final int fromPsn)
    {
        final SendQueue sq = qp.sendQueue();
        sq.rewindNextToTail();
        for (int i = 0; ; i++)
        {
            final SendWqe wqe = sq.outstanding(i);
            if (wqe == null || !wqe.started)
            {
                break;
            }
            if (wqe.state != SendWqe.STATE_ERROR)
            {
                wqe.state = SendWqe.STATE_POSTED;
            }
        }
        psn = fromPsn;
        readAtomicInFlight = 0;
        packetsSinceAckReq = 0;
    }

    /**
     * Fail a WQE locally: it completes with {@code status} when the QP, now in ERR, flushes.
     */
    private void fail(final SendWqe wqe, final WcStatus status)
    {
        wqe.state = SendWqe.STATE_ERROR;
        wqe.errorStatus = status;
        qp.enterError();
    }
}
