package io.rdma4j.rdmacore;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.SrqAttr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RC between two QPs on the first native device: SEND, RDMA WRITE with immediate, RDMA READ, both atomics,
 * a receive through an SRQ, and the remote access error of a bad rkey; and an RDMA WRITE between two UC QPs.
 */
class NativeRcTest
{
    private NativeContext context;
    private Arena arena;
    private NativePd pd;
    private NativeCq cqA;
    private NativeCq cqB;
    private NativeQp a;
    private NativeQp b;
    private MemorySegment bufA;
    private MemorySegment bufB;
    private MemoryRegion mrA;
    private MemoryRegion mrB;
    private int gidIndex;
    private Gid gid;

    @BeforeEach
    void connect()
    {
        context = Rxe.device().open();
        arena = Arena.ofShared();
        pd = context.allocPd();
        cqA = context.createCq(64, null, 0);
        cqB = context.createCq(64, null, 0);
        gidIndex = Rxe.ipv4GidIndex(context);
        gid = context.queryGid(1, gidIndex);
        bufA = arena.allocate(4096, 64);
        bufB = arena.allocate(4096, 64);
        final EnumSet<AccessFlag> all = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
        mrA = pd.regMr(bufA, all);
        mrB = pd.regMr(bufB, all);
    }

    private void connectPair(final NativeSrq srqForB)
    {
        a = pd.createQp(QpInitAttr.of(QpType.RC, cqA, new QpCap(16, 16, 2, 2, 0)));
        final QpInitAttr initB = QpInitAttr.of(QpType.RC, cqB, new QpCap(16, 16, 2, 2, 0));
        b = pd.createQp(srqForB == null ? initB : initB.withSrq(srqForB));
        Rxe.rcToRts(a, b.qpNum(), Rxe.route(gid, gidIndex));
        Rxe.rcToRts(b, a.qpNum(), Rxe.route(gid, gidIndex));
    }

    @AfterEach
    void close()
    {
        if (context == null)
        {
            // skipped: no device, nothing was opened
            return;
        }
        if (a != null)
        {
            a.close();
            b.close();
        }
        mrA.close();
        mrB.close();
        cqA.close();
        cqB.close();
        pd.close();
        context.close();
        arena.close();
    }

