package io.rdma4j.rdmacore;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Posting a receive, posting a send and polling both completions through the ops table allocate nothing:
 * the thread's allocation counter is read around many UD round trips on the first native device. The JVM
 * running this class is held to C1 (the module's pom; the lab scenario does the same), which does no escape
 * analysis, so an object made per operation is counted whatever the JIT has compiled.
 */
class NativeDataPathAllocationTest
{
    private static final int ROUNDS = 5_000;
    private static final int QKEY = 0x33333333;

    @Test
    void postAndPollAllocateNothing()
    {
        final var threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofShared(); NativeContext context = Rxe.device().open())
        {
            final NativePd pd = context.allocPd();
            final NativeCq cq = context.createCq(64, null, 0);
            final NativeQp qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(16, 16)));
            Rxe.udToRts(qp, QKEY);
            final MemoryRegion mr = pd.regMr(arena.allocate(4096, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
            final int gidIndex = Rxe.ipv4GidIndex(context);
            final Gid gid = context.queryGid(1, gidIndex);
            final NativeAh ah = pd.createAh(Rxe.route(gid, gidIndex));
            final SendWr send = new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(7)
                .sendFlags(SendFlags.SIGNALED).sge(mr, 0, 64).ud(ah, qp.qpNum(), QKEY);
            final RecvWr recv = new RecvWr().wrId(2).sge(mr, 1024, 2048);
            final WorkCompletion[] wcs = WorkCompletion.array(4);

            roundTrips(qp, cq, send, recv, wcs, ROUNDS);
            final long before = threads.getCurrentThreadAllocatedBytes();
            roundTrips(qp, cq, send, recv, wcs, ROUNDS);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            System.out.println("NativeDataPathAllocationTest: " + allocated + " bytes allocated over " + ROUNDS +
                " round trips on " + context.device().name());

            // one object per round trip would be at least 16 x ROUNDS bytes; a fifth of that leaves room for
            // one-off noise (lazy class initialisation) so that only a per-operation cost fails
            assertTrue(allocated < 16L * ROUNDS / 5, allocated + " bytes allocated over " + ROUNDS +
                " post-recv, post-send and poll round trips");

            ah.close();
            qp.close();
            mr.close();
            cq.close();
            pd.close();
        }
    }

    private static void roundTrips(final NativeQp qp, final NativeCq cq, final SendWr send, final RecvWr recv,
        final WorkCompletion[] wcs, final int rounds)
    {
        for (int i = 0; i < rounds; i++)
        {
            qp.postRecv(recv);
            qp.postSend(send);
            int completions = 0;
            final long deadline = System.nanoTime() + Rxe.COMPLETION_WAIT_NANOS;
            while (completions < 2)
            {
                completions += cq.poll(wcs);
                if (System.nanoTime() - deadline > 0)
                {
                    throw new AssertionError("round trip " + i + " did not complete");
                }
            }
        }
    }
}
