package io.rdma4j.soft.stat;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.util.EnumSet;

/**
 * A UD QP that sends datagrams to its own device's QPN 0x123456 (which no QP has), so that the device counts
 * sent packets: the traffic the stat tests watch in the file.
 */
final class SelfSender
{
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final SendWr send;
    private final WorkCompletion[] wcs = WorkCompletion.array(1);

    SelfSender(final Context context) throws RdmaException
    {
        final ProtectionDomain pd = context.allocPd();
        cq = context.createCq(16, null, 0);
        qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(8, 8)));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(1));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        send = new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(pd.regMr(Arena.ofAuto().allocate(8), EnumSet.of(AccessFlag.LOCAL_WRITE)), 0, 8)
            .ud(pd.createAh(AhAttr.global(context.queryGid(1, 0), 64)), 0x123456, 1);
    }

    /**
     * Send one datagram at a time and wait for each one's completion.
     *
     * @param count how many.
     * @throws RdmaException if a post fails.
     */
    void send(final int count) throws RdmaException
    {
        for (int i = 0; i < count; i++)
        {
            qp.postSend(send);
            while (cq.poll(wcs) == 0)
            {
                Thread.onSpinWait();
            }
        }
    }
}
