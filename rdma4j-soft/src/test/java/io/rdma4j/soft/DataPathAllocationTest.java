package io.rdma4j.soft;

import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Posting work requests and polling completions allocate nothing: the thread that does them is
 * measured with the JVM's per-thread allocation counter over many round trips on a UDP link.
 */
@Timeout(60)
class DataPathAllocationTest
{
    private static final int ROUNDS = 5_000;

    @Test
    void shouldPostAndPollWithoutAllocating()
    {
        final var threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            final AddressHandle ah = a.ahTo(b.gid());
            final SendWr send = new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(7)
                .sendFlags(SendFlags.SIGNALED).sge(a.mr, 0, 64).ud(ah, b.qp.qpNum(), UdEndpoint.QKEY);
            final RecvWr recv = new RecvWr().wrId(2).sge(b.mr, 0, 2048);
            final WorkCompletion[] wcs = WorkCompletion.array(4);

            roundTrips(a, b, send, recv, wcs, ROUNDS);
            final long before = threads.getCurrentThreadAllocatedBytes();
            roundTrips(a, b, send, recv, wcs, ROUNDS);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            // one object per round trip would be at least 16 × ROUNDS bytes; allow a fifth of that for
            // one-off noise (JIT deoptimisation, lazy class init) so the test fails only on a per-operation cost
            assertTrue(allocated < 16L * ROUNDS / 5, allocated + " bytes allocated over " + ROUNDS +
                " post/poll round trips");
        }
    }

    private static void roundTrips(
        final UdEndpoint a, final UdEndpoint b, final SendWr send, final RecvWr recv, final WorkCompletion[] wcs,
        final int rounds)
    {
        for (int i = 0; i < rounds; i++)
        {
            b.qp.postRecv(recv);
            a.qp.postSend(send);
            while (a.cq.poll(wcs) == 0)
            {
                Thread.onSpinWait();
            }
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (b.cq.poll(wcs) == 0)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("round trip " + i + " lost on loopback");
                }
                Thread.onSpinWait();
            }
        }
    }
}
