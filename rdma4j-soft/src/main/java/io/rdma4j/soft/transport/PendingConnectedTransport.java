package io.rdma4j.soft.transport;

import io.rdma4j.soft.SoftCounter;
import io.rdma4j.soft.SoftQp;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;

/**
 * RC and UC before their transport exists: the QP goes through its states, but work posted to
 * it completes with LOC_QP_OP_ERR and packets for it are dropped.
 */
final class PendingConnectedTransport implements QpTransport
{
    private final SoftQp qp;

    PendingConnectedTransport(final SoftQp qp)
    {
        this.qp = qp;
    }

    @Override
    public void kick(final long nowNs)
    {
        final SendQueue sq = qp.sendQueue();
        for (SendWqe wqe = sq.peekTail(); wqe != null; wqe = sq.peekTail())
        {
            qp.softSendCq().complete(wqe.wrId, WcStatus.LOC_QP_OP_ERR, WcOpcode.forSend(wqe.opcode), 0, 0,
                qp.qpNum(), 0, 0, false);
            sq.advanceTail();
        }
    }

    @Override
    public void onPacket(final PacketInfo packet, final DatagramInfo datagram, final long nowNs)
    {
        qp.count(SoftCounter.DROP_WRONG_TRANSPORT);
    }

    @Override
    public long onTimer(final long nowNs)
    {
        return Long.MAX_VALUE;
    }

    @Override
    public void flush()
    {
        final SendQueue sq = qp.sendQueue();
        for (SendWqe wqe = sq.peekTail(); wqe != null; wqe = sq.peekTail())
        {
            qp.softSendCq().complete(wqe.wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.forSend(wqe.opcode), 0, 0,
                qp.qpNum(), 0, 0, false);
            sq.advanceTail();
        }
    }

    @Override
    public void reset()
    {
        qp.sendQueue().clear();
    }
}
