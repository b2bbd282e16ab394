package io.rdma4j.soft.transport;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.AsyncEventType;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.WcOpcode;

/**
 * The RC and UC transport of a QP: a {@link Requester}, a {@link Responder} and (RC) a
 * {@link Completer}, as rxe divides the work. Requests go to the responder, ACKs and responses to
 * the completer; a packet of the other connected transport, or of UD, is dropped and counted.
 * <p>
 * Threads: the requester and the completer share the send queue under the QP's send lock; the
 * responder runs only on the progress thread, and learns of RESET and ERR through flags it reads
 * there.
 */
final class ConnectedTransport implements QpTransport
{
    private final TransportQp qp;
    private final boolean uc;
    private final Requester requester;
    private final Completer completer;
    private final Responder responder;
    private final Keepalive keepalive;
    private final CompletionWriter completion = new CompletionWriter();
    private QpState lastState = QpState.RESET;

    ConnectedTransport(final TransportQp qp, final boolean uc)
    {
        this.qp = qp;
        this.uc = uc;
        this.requester = new Requester(qp, uc);
        this.completer = new Completer(qp, requester);
        this.requester.completer(completer);
        this.responder = new Responder(qp, uc);
        // UC's is never started: UC has no ACK to probe with
        this.keepalive = new Keepalive(qp, requester);
    }

    @Override
    public void kick()
    {
        // the requester arms the retransmit timer from this time
        requester.kick(qp.device().nanoTime());
    }

    @Override
    public void onPacket(final PacketInfo packet, final DatagramInfo datagram)
    {
        // the receive path checked the transport bit and the QP's state, once
        if (packet.has(OpcodeMask.REQUEST))
        {
            keepalive.heard();
            responder.onPacket(packet);
        }
        else if (packet.has(OpcodeMask.ACK))
        {
            qp.qpCounters().incrementOwned(SoftCounter.RCVD_PKTS);
            keepalive.heard();
            if (!keepalive.answers(packet))
            {
                // the completer reads the clock when a response moves a timer; the responder keeps none
                completer.onPacket(packet);
            }
        }
        else
        {
            qp.count(SoftCounter.DROP_WRONG_TRANSPORT);
        }
    }

    @Override
    public long onTimer(final long nowNs)
    {
        final long responderNext = responder.onTimer(nowNs);
        return uc ? responderNext :
            Math.min(responderNext, Math.min(completer.onTimer(nowNs), keepalive.onTimer(nowNs)));
    }

    @Override
    public void flush()
    {
        completer.stop();
        keepalive.stop();
        final SendQueue sq = qp.sendQueue();
        for (SendWqe wqe = sq.peekTail(); wqe != null; wqe = sq.peekTail())
        {
            if (wqe.state == SendWqe.STATE_ERROR && wqe.errorStatus != null)
            {
                // the WQE that failed locally reports why; the ones after it are flushed
                completion.begin(wqe.wrId, WcOpcode.forSend(wqe.opcode)).status(wqe.errorStatus).qpNum(qp.qpNum())
                    .writeTo(qp.sendCompletions());
            }
            else
            {
                qp.sendCompletions().flushSend(wqe.wrId, WcOpcode.forSend(wqe.opcode), qp.qpNum());
            }
            sq.advanceTail();
        }
        if (qp.srqPool() != null && lastState != QpState.ERR)
        {
            // the responder will take no more receives from the SRQ
            qp.device().postAsyncEvent(new AsyncEvent(AsyncEventType.QP_LAST_WQE_REACHED, qp, null, null, 0));
        }
        lastState = QpState.ERR;
        // a receive the responder holds completes on the progress thread
        qp.device().wakeup();
    }

    @Override
    public void reset()
    {
        completer.stop();
        keepalive.stop();
        responder.requestReset();
        lastState = QpState.RESET;
    }

    @Override
    public void attributesChanged()
    {
        final QpState state = qp.state();
        if (state == QpState.RTS && lastState != QpState.RTS && lastState != QpState.SQD)
        {
            requester.start(qp.sqPsn());
            completer.start(qp.sqPsn());
            if (!uc)
            {
                keepalive.start();
            }
        }
        lastState = state;
    }
}
