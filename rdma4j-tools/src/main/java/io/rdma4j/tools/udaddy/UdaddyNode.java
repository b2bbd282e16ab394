package io.rdma4j.tools.udaddy;

import io.rdma4j.tools.common.CmNode;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

/**
 * One udaddy path: a CM id with its PD, CQ, UD QP, one message buffer with room for the GRH, and
 * once known, the address handle, QPN and Q_Key of the other end. As in udaddy every receive and
 * every send uses the same buffer. The CQ reports to a completion channel so that waiting for
 * completions sleeps instead of spinning (udaddy spins).
 */
final class UdaddyNode extends CmNode
{
    private CompletionQueue cq;
    private MemorySegment mem;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;

    UdaddyNode(final int index)
    {
        super(index, "udaddy");
    }


    boolean hasAh()
    {
        return ah != null;
    }

    QueuePair qp()
    {
        return id().qp();
    }

    Context verbs()
    {
        return id().verbs();
    }

    ProtectionDomain pd()
    {
        return pd;
    }

    /**
     * The PD, as udaddy's init_node makes it first.
     */
    void allocPd()
    {
        pd = id().verbs().allocPd();
    }

    /**
     * @param cqe entries.
     */
    void createCq(final int cqe)
    {
        channel = id().verbs().createCompChannel();
        cq = id().verbs().createCq(cqe, channel, 0);
    }

    /**
     * @param depth send and receive queue depth.
     */
    void createQp(final int depth)
    {
        id().createQp(pd, QpInitAttr.of(QpType.UD, cq, new QpCap(depth, depth, 1, 1, 0)));
    }

    /**
     * @param bytes message size plus the GRH.
     */
    void createMessage(final int bytes)
    {
        arena = Arena.ofShared();
        mem = arena.allocate(bytes, 64);
        mr = pd.regMr(mem, EnumSet.of(AccessFlag.LOCAL_WRITE));
    }

    /**
     * Post {@code count} receives, all into the one buffer.
     */
    void postRecvs(final int count, final int bytes)
    {
        final RecvWr wr = new RecvWr().wrId(index()).sge(mr, 0, bytes);
        for (int i = 0; i < count; i++)
        {
            id().qp().postRecv(wr);
        }
    }

    /**
     * Post {@code count} SEND_WITH_IMM of {@code size} bytes to the other end, each carrying the
     * own QPN as immediate data.
     *
     * @param sendFlags SIGNALED or 0.
     */
    void postSends(final int count, final int size, final int sendFlags)
    {
        final SendWr wr = new SendWr().wrId(index()).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(sendFlags)
            .immData(id().qp().qpNum()).ud(ah, remoteQpn, remoteQkey).sge(mr, 0, size);
        for (int i = 0; i < count; i++)
        {
            id().qp().postSend(wr);
        }
    }

    /**
     * Take the other end from an address vector, QPN and Q_Key.
     */
    void remote(final AhAttr attr, final int qpn, final int qkey)
    {
        ah = pd.createAh(attr);
        remoteQpn = qpn;
        remoteQkey = qkey;
    }

    int remoteQpn()
    {
        return remoteQpn;
    }

    int remoteQkey()
    {
        return remoteQkey;
    }

    /**
     * @return the buffer's GRH slot.
     */
    MemorySegment grh()
    {
        return mem.asSlice(0, ReplyAddress.GRH_BYTES);
    }

    /**
     * Arm the CQ so a completion after this call wakes {@link #await}.
     */
    void arm()
    {
        cq.requestNotify(false);
    }

    /**
     * @return completions polled into {@code wcs}.
     */
    int poll(final WorkCompletion[] wcs)
    {
        return cq.poll(wcs);
    }

    @Override
    protected void releaseOwn()
    {
        closeQuietly(ah);
        ah = null;
    }

    @Override
    protected void releaseCqs()
    {
        closeQuietly(cq);
        cq = null;
    }
}
