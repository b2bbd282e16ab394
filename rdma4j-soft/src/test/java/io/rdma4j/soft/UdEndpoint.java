package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpCreateFlag;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
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
import java.util.EnumSet;
import java.util.List;

/**
 * A UD QP in RTS with a registered buffer: slot i of the buffer serves receive i.
 */
final class UdEndpoint
{
    static final int QKEY = 0x01234567;
    static final int SLOT = 2048;
    static final int SLOTS = 64;

    final Context context;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final MemorySegment buffer;
    final MemoryRegion mr;
    private final RecvWr recv = new RecvWr();
    private final SendWr send = new SendWr();
    private int nextSlot;

    UdEndpoint(final Context context)
    {
        this(context, context.allocPd(), QKEY);
    }

    /**
     * @param flags create flags for the QP.
     */
    UdEndpoint(final Context context, final QpCreateFlag... flags)
    {
        this(context, context.allocPd(), QKEY, flags);
    }

    UdEndpoint(final Context context, final ProtectionDomain pd, final int qkey, final QpCreateFlag... flags)
    {
        this.context = context;
        this.pd = pd;
        this.cq = context.createCq(256, null, 0);
        this.qp = udQp(pd, cq, new QpCap(64, SLOTS, 1, 1, 64), qkey, flags);
        buffer = Arena.ofAuto().allocate((long)SLOT * SLOTS, 64);
        mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
    }

    /**
     * A UD QP brought to RTS on port 1 with the Q_Key.
     */
    static QueuePair udQp(
        final ProtectionDomain pd, final CompletionQueue cq, final QpCap cap, final int qkey,
        final QpCreateFlag... flags)
    {
        final QueuePair qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, cap).withCreateFlags(flags));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(qkey));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        return qp;
    }

    Gid gid()
    {
        return context.queryGid(1, 0);
    }

    void postRecvs(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final int slot = nextSlot++ % SLOTS;
            qp.postRecv(recv.wrId(slot).sge(mr, (long)slot * SLOT, SLOT));
        }
    }

    void postRecv(final long wrId, final int length)
    {
        final int slot = nextSlot++ % SLOTS;
        qp.postRecv(recv.wrId(slot + wrId * 1000).sge(mr, (long)slot * SLOT, length));
    }

    AddressHandle ahTo(final Gid dgid)
    {
        return pd.createAh(AhAttr.global(dgid, 64));
    }

    /**
     * Send a text to a QPN through an AH, from the last slot of the buffer, signaled.
     */
    void send(final AddressHandle ah, final int qpn, final int qkey, final String text, final long wrId)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        final long offset = (long)(SLOTS - 4) * SLOT;
        MemorySegment.copy(bytes, 0, buffer, ValueLayout.JAVA_BYTE, offset, bytes.length);
        send.wrId(wrId).opcode(WrOpcode.SEND_WITH_IMM).immData(qp.qpNum()).sendFlags(SendFlags.SIGNALED)
            .sge(mr, offset, bytes.length).ud(ah, qpn, qkey);
        qp.postSend(send);
    }

    String text(final WorkCompletion wc)
    {
        final int slot = (int)(wc.wrId() % 1000);
        return text((long)slot * SLOT + 40, wc.byteLen() - 40);
    }

    /**
     * @return the buffer's bytes at {@code offset} as UTF-8 text.
     */
    String text(final long offset, final int length)
    {
        final byte[] bytes = new byte[length];
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset, bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    List<WorkCompletion> poll(final int count, final long timeoutMs)
    {
        return TestVerbs.pollFor(cq, count, timeoutMs);
    }

    long counter(final SoftCounter counter)
    {
        return SoftEngine.of(context).counters().get(counter);
    }

    void joinFabric(final Gid group)
    {
        SoftEngine.of(context).link().joinGroup(group.toInet());
    }
}