    @Test
    void sendGathersTwoSgesIntoTheReceiversBuffer()
    {
        connectPair(null);
        b.postRecv(new RecvWr().wrId(5).sge(mrB, 0, 1024));
        bufA.asSlice(0, 4).fill((byte)'a');
        bufA.asSlice(100, 4).fill((byte)'b');
        final SendWr send = new SendWr(2).wrId(6).sendFlags(SendFlags.SIGNALED);
        send.sgList().get(0).set(mrA, 0, 4);
        send.sgList().get(1).set(mrA, 100, 4);
        send.sgList().numSge(2);
        a.postSend(send);

        final WorkCompletion sent = Rxe.pollOne(cqA, new WorkCompletion());
        assertEquals(WcStatus.SUCCESS, sent.status(), sent.toString());
        assertEquals(WcOpcode.SEND, sent.opcode());
        assertEquals(6, sent.wrId());
        final WorkCompletion received = Rxe.pollOne(cqB, new WorkCompletion());
        assertEquals(WcStatus.SUCCESS, received.status(), received.toString());
        assertEquals(5, received.wrId());
        assertEquals(8, received.byteLen());
        assertEquals("aaaabbbb", new String(bufB.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void rdmaWriteWithImmediateConsumesAReceiveAndWritesRemoteMemory()
    {
        connectPair(null);
        b.postRecv(new RecvWr().wrId(11).sge(mrB, 2048, 16));
        bufA.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
        a.postSend(new SendWr().wrId(12).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(-2)
            .sendFlags(SendFlags.SIGNALED).sge(mrA, 0, 8).rdma(mrB.address() + 512, mrB.rkey()));

        assertEquals(WcStatus.SUCCESS, Rxe.pollOne(cqA, new WorkCompletion()).status());
        final WorkCompletion received = Rxe.pollOne(cqB, new WorkCompletion());
        assertEquals(WcStatus.SUCCESS, received.status(), received.toString());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, received.opcode());
        assertEquals(-2, received.immData());
        assertEquals(0x1122334455667788L, bufB.get(ValueLayout.JAVA_LONG, 512));
    }

    @Test
    void anAddressHandleLeftOnAReusedRequestDoesNotCorruptAnRdmaWrite()
    {
        connectPair(null);
        final NativeAh ah = pd.createAh(Rxe.route(gid, gidIndex));
        // wr.ud shares its place with wr.rdma: on an RC QP the handle must not be written over remote_addr
        final SendWr reused = new SendWr().ud(ah, 1, 2);
        bufA.set(ValueLayout.JAVA_LONG, 0, 0x600DL);
        a.postSend(reused.wrId(16).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED).sge(mrA, 0, 8)
            .rdma(mrB.address() + 8, mrB.rkey()));

        final WorkCompletion written = Rxe.pollOne(cqA, new WorkCompletion());
        assertEquals(WcStatus.SUCCESS, written.status(), written.toString());
        assertEquals(0x600DL, bufB.get(ValueLayout.JAVA_LONG, 8));
        ah.close();
    }

    @Test
    void rdmaReadFetchesRemoteMemory()
    {
        connectPair(null);
        bufB.set(ValueLayout.JAVA_LONG, 64, 0xCAFEBABEL);
        a.postSend(new SendWr().wrId(13).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .sge(mrA, 256, 8).rdma(mrB.address() + 64, mrB.rkey()));

        final WorkCompletion read = Rxe.pollOne(cqA, new WorkCompletion());
        assertEquals(WcStatus.SUCCESS, read.status(), read.toString());
        assertEquals(WcOpcode.RDMA_READ, read.opcode());
        assertEquals(0xCAFEBABEL, bufA.get(ValueLayout.JAVA_LONG, 256));
    }

    @Test
    void atomicsReturnTheOldValueAndChangeTheRemoteOne()
    {
        connectPair(null);
        bufB.set(ValueLayout.JAVA_LONG, 128, 40);
        a.postSend(new SendWr().wrId(14).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
            .sge(mrA, 512, 8).rdma(mrB.address() + 128, mrB.rkey()).atomic(2, 0));
        final WorkCompletion add = Rxe.pollOne(cqA, new WorkCompletion());
        assertEquals(WcStatus.SUCCESS, add.status(), add.toString());
        assertEquals(WcOpcode.FETCH_ADD, add.opcode());
        assertEquals(40, bufA.get(ValueLayout.JAVA_LONG, 512));
        assertEquals(42, bufB.get(ValueLayout.JAVA_LONG, 128));

        a.postSend(new SendWr().wrId(15).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
            .sge(mrA, 520, 8).rdma(mrB.address() + 128, mrB.rkey()).atomic(42, 99));
        final WorkCompletion swap = Rxe.pollOne(cqA, new WorkCompletion());
        assertEquals(WcStatus.SUCCESS, swap.status(), swap.toString());
        assertEquals(WcOpcode.COMP_SWAP, swap.opcode());
        assertEquals(42, bufA.get(ValueLayout.JAVA_LONG, 520));
        assertEquals(99, bufB.get(ValueLayout.JAVA_LONG, 128));
    }

    @Test
    void aReceiveComesFromTheSharedReceiveQueue()
    {
        final NativeSrq srq = pd.createSrq(new SrqAttr(16, 1, 0));
        connectPair(srq);
        srq.postRecv(new RecvWr().wrId(21).sge(mrB, 0, 64));
        assertTrue(srq.query().maxWr() >= 16, srq.query().toString());
        bufA.set(ValueLayout.JAVA_INT, 0, 0x5eed);
        a.postSend(new SendWr().wrId(22).sge(mrA, 0, 4).sendFlags(SendFlags.SIGNALED));

        assertEquals(WcStatus.SUCCESS, Rxe.pollOne(cqA, new WorkCompletion()).status());
        final WorkCompletion received = Rxe.pollOne(cqB, new WorkCompletion());
        assertEquals(WcStatus.SUCCESS, received.status(), received.toString());
        assertEquals(21, received.wrId());
        assertEquals(b.qpNum(), received.qpNum());
        assertEquals(0x5eed, bufB.get(ValueLayout.JAVA_INT, 0));
        b.close();
        a.close();
        a = null;
        srq.close();
    }

    @Test
    void ucCarriesAnRdmaWriteWithImmediate()
    {
        a = pd.createQp(QpInitAttr.of(QpType.UC, cqA, QpCap.of(16, 16)));
        b = pd.createQp(QpInitAttr.of(QpType.UC, cqB, QpCap.of(16, 16)));
        Rxe.ucToRts(a, b.qpNum(), Rxe.route(gid, gidIndex));
        Rxe.ucToRts(b, a.qpNum(), Rxe.route(gid, gidIndex));
        b.postRecv(new RecvWr().wrId(41).sge(mrB, 0, 16));
        bufA.set(ValueLayout.JAVA_LONG, 0, 0x0C0C0C0C0C0C0C0CL);
        a.postSend(new SendWr().wrId(42).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(77)
            .sendFlags(SendFlags.SIGNALED).sge(mrA, 0, 8).rdma(mrB.address() + 1024, mrB.rkey()));

        final WorkCompletion sent = Rxe.pollOne(cqA, new WorkCompletion());
        assertEquals(WcStatus.SUCCESS, sent.status(), sent.toString());
        assertEquals(WcOpcode.RDMA_WRITE, sent.opcode());
        final WorkCompletion received = Rxe.pollOne(cqB, new WorkCompletion());
        assertEquals(WcStatus.SUCCESS, received.status(), received.toString());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, received.opcode());
        assertEquals(77, received.immData());
        assertEquals(0x0C0C0C0C0C0C0C0CL, bufB.get(ValueLayout.JAVA_LONG, 1024));
    }

    @Test
    void aBadRkeyIsARemoteAccessErrorAndTheQpGoesToError()
    {
        connectPair(null);
        a.postSend(new SendWr().wrId(31).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .sge(mrA, 0, 8).rdma(mrB.address(), mrB.rkey() ^ 0x7F00));

        final WorkCompletion failed = Rxe.pollOne(cqA, new WorkCompletion());
        assertEquals(WcStatus.REM_ACCESS_ERR, failed.status(), failed.toString());
        assertEquals(31, failed.wrId());
        assertEquals(QpState.ERR, a.query().state());
    }
}
