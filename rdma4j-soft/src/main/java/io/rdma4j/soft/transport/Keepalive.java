package io.rdma4j.soft.transport;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.wire.AethFlyweight;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.QpState;

/**
 * An RC QP's keepalive, as a TCP socket's {@code SO_KEEPALIVE}: a QP in RTS that heard nothing from its peer for
 * the device's keepalive idle time, and has nothing outstanding, sends a probe ({@link Requester#sendProbe}, a
 * duplicate of its last PSN, which the peer re-ACKs). An unanswered probe is sent again every local ACK timeout
 * (the idle time where the QP has timeout 0), retry_cnt times (7, rxe's "for ever", counts as 7 here: a
 * keepalive that never gives up finds nothing), then the QP goes to ERR as on retries exceeded: its receives
 * flush, so a reader learns as a socket's does from ETIMEDOUT. Any packet from the peer, an answer or not,
 * proves it alive.
 * <p>
 * Cost on the data path: one volatile read per packet ({@link #heard}), a write once per idle period. The timer
 * runs under the QP's send lock, on the thread that runs timers; the answer takes the lock too.
 */
final class Keepalive
{
    /** Retries of an unanswered probe where retry_cnt says "for ever". */
    static final int RETRIES_FOR_EVER = 7;

    private final TransportQp qp;
    private final Requester requester;
    private volatile boolean heard;
    private volatile boolean probing;
    private volatile long deadline = Long.MAX_VALUE;
    private long idleNs;
    private int probePsn;
    private int retriesLeft;

    Keepalive(final TransportQp qp, final Requester requester)
    {
        this.qp = qp;
        this.requester = requester;
    }

    /**
     * The QP entered RTS (send lock held): start the idle period if the device keeps connections alive.
     */
    void start()
    {
        idleNs = qp.device().keepaliveIdleNs();
        probing = false;
        heard = false;
        if (idleNs > 0)
        {
            deadline = qp.device().nanoTime() + idleNs;
            qp.device().timerArmed(deadline);
        }
        else
        {
            deadline = Long.MAX_VALUE;
        }
    }

    /**
     * A packet from the peer arrived: it is alive.
     */
    void heard()
    {
        if (!heard)
        {
            heard = true;
        }
    }

    /**
     * @param packet an ACK or response from the peer.
     * @return true if it is the answer to the probe outstanding, which the completer must not see (it answers
     *         no request of its own and would count a drop).
     */
    boolean answers(final PacketInfo packet)
    {
        if (!probing || packet.psn() != probePsn || packet.has(OpcodeMask.READ) || packet.has(OpcodeMask.ATOMIC) ||
            (packet.syndrome() & AethFlyweight.TYPE_MASK) != AethFlyweight.TYPE_ACK)
        {
            return false;
        }
        qp.sendLock().lock();
        try
        {
            if (!probing)
            {
                return false;
            }
            probing = false;
            qp.count(SoftCounter.KEEPALIVE_ANSWERED);
            // the timer's next run finds the peer heard and starts the next idle period: no clock read here
            return true;
        }
        finally
        {
            qp.sendLock().unlock();
        }
    }

    /**
     * Run the keepalive timer.
     *
     * @param nowNs the clock.
     * @return the next deadline.
     */
    long onTimer(final long nowNs)
    {
        if (deadline > nowNs)
        {
            return deadline;
        }
        qp.sendLock().lock();
        try
        {
            if (qp.state() != QpState.RTS || idleNs <= 0)
            {
                probing = false;
                deadline = Long.MAX_VALUE;
                return deadline;
            }
            if (heard || requester.busy())
            {
                // the peer spoke, or the retransmit timer watches it: a new idle period
                heard = false;
                probing = false;
                deadline = nowNs + idleNs;
            }
            else if (!probing)
            {
                final int retryCnt = qp.retryCnt();
                retriesLeft = retryCnt == Completer.INFINITE ? RETRIES_FOR_EVER : retryCnt;
                probe(nowNs);
            }
            else if (retriesLeft > 0)
            {
                retriesLeft--;
                probe(nowNs);
            }
            else
            {
                probing = false;
                deadline = Long.MAX_VALUE;
                qp.count(SoftCounter.KEEPALIVE_TIMEOUTS);
                qp.count(SoftCounter.RETRY_EXCEEDED_ERR);
                qp.enterError();
            }
            return deadline;
        }
        finally
        {
            qp.sendLock().unlock();
        }
    }

    private void probe(final long nowNs)
    {
        // known before the probe leaves: its answer may be taken on another thread before this one returns
        probePsn = requester.probePsn();
        probing = true;
        requester.sendProbe(probePsn);
        final int timeout = qp.timeout();
        deadline = nowNs + (timeout == 0 ? idleNs : 4096L << timeout);
    }

    /**
     * RESET or ERR: no more probes.
     */
    void stop()
    {
        probing = false;
        deadline = Long.MAX_VALUE;
    }
}
