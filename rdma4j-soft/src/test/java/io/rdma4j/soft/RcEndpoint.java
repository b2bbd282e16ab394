package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.SharedReceiveQueue;
import io.rdma4j.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;

/**
 * One side of a connected (RC or UC) QP pair in a test: its own device, PD, CQs, a registered
 * buffer with every access right, and a QP.
 */
final class RcEndpoint
{
    static final int ALL_REMOTE = AccessFlag.REMOTE_WRITE.bit() | AccessFlag.REMOTE_READ.bit() |
        AccessFlag.REMOTE_ATOMIC.bit() | AccessFlag.LOCAL_WRITE.bit();

    final Context context;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QueuePair qp;
    final MemorySegment buffer;
    final MemoryRegion mr;

    RcEndpoint(final Context context, final QpType type, final long bufferSize, final int depth)
    {
        this(context, context.allocPd(), type, bufferSize, depth, null);
    }

    RcEndpoint(final Context context, final ProtectionDomain pd, final QpType type, final long bufferSize,
        final int depth, final SharedReceiveQueue srq)
    {
        this(context, pd, type, bufferSize, depth, srq, null);
    }

    /**
     * @param recvEvents the completion channel of the receive CQ, or null for none.
     */
    RcEndpoint(final Context context, final ProtectionDomain pd, final QpType type, final long bufferSize,
        final int depth, final SharedReceiveQueue srq, final CompletionChannel recvEvents)
    {
        this.context = context;
        this.pd = pd;
        this.sendCq = context.createCq(Math.max(64, depth * 2), null, 0);
        this.recvCq = context.createCq(Math.max(64, depth * 2), recvEvents, 0);
        QpInitAttr init = QpInitAttr.of(type, sendCq, new QpCap(depth, srq == null ? depth : 0, 4, 4, 64))
            .withRecvCq(recvCq);
        if (srq != null)
        {
            init = init.withSrq(srq);
        }
        this.qp = pd.createQp(init);
        this.buffer = Arena.ofAuto().allocate(bufferSize, 64);
        this.mr = pd.regMr(buffer, EnumSet.allOf(AccessFlag.class));
    }

    void toRts(final RcEndpoint peer, final Mtu mtu, final int timeout, final int retryCnt, final int rnrRetry,
        final int minRnrTimer, final int ownPsn, final int peerPsn)
    {
        toRtr(peer, mtu, minRnrTimer, peerPsn, ALL_REMOTE);
        final QpAttr rts = new QpAttr().state(QpState.RTS).sqPsn(ownPsn);
        if (qp.type() == QpType.RC)
        {
            rts.timeout(timeout).retryCnt(retryCnt).rnrRetry(rnrRetry).maxRdAtomic(16);
        }
        qp.modify(rts);
    }

    void toRtr(final RcEndpoint peer, final Mtu mtu, final int minRnrTimer, final int peerPsn, final int access)
    {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(
            qp.type() == QpType.UC ? access & ~(AccessFlag.REMOTE_READ.bit() | AccessFlag.REMOTE_ATOMIC.bit()) :
            access));
        final QpAttr rtr = new QpAttr().state(QpState.RTR).ahAttr(AhAttr.global(peer.context.queryGid(1, 0), 64))
            .pathMtu(mtu).destQpNum(peer.qp.qpNum()).rqPsn(peerPsn);
        if (qp.type() == QpType.RC)
        {
            rtr.maxDestRdAtomic(16).minRnrTimer(minRnrTimer);
        }
        qp.modify(rtr);
    }

    List<WorkCompletion> pollSend(final int count, final long timeoutMs)
    {
        return TestVerbs.pollFor(sendCq, count, timeoutMs);
    }

    List<WorkCompletion> pollRecv(final int count, final long timeoutMs)
    {
        return TestVerbs.pollFor(recvCq, count, timeoutMs);
    }

    SoftEngine engine()
    {
        return SoftEngine.of(context);
    }

    long counter(final SoftCounter counter)
    {
        return engine().counters().get(counter);
    }
}
