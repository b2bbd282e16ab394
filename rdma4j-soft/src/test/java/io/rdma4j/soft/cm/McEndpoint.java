package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmId;
import io.rdma4j.cm.UdParam;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * A UD QP made through a connection-manager id (or, with {@code ownQp}, by the application in
 * the id's device), with a buffer whose slot i serves receive i and a last slot for sends.
 */
final class McEndpoint implements AutoCloseable
{
    static final int SLOT = 512;
    static final int SLOTS = 16;

    final CmId id;
    final CompletionQueue cq;
    final QueuePair qp;
    final ProtectionDomain pd;
    final MemoryRegion mr;
    private final boolean viaId;
    private final MemorySegment buffer = Arena.ofAuto().allocate((long)SLOT * SLOTS, 64);
    private final List<AddressHandle> ahs = new ArrayList<>();
    private int nextSlot;

    McEndpoint(final CmId id, final boolean viaId)
    {
        this.id = id;
        this.viaId = viaId;
        cq = id.verbs().createCq(64, null, 0);
        final QpInitAttr init = QpInitAttr.of(QpType.UD, cq, new QpCap(8, SLOTS - 1, 1, 1, 0));
        if (viaId)
        {
            qp = id.createQp(null, init);
            pd = qp.pd();
        }
        else
        {
            pd = id.verbs().allocPd();
            qp = pd.createQp(init);
            qp.modify(new io.rdma4j.verbs.QpAttr().state(io.rdma4j.verbs.QpState.INIT).pkeyIndex(0).portNum(1)
                .qkey(io.rdma4j.cm.RdmaCm.UDP_QKEY));
            qp.modify(new io.rdma4j.verbs.QpAttr().state(io.rdma4j.verbs.QpState.RTR));
            qp.modify(new io.rdma4j.verbs.QpAttr().state(io.rdma4j.verbs.QpState.RTS).sqPsn(0));
        }
        mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
    }

    void postRecvs(final int count)
    {
        final RecvWr recv = new RecvWr();
        for (int i = 0; i < count; i++)
        {
            final int slot = nextSlot++ % (SLOTS - 1);
            qp.postRecv(recv.wrId(slot).sge(mr, (long)slot * SLOT, SLOT));
        }
    }

    void send(final UdParam group, final String text)
    {
        final AddressHandle ah = pd.createAh(group.ahAttr());
        ahs.add(ah);
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        final long offset = (long)(SLOTS - 1) * SLOT;
        MemorySegment.copy(bytes, 0, buffer, ValueLayout.JAVA_BYTE, offset, bytes.length);
        qp.postSend(new SendWr().wrId(1000).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(mr, offset, bytes.length).ud(ah, group.qpNum(), group.qkey()));
    }

    /**
     * @return the texts received within the time, at most count; send completions are skipped.
     */
    List<String> receive(final int count, final long timeoutMs)
    {
        final List<String> texts = new ArrayList<>();
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (texts.size() < count && System.nanoTime() < deadline)
        {
            if (pollInto(texts, count - texts.size()) == 0)
            {
                Thread.onSpinWait();
            }
        }
        return texts;
    }

    /**
     * @return the texts whose completions are in the CQ now, taken with one poll.
     */
    List<String> receivedSoFar()
    {
        final List<String> texts = new ArrayList<>();
        pollInto(texts, SLOTS);
        return texts;
    }

    private int pollInto(final List<String> texts, final int max)
    {
        final WorkCompletion[] wcs = WorkCompletion.array(8);
        final int n = cq.poll(wcs, Math.min(8, max));
        for (int i = 0; i < n; i++)
        {
            if (wcs[i].wrId() == 1000)
            {
                continue;
            }
            final int slot = (int)wcs[i].wrId();
            final byte[] bytes = new byte[wcs[i].byteLen() - 40];
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, (long)slot * SLOT + 40, bytes, 0, bytes.length);
            texts.add(new String(bytes, StandardCharsets.UTF_8));
        }
        return n;
    }

    @Override
    public void close()
    {
        if (viaId)
        {
            id.destroyQp();
        }
        else
        {
            qp.close();
        }
        for (final AddressHandle ah : ahs)
        {
            ah.close();
        }
        mr.close();
        cq.close();
        if (!viaId)
        {
            pd.close();
        }
    }
}
