package io.rdma4j.soft;

import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the data path costs in reads of the device's clock. A post on a polling-mode device: none for UD, which
 * keeps no timers, one for RC, whose requester arms its retransmit timer from it. A received packet: none for a
 * request, which the responder handles without timers, and none for a response unless it moves the completer's
 * (work left outstanding, or more to send): the ACK of a ping-pong reads none. A read
 * is about 24 ns on the 2-vCPU EPYC VM of 2026-11-27 and waits for the instructions before it; a busy poller's
 * UD round trip paid three a hop (the post's, its flush decision's and its poll's before the flush) and is
 * 0.15-0.2 us a hop faster without them.
 */
@Timeout(30)
class ClockReadTest
{
    /** Counts the clock reads made on the test's own thread. */
    private static final class ThreadClock implements LongSupplier
    {
        private final Thread owner = Thread.currentThread();
        private final AtomicInteger reads = new AtomicInteger();
        /** The time every thread reads once {@link #freeze()} was called; Long.MIN_VALUE while it runs. */
        private volatile long frozenAt = Long.MIN_VALUE;

        @Override
        public long getAsLong()
        {
            if (Thread.currentThread() == owner)
            {
                reads.incrementAndGet();
            }
            final long frozen = frozenAt;
            return frozen == Long.MIN_VALUE ? System.nanoTime() : frozen;
        }

        /** Stop the clock: a test's look at what the last reads decided does not depend on a stall between. */
        void freeze()
        {
            frozenAt = System.nanoTime();
        }

        int reads()
        {
            return reads.get();
        }
    }

    @Test
    void aUdPostReadsNoClockAndItsDatagramStillLeaves()
    {
        final ThreadClock clock = new ThreadClock();
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            fabric.clock(clock);
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final UdEndpoint receiver = new UdEndpoint(fabric.open());
            receiver.postRecvs(3);
            final AddressHandle ah = sender.ahTo(receiver.gid());
            final WorkCompletion[] wcs = WorkCompletion.array(4);
            for (int i = 0; i < 3; i++)
            {
                // a busy poller posts between polls: the poll makes the device see one
                sender.cq.poll(wcs);
                final int before = clock.reads();
                sender.send(ah, receiver.qp.qpNum(), UdEndpoint.QKEY, "post " + i, i);
                assertEquals(before, clock.reads(), "UD post " + i + " read the clock");
            }
            final List<WorkCompletion> received = receiver.poll(3, 10_000);
            assertEquals(3, received.size(), "every post's datagram arrived");
            for (int i = 0; i < 3; i++)
            {
                assertEquals("post " + i, receiver.text(received.get(i)));
            }
        }
    }

    @Test
    void anRcPostReadsTheClockOnceToArmItsRetransmitTimer()
    {
        final ThreadClock clock = new ThreadClock();
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            fabric.clock(clock);
            final RcEndpoint requester = new RcEndpoint(fabric.open(), QpType.RC, 4096, 8);
            final RcEndpoint responder = new RcEndpoint(fabric.open(), QpType.RC, 4096, 8);
            RcConnectSettings.defaults().timeout(20).connect(requester, responder);
            responder.qp.postRecv(new RecvWr().wrId(7).sge(responder.mr, 0, 4096));
            final int before = clock.reads();
            requester.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(requester.mr, 0, 64));
            assertEquals(before + 1, clock.reads(), "an RC post reads the clock once, for its timer");
            assertEquals(1, TestVerbs.pollFor(responder.recvCq, 1, 10_000).size(), "the SEND arrived");
            assertEquals(1, TestVerbs.pollFor(requester.sendCq, 1, 10_000).size(), "and was acknowledged");
        }
    }

    @Test
    void busyPollsReadTheClockOnOnePollInEightAndStillHoldTheProgressThreadBack()
    {
        final ThreadClock clock = new ThreadClock();
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            fabric.clock(clock);
            final UdEndpoint poller = new UdEndpoint(fabric.open());
            final SoftEngine engine = SoftEngine.of(poller.context);
            final WorkCompletion[] wcs = WorkCompletion.array(4);
            // a machine that stalls the test for a millisecond between the last poll that read the clock and the
            // look below would make the poller look stopped: time stands still here
            clock.freeze();
            // the first poll reads it: the count starts full
            final int before = clock.reads();
            for (int i = 0; i < 80; i++)
            {
                assertEquals(0, poller.cq.poll(wcs), "nothing was sent");
            }
            // a poll read it on every one of these (80) before: a busy poller's empty poll is little more
            assertEquals(before + 10, clock.reads(), "reads in 80 empty polls");
            assertTrue(engine.defersToPoller(), "the polls still mark a busy poller");
        }
    }

    @Test
    void onlyAnAckThatLeavesWorkOutstandingReadsTheClock()
    {
        final AtomicInteger reads = new AtomicInteger();
        final long fixed = TimeUnit.SECONDS.toNanos(5);
        final LongSupplier clock = () ->
        {
            reads.incrementAndGet();
            return fixed;
        };
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            // driven by hand: each duty cycle below is the only thing that reads the clock meanwhile
            final Context a = manual(fabric, "clock-a", 80, clock);
            final Context b = manual(fabric, "clock-b", 81, clock);
            final RcEndpoint requester = new RcEndpoint(a, QpType.RC, 4096, 8);
            final RcEndpoint responder = new RcEndpoint(b, QpType.RC, 4096, 8);
            RcConnectSettings.defaults().timeout(14).connect(requester, responder);
            responder.qp.postRecv(new RecvWr().wrId(7).sge(responder.mr, 0, 4096));
            responder.qp.postRecv(new RecvWr().wrId(8).sge(responder.mr, 0, 4096));
            send(requester, 1);

            final int request = cycleReads(b, reads, "the responder's cycle took the first SEND");
            // the second SEND goes before the first one's ACK is taken: that ACK leaves it outstanding
            send(requester, 2);
            final int ackWithOneOutstanding = cycleReads(a, reads, "the requester's cycle took the first ACK");
            cycleReads(b, reads, "the responder's cycle took the second SEND");
            final int ackOfAll = cycleReads(a, reads, "the requester's cycle took the second ACK");
            // every cycle reads the clock once for its timers; besides that, only the ACK that left a SEND
            // outstanding read it, to move the retransmit timer
            assertEquals(request, ackOfAll, "reads in a request's cycle and in the last ACK's");
            assertEquals(request + 1, ackWithOneOutstanding, "reads in the first ACK's cycle");
            assertEquals(2, TestVerbs.pollFor(responder.recvCq, 2, 1_000).size(), "both SENDs completed there");
            assertEquals(2, TestVerbs.pollFor(requester.sendCq, 2, 1_000).size(), "and here, acknowledged");
        }
    }

    private static void send(final RcEndpoint from, final long wrId)
    {
        from.qp.postSend(new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(from.mr, 0, 64));
    }

    /** One duty cycle of a hand-driven device that must handle something: the clock reads it made. */
    private static int cycleReads(final Context device, final AtomicInteger reads, final String what)
    {
        final int before = reads.get();
        assertTrue(SoftEngine.of(device).doWork() > 0, what);
        return reads.get() - before;
    }

    private static Context manual(final Fabric fabric, final String name, final int host, final LongSupplier clock)
    {
        final Context context = SoftDevice.builder(name, fabric.address(host))
            .link(address -> fabric.network().attach(address))
            .clock(clock)
            .progressThread(false)
            .build().open();
        fabric.adopt(context);
        return context;
    }
}
