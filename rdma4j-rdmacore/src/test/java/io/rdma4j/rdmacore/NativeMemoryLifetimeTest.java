package io.rdma4j.rdmacore;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No sequence of Java calls lets the device write into memory the JVM has freed: closing the arena under a live
 * region deregisters the region first, so a remote WRITE with its rkey and a receive posted with its lkey fail
 * with error completions; memory the region could not be deregistered in time for (a confined arena's) or that
 * is already gone is refused. Closing a region under a posted receive stays allowed, as in libibverbs.
 */
class NativeMemoryLifetimeTest
{
    private static final EnumSet<AccessFlag> ALL = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
        AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    private final List<AutoCloseable> opened = new ArrayList<>();
    private NativeContext context;
    private Arena arena;
    private NativePd pd;
    private MemoryRegion local;
    private int gidIndex;
    private Gid gid;

    @BeforeEach
    void open()
    {
        context = Rxe.device().open();
        arena = Arena.ofShared();
        pd = context.allocPd();
        gidIndex = Rxe.ipv4GidIndex(context);
        gid = context.queryGid(1, gidIndex);
        local = pd.regMr(arena.allocate(4096, 64), ALL);
    }

    @AfterEach
    void close() throws Exception
    {
        if (context == null)
        {
            return;
        }
        for (int i = opened.size() - 1; i >= 0; i--)
        {
            opened.get(i).close();
        }
        local.close();
        pd.close();
        context.close();
        arena.close();
    }

    private <T extends AutoCloseable> T closing(final T resource)
    {
        opened.add(resource);
        return resource;
    }

    /** Two connected RC QPs, each with its own CQ: [0] the requester, [1] the responder. */
    private NativeQp[] rcPair(final NativeCq[] cqs)
    {
        cqs[0] = closing(context.createCq(16, null, 0));
        cqs[1] = closing(context.createCq(16, null, 0));
        final NativeQp a = closing(pd.createQp(QpInitAttr.of(QpType.RC, cqs[0], new QpCap(8, 8, 1, 1, 0))));
        final NativeQp b = closing(pd.createQp(QpInitAttr.of(QpType.RC, cqs[1], new QpCap(8, 8, 1, 1, 0))));
        Rxe.rcToRts(a, b.qpNum(), Rxe.route(gid, gidIndex));
        Rxe.rcToRts(b, a.qpNum(), Rxe.route(gid, gidIndex));
        return new NativeQp[] { a, b };
    }

    @Test
    void closingTheArenaUnderALiveRegionMakesARemoteWriteWithItsRkeyARemoteAccessError()
    {
        final NativeCq[] cqs = new NativeCq[2];
        final NativeQp[] qps = rcPair(cqs);
        final Arena target = Arena.ofShared();
        final MemoryRegion mr = pd.regMr(target.allocate(4096, 64), ALL);
        final long address = mr.address();
        target.close();

        qps[0].postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .sge(local, 0, 64).rdma(address, mr.rkey()));
        final WorkCompletion wc = Rxe.pollOne(cqs[0], new WorkCompletion());
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status(), wc.toString());
        mr.close();

        // the device goes on: a fresh pair writes into live memory with a fresh region
        final NativeCq[] fresh = new NativeCq[2];
        final NativeQp[] pair = rcPair(fresh);
        final MemoryRegion live = closing(pd.regMr(arena.allocate(4096, 64), ALL));
        local.segment().set(ValueLayout.JAVA_LONG, 0, 0x0123456789ABCDEFL);
        pair[0].postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .sge(local, 0, 8).rdma(live.address(), live.rkey()));
        assertEquals(WcStatus.SUCCESS, Rxe.pollOne(fresh[0], new WorkCompletion()).status());
        assertEquals(0x0123456789ABCDEFL, live.segment().get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void aReceivePostedIntoMemoryWhoseArenaClosedCompletesInError()
    {
        final NativeCq[] cqs = new NativeCq[2];
        final NativeQp[] qps = rcPair(cqs);
        final Arena target = Arena.ofShared();
        final MemoryRegion mr = pd.regMr(target.allocate(4096, 64), ALL);
        qps[1].postRecv(new RecvWr().wrId(7).sge(mr, 0, 4096));
        target.close();

        qps[0].postSend(new SendWr().wrId(8).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(local, 0, 64));
        final WorkCompletion received = Rxe.pollOne(cqs[1], new WorkCompletion());
        final WorkCompletion sent = Rxe.pollOne(cqs[0], new WorkCompletion());
        System.out.println("receive into a closed arena: " + received + "; its sender: " + sent);
        assertEquals(7, received.wrId());
        assertNotEquals(WcStatus.SUCCESS, received.status(), received.toString());
        assertNotEquals(WcStatus.SUCCESS, sent.status(), sent.toString());
        mr.close();
    }

    @Test
    void closingARegionUnderAPostedReceiveIsAllowedAndTheReceiveFailsWithoutTouchingTheMemory()
    {
        final NativeCq[] cqs = new NativeCq[2];
        final NativeQp[] qps = rcPair(cqs);
        final MemorySegment buffer = arena.allocate(4096, 64);
        final MemoryRegion mr = pd.regMr(buffer, ALL);
        qps[1].postRecv(new RecvWr().wrId(9).sge(mr, 0, 4096));
        mr.close();

        local.segment().asSlice(0, 64).fill((byte)'x');
        qps[0].postSend(new SendWr().wrId(10).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(local, 0, 64));
        final WorkCompletion received = Rxe.pollOne(cqs[1], new WorkCompletion());
        System.out.println("receive into a deregistered region: " + received);
        assertEquals(9, received.wrId());
        assertNotEquals(WcStatus.SUCCESS, received.status(), received.toString());
        assertEquals(0, buffer.get(ValueLayout.JAVA_LONG, 0), "the device wrote into deregistered memory");
    }

    @Test
    void memoryOfAConfinedOrClosedArenaIsRefused()
    {
        try (Arena confined = Arena.ofConfined())
        {
            final RdmaException ex = assertThrows(RdmaException.class, () -> pd.regMr(confined.allocate(4096), ALL));
            assertEquals(Errno.EINVAL, ex.errno());
            assertTrue(ex.getMessage().contains("confined"), ex.getMessage());
            assertTrue(ex.getMessage().contains("Arena.ofShared()"), ex.getMessage());
        }
        final Arena gone = Arena.ofShared();
        final MemorySegment freed = gone.allocate(4096);
        gone.close();
        final RdmaException ex = assertThrows(RdmaException.class, () -> pd.regMr(freed, ALL));
        assertEquals(Errno.EINVAL, ex.errno());
        assertTrue(ex.getMessage().contains("closed"), ex.getMessage());
        // the kinds it names are taken
        closing(pd.regMr(Arena.ofAuto().allocate(4096), ALL));
        closing(pd.regMr(Arena.global().allocate(64), ALL));
    }
}
