package io.rdma4j.soft;

import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Posting work requests, receiving their packets and polling completions allocate nothing: the
 * posting thread and the receiving device's progress thread are measured with the JVM's
 * per-thread allocation counters over many UD round trips on a UDP link, unicast and to a
 * multicast group, and through the same-host inboxes, with the progress thread receiving and in polling mode,
 * where the polling thread receives too.
 * <p>
 * The JVM running this class is held to C1 (see the module's pom): C1 does no escape analysis,
 * so an object the code creates per operation is counted however far the JIT has got. Under C2 a
 * short-lived object may or may not be scalar-replaced, which made an earlier version of this
 * test pass or fail with the machine's load.
 */
@Timeout(60)
class DataPathAllocationTest
{
    private static final int ROUNDS = 5_000;
    private static final Gid GROUP = TestVerbs.group(9);
    private static final int MULTICAST_QPN = 0xFFFFFF;

    @ParameterizedTest(name = "{0}, multicast {1}, polling mode {2}")
    @CsvSource({ "UDP, false, false", "UDP, true, false", "UDP, false, true", "UDP, true, true",
        "SHM, false, false", "SHM, false, true" })
    void shouldPostReceiveAndPollWithoutAllocating(
        final Fabric.Kind kind, final boolean multicast, final boolean pollsInline)
    {
        final var threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (Fabric fabric = new Fabric(kind).pollsInline(pollsInline))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            if (multicast)
            {
                b.qp.attachMulticast(GROUP, 0);
                b.joinFabric(GROUP);
            }
            final AddressHandle ah = a.ahTo(multicast ? GROUP : b.gid());
            final SendWr send = new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(7)
                .sendFlags(SendFlags.SIGNALED).sge(a.mr, 0, 64)
                .ud(ah, multicast ? MULTICAST_QPN : b.qp.qpNum(), UdEndpoint.QKEY);
            final RecvWr recv = new RecvWr().wrId(2).sge(b.mr, 0, 2048);
            final WorkCompletion[] wcs = WorkCompletion.array(4);
            final long receiver = SoftEngine.of(b.context).progressThread().threadId();

            roundTrips(a, b, send, recv, wcs, ROUNDS);
            final long postingBefore = threads.getCurrentThreadAllocatedBytes();
            final long receivingBefore = threads.getThreadAllocatedBytes(receiver);
            roundTrips(a, b, send, recv, wcs, ROUNDS);
            final long posting = threads.getCurrentThreadAllocatedBytes() - postingBefore;
            final long receiving = threads.getThreadAllocatedBytes(receiver) - receivingBefore;

            // one object per round trip would be at least 16 × ROUNDS bytes; allow a fifth of that for
            // one-off noise (a lock's queue node under contention, lazy class init) so that only a
            // per-operation cost fails the test
            final long limit = 16L * ROUNDS / 5;
            assertTrue(posting < limit, posting + " bytes allocated by the posting thread over " + ROUNDS +
                " post/poll round trips");
            assertTrue(receiving < limit, receiving + " bytes allocated by the receiving progress thread over " +
                ROUNDS + " round trips");
        }
    }

    /**
     * The same over IPv6 on {@code ::1}: the 16-byte addresses travel as longs from the link to the
     * receive checks, the ICRC and the GRH, so no datagram makes an object. Both QPs share the device,
     * {@code ::1} being the only IPv6 address the host is sure to have.
     */
    @ParameterizedTest(name = "IPv6, polling mode {0}")
    @CsvSource({ "false", "true" })
    void shouldPostReceiveAndPollWithoutAllocatingOverIpv6(final boolean pollsInline)
    {
        final var threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final int port = Ipv6Loopback.port(1);
        final io.rdma4j.verbs.Context context = SoftDevice.builder("v6alloc", Ipv6Loopback.ADDRESS)
            .pollsInline(pollsInline).link(a -> new io.rdma4j.soft.link.UdpLink(a, port)).build().open();
        try
        {
            final UdEndpoint a = new UdEndpoint(context);
            final UdEndpoint b = new UdEndpoint(context);
            final AddressHandle ah = a.ahTo(b.gid());
            final SendWr send = new SendWr().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(7)
                .sendFlags(SendFlags.SIGNALED).sge(a.mr, 0, 64).ud(ah, b.qp.qpNum(), UdEndpoint.QKEY);
            final RecvWr recv = new RecvWr().wrId(2).sge(b.mr, 0, 2048);
            final WorkCompletion[] wcs = WorkCompletion.array(4);
            final long receiver = SoftEngine.of(context).progressThread().threadId();

            roundTrips(a, b, send, recv, wcs, ROUNDS);
            final long postingBefore = threads.getCurrentThreadAllocatedBytes();
            final long receivingBefore = threads.getThreadAllocatedBytes(receiver);
            roundTrips(a, b, send, recv, wcs, ROUNDS);
            final long posting = threads.getCurrentThreadAllocatedBytes() - postingBefore;
            final long receiving = threads.getThreadAllocatedBytes(receiver) - receivingBefore;

            final long limit = 16L * ROUNDS / 5;
            assertTrue(posting < limit, posting + " bytes allocated by the posting thread over " + ROUNDS +
                " IPv6 post/poll round trips");
            assertTrue(receiving < limit, receiving + " bytes allocated by the receiving progress thread over " +
                ROUNDS + " IPv6 round trips");
        }
        finally
        {
            ((SoftDevice)context.device()).shutdown();
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
