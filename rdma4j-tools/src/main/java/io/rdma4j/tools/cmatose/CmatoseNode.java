package io.rdma4j.tools.cmatose;

import io.rdma4j.tools.common.CmNode;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.util.EnumSet;

/**
 * One cmatose connection: a CM id with its PD, a send CQ and a receive CQ, an RC QP that signals
 * every send, and one message buffer that, as in cmatose, every receive and every send uses. Both
 * CQs report to one completion channel so that waiting for completions sleeps instead of spinning
 * (cmatose spins).
 */
final class CmatoseNode extends CmNode
{
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private long receivedBytes;
    private int received;

    CmatoseNode(final int index)
    {
        super(index, "cmatose");
    }


    /**
     * cmatose's init_node: PD, the two CQs, the QP, and the message buffer when there are messages.
     *
     * @param depth CQ entries and queue depth: the message count, at least 1.
     * @param size  the message size, or 0 for no buffer.
     */
    void init(final int depth, final int size)
    {
        pd = id().verbs().allocPd();
        channel = id().verbs().createCompChannel();
        sendCq = id().verbs().createCq(depth, channel, 0);
        recvCq = id().verbs().createCq(depth, channel, 0);
        id().createQp(pd, new QpInitAttr(QpType.RC, sendCq, recvCq, null, new QpCap(depth, depth, 1, 1, 0), true));
        if (size > 0)
        {
            arena = Arena.ofShared();
            mr = pd.regMr(arena.allocate(size, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
        }
    }

    /**
     * Post {@code count} receives of {@code size} bytes, all into the one buffer.
     */
    void postRecvs(final int count, final int size)
    {
        final RecvWr wr = new RecvWr().wrId(index()).sge(mr, 0, size);
        for (int i = 0; i < count; i++)
        {
            id().qp().postRecv(wr);
        }
    }

    /**
     * Post {@code count} SENDs of {@code size} bytes from the one buffer; the QP signals them all.
     */
    void postSends(final int count, final int size)
    {
        final SendWr wr = new SendWr().wrId(index()).opcode(WrOpcode.SEND).sendFlags(0).sge(mr, 0, size);
        for (int i = 0; i < count; i++)
        {
            id().qp().postSend(wr);
        }
    }

    /**
     * @param receive true for the receive CQ, false for the send CQ.
     * @return that CQ.
     */
    CompletionQueue cq(final boolean receive)
    {
        return receive ? recvCq : sendCq;
    }

    /**
     * Count a successful receive.
     */
    void received(final WorkCompletion wc)
    {
        received++;
        receivedBytes += wc.byteLen();
    }

    int receivedCount()
    {
        return received;
    }

    long receivedBytes()
    {
        return receivedBytes;
    }

    @Override
    protected void releaseCqs()
    {
        closeQuietly(sendCq);
        closeQuietly(recvCq);
        sendCq = null;
        recvCq = null;
    }
}
