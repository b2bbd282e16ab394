package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory the device cannot reach from its own threads is refused when registered, and memory that
 * goes away after registration fails the work request that touches it with an error completion
 * instead of making it vanish.
 */
@Timeout(60)
class RegisteredMemoryTest
{
    @Test
    void shouldRefuseMemoryOfAConfinedArenaSayingWhichArenasWork()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY); Arena confined = Arena.ofConfined())
        {
            final ProtectionDomain pd = fabric.open().allocPd();
            final RdmaException ex = assertThrows(RdmaException.class,
                () -> pd.regMr(confined.allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE)));
            assertEquals(Errno.EINVAL, ex.errno());
            assertTrue(ex.getMessage().contains("confined"), ex.getMessage());
            assertTrue(ex.getMessage().contains("Arena.ofShared()"), ex.getMessage());
            assertTrue(ex.getMessage().contains("Arena.global()"), ex.getMessage());
            assertTrue(ex.getMessage().contains("Arena.ofAuto()"), ex.getMessage());
            // the arenas it names are taken
            try (Arena shared = Arena.ofShared())
            {
                pd.regMr(shared.allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE)).close();
            }
            pd.regMr(Arena.ofAuto().allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE)).close();
        }
    }

    @Test
    void shouldRefuseHeapAndClosedMemory()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final ProtectionDomain pd = fabric.open().allocPd();
            final RdmaException heap = assertThrows(RdmaException.class,
                () -> pd.regMr(MemorySegment.ofArray(new byte[4096]), EnumSet.of(AccessFlag.LOCAL_WRITE)));
            assertEquals(Errno.EINVAL, heap.errno());
            assertTrue(heap.getMessage().contains("Arena.ofShared()"), heap.getMessage());

            final Arena arena = Arena.ofShared();
            final MemorySegment gone = arena.allocate(4096);
            arena.close();
            final RdmaException closed = assertThrows(RdmaException.class,
                () -> pd.regMr(gone, EnumSet.of(AccessFlag.LOCAL_WRITE)));
            assertEquals(Errno.EINVAL, closed.errno());
        }
    }

    @Test
    void shouldCompleteAReceiveIntoClosedMemoryWithAProtectionError()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final UdEndpoint receiver = new UdEndpoint(fabric.open());
            final Arena arena = Arena.ofShared();
            final MemoryRegion mr = receiver.pd.regMr(arena.allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE));
            receiver.qp.postRecv(new RecvWr().wrId(42).sge(mr, 0, 4096));
            arena.close();

            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "into freed memory", 1);
            final WorkCompletion wc = RcFixtures.one(receiver.poll(1, 10_000), "receive");
            assertEquals(42, wc.wrId());
            assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
            assertEquals(0, receiver.counter(SoftCounter.PROGRESS_ERRORS));
        }
    }

    @Test
    void shouldCompleteASendFromClosedMemoryWithAProtectionError()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final UdEndpoint receiver = new UdEndpoint(fabric.open());
            final Arena arena = Arena.ofShared();
            final MemoryRegion mr = sender.pd.regMr(arena.allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE));
            arena.close();

            sender.qp.postSend(new SendWr().wrId(7).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(mr, 0, 100).ud(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY));
            final WorkCompletion wc = RcFixtures.one(sender.poll(1, 10_000), "send");
            assertEquals(7, wc.wrId());
            assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
        }
    }

    @Test
    void shouldRefuseARemoteWriteIntoClosedMemoryWithAnAccessError()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final RcEndpoint[] pair = RcFixtures.pair(fabric, QpType.RC, Mtu.MTU_1024);
            final RcEndpoint a = pair[0];
            final RcEndpoint b = pair[1];
            final Arena arena = Arena.ofShared();
            final MemoryRegion target = b.pd.regMr(arena.allocate(4096), EnumSet.allOf(AccessFlag.class));
            final long address = target.address();
            arena.close();

            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 0, 64).rdma(address, target.rkey()));
            assertEquals(WcStatus.REM_ACCESS_ERR, RcFixtures.one(a.pollSend(1, 10_000), "write").status());
            assertEquals(0, b.counter(SoftCounter.PROGRESS_ERRORS));
        }
    }

    @Test
    void shouldLetARegionCloseAfterItsArenaAndKeepTheDeviceWorking()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final RcEndpoint[] pair = RcFixtures.pair(fabric, QpType.RC, Mtu.MTU_1024);
            final RcEndpoint a = pair[0];
            final RcEndpoint b = pair[1];
            final Arena arena = Arena.ofShared();
            final MemoryRegion gone = b.pd.regMr(arena.allocate(4096), EnumSet.allOf(AccessFlag.class));
            arena.close();
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 0, 64).rdma(gone.address(), gone.rkey()));
            assertEquals(WcStatus.REM_ACCESS_ERR, RcFixtures.one(a.pollSend(1, 10_000), "write").status());
            // as on the native provider, where the arena's close already deregistered it: close only releases it
            gone.close();
            assertThrows(RdmaException.class, gone::close);

            final RcEndpoint[] next = RcFixtures.pair(fabric, QpType.RC, Mtu.MTU_1024);
            final MemoryRegion live = next[1].pd.regMr(Arena.ofAuto().allocate(4096), EnumSet.allOf(AccessFlag.class));
            next[0].mr.segment().set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 0x0123456789ABCDEFL);
            next[0].qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(next[0].mr, 0, 8).rdma(live.address(), live.rkey()));
            assertEquals(WcStatus.SUCCESS, RcFixtures.one(next[0].pollSend(1, 10_000), "write").status());
            assertEquals(0x0123456789ABCDEFL, live.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG, 0));
            assertEquals(0, b.counter(SoftCounter.PROGRESS_ERRORS));
        }
    }

    @Test
    void shouldAllowClosingARegionUnderAPostedReceiveAndLeaveItsMemoryUntouched()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY); Arena arena = Arena.ofShared())
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final UdEndpoint receiver = new UdEndpoint(fabric.open());
            final MemorySegment buffer = arena.allocate(4096);
            final MemoryRegion mr = receiver.pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
            receiver.qp.postRecv(new RecvWr().wrId(43).sge(mr, 0, 4096));
            // libibverbs deregisters under posted work requests (no EBUSY); the WR completes in error later
            mr.close();

            sender.send(sender.ahTo(receiver.gid()), receiver.qp.qpNum(), UdEndpoint.QKEY, "into a closed region", 1);
            final WorkCompletion wc = RcFixtures.one(receiver.poll(1, 10_000), "receive");
            assertEquals(43, wc.wrId());
            assertEquals(WcStatus.LOC_PROT_ERR, wc.status());
            assertEquals(-1, buffer.asSlice(0, 4096).mismatch(arena.allocate(4096)), "the device wrote into it");
        }
    }
}
