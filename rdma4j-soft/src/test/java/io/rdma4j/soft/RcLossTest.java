package io.rdma4j.soft;

import io.rdma4j.soft.link.FaultInjector;
import io.rdma4j.soft.link.LossyLink;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RC under loss: SENDs, WRITE-then-READ pairs and FETCH_ADDs over a lossy network must complete
 * exactly once, in order, with the right bytes and sums. Every failure names its seed; rerun one
 * with {@code -Drc.seed=N}.
 */
@Timeout(120)
class RcLossTest
{
    private static final int SLOT = 16 * 1024;
    private static final int SLOTS = 64;
    private static final int OUTSTANDING = 32;

    /** Layout of each endpoint's buffer: send/recv slots, then read-back slots, then write targets. */
    private static final long READBACK = (long)SLOT * SLOTS;
    private static final long TARGETS = 2 * READBACK;
    private static final long COUNTER = 3 * READBACK;

    /** What one run did, from the counters. */
    record Figures(long messages, long sends, long retransmits, long naks, long rnrNaks, long timeouts,
        long lost, long duplicated)
    {
    }

    static Figures run(final Fabric fabric, final long seed, final int operations, final boolean sendsOnly,
        final Mtu mtu)
    {
        final DeviceLimits limits = DeviceLimits.RXE.withEthernetMtu(9000);
        final RcEndpoint a = new RcEndpoint(fabric.open(limits), QpType.RC, COUNTER + 64, 256);
        final RcEndpoint b = new RcEndpoint(fabric.open(limits), QpType.RC, COUNTER + 64, 256);
        final SplittableRandom random = new SplittableRandom(seed);
        final int startPsn = random.nextInt(1 << 24);
        RcConnectSettings.defaults().mtu(mtu).timeout(8).psns(startPsn, Psn24.minus(startPsn, 5)).connect(a, b);
        final String where = "seed " + seed;
        final int maxSize = 3 * mtu.bytes() + 1;

        // plan: kind and size of every operation
        final int[] kind = new int[operations];
        final int[] size = new int[operations];
        int sendCount = 0;
        int addCount = 0;
        for (int i = 0; i < operations; i++)
        {
            final int r = random.nextInt(10);
            kind[i] = sendsOnly || r < 6 ? 0 : r < 8 ? 1 : 2;
            size[i] = kind[i] == 2 ? 8 : random.nextInt(maxSize + 1);
            sendCount += kind[i] == 0 ? 1 : 0;
            addCount += kind[i] == 2 ? 1 : 0;
        }
        final int[] sendSeq = new int[sendCount];
        for (int i = 0, s = 0; i < operations; i++)
        {
            if (kind[i] == 0)
            {
                sendSeq[s++] = i;
            }
        }
        final int recvDepth = Math.min(200, sendCount);
        final RecvWr recv = new RecvWr();
        int recvPosted = 0;
        for (; recvPosted < recvDepth; recvPosted++)
        {
            b.qp.postRecv(recv.wrId(recvPosted).sge(b.mr, (long)(recvPosted % SLOTS) * SLOT, SLOT));
        }

        final long remote = b.mr.segment().address();
        final SendWr wr = new SendWr();
        final SendWr readWr = new SendWr();
        final WorkCompletion[] wcs = WorkCompletion.array(32);
        final BitSet fetched = new BitSet();
        final long deadline = System.nanoTime() + 60_000_000_000L;
        int posted = 0;
        int completed = 0;
        int received = 0;
        int outstanding = 0;
        long wrs = 0;
        final int[] opOfWr = new int[2 * operations + 1];
        while (completed < operations || received < sendCount)
        {
            assertTrue(System.nanoTime() < deadline, where + ": stuck at " + completed + "/" + operations +
                " completed, " + received + "/" + sendCount + " received");
            while (posted < operations && outstanding < OUTSTANDING)
            {
                final int i = posted++;
                final int slot = i % SLOTS;
                RcFixtures.fill(a.buffer, (long)slot * SLOT, size[i], seed * 1_000_003L + i);
                switch (kind[i])
                {
                    case 0 -> a.qp.postSend(wr.wrId(i).opcode(WrOpcode.SEND_WITH_IMM).immData(i)
                        .sendFlags(SendFlags.SIGNALED).sge(a.mr, (long)slot * SLOT, size[i]).next(null));
                    case 1 ->
                    {
                        readWr.wrId(operations + i).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                            .sge(a.mr, READBACK + (long)slot * SLOT, size[i])
                            .rdma(remote + TARGETS + (long)slot * SLOT, b.mr.rkey());
                        a.qp.postSend(wr.wrId(i).opcode(WrOpcode.RDMA_WRITE).sendFlags(0)
                            .sge(a.mr, (long)slot * SLOT, size[i])
                            .rdma(remote + TARGETS + (long)slot * SLOT, b.mr.rkey()).next(readWr));
                    }
                    default -> a.qp.postSend(wr.wrId(i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                        .sendFlags(SendFlags.SIGNALED).sge(a.mr, (long)slot * SLOT, 8)
                        .rdma(remote + COUNTER, b.mr.rkey()).atomic(1, 0).next(null));
                }
                outstanding++;
            }
            final int n = a.sendCq.poll(wcs, 32);
            for (int k = 0; k < n; k++)
            {
                final WorkCompletion wc = wcs[k];
                assertEquals(WcStatus.SUCCESS, wc.status(), where + ": " + wc);
                final int i = (int)(wc.wrId() >= operations ? wc.wrId() - operations : wc.wrId());
                assertEquals(completed, i, where + ": send completions out of order");
                final int slot = i % SLOTS;
                if (kind[i] == 1)
                {
                    assertArrayEquals(RcFixtures.bytes(a.buffer, (long)slot * SLOT, size[i]),
                        RcFixtures.bytes(a.buffer, READBACK + (long)slot * SLOT, size[i]),
                        where + ": READ after WRITE of op " + i);
                }
                else if (kind[i] == 2)
                {
                    final long orig = a.buffer.get(ValueLayout.JAVA_LONG, (long)slot * SLOT);
                    assertTrue(!fetched.get((int)orig), where + ": FETCH_ADD returned " + orig + " twice");
                    fetched.set((int)orig);
                }
                completed++;
                outstanding--;
            }
            final int m = b.recvCq.poll(wcs, 32);
            for (int k = 0; k < m; k++)
            {
                final WorkCompletion wc = wcs[k];
                assertEquals(WcStatus.SUCCESS, wc.status(), where + ": " + wc);
                final int i = sendSeq[received];
                assertEquals(i, wc.immData(), where + ": message " + received + " lost, duplicated or reordered");
                assertEquals(size[i], wc.byteLen(), where + ": length of op " + i);
                final byte[] expected = new byte[size[i]];
                new java.util.Random(seed * 1_000_003L + i).nextBytes(expected);
                assertArrayEquals(expected, RcFixtures.bytes(b.buffer, (wc.wrId() % SLOTS) * SLOT, size[i]),
                    where + ": bytes of op " + i);
                received++;
                if (recvPosted < sendCount)
                {
                    b.qp.postRecv(recv.wrId(recvPosted).sge(b.mr, (long)(recvPosted % SLOTS) * SLOT, SLOT));
                    recvPosted++;
                }
            }
            if (n == 0 && m == 0)
            {
                Thread.onSpinWait();
            }
        }
        assertEquals(addCount, b.buffer.get(ValueLayout.JAVA_LONG, COUNTER), where + ": FETCH_ADD sum");
        assertEquals(addCount, fetched.cardinality(), where);
        assertEquals(0, a.pollSend(1, 20).size(), where + ": extra send completion");
        assertEquals(0, b.pollRecv(1, 20).size(), where + ": extra receive completion");
        return new Figures(sendCount, operations, a.qp.counters().get("retransmitted_pkts"),
            b.qp.counters().get("sent_naks"), b.qp.counters().get("send_rnr_err"),
            a.qp.counters().get("completer_retry_err"), 0, 0);
    }

    static long[] seeds(final int count, final long base)
    {
        final String one = System.getProperty("rc.seed");
        if (one != null)
        {
            return new long[] {Long.parseLong(one)};
        }
        final long[] seeds = new long[count];
        Arrays.setAll(seeds, i -> base + i);
        return seeds;
    }

    @Test
    void shouldDeliverExactlyOnceInOrderUnderMixedFaults()
    {
        for (final long seed : seeds(40, 1000))
        {
            try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
            {
                fabric.network().faultInjector(new FaultInjector(seed).dropProbability(0.05)
                    .duplicateProbability(0.05).reorderProbability(0.05).corruptProbability(0.05).reorderDepth(3));
                run(fabric, seed, 200, false, seed % 2 == 0 ? Mtu.MTU_1024 : Mtu.MTU_256);
            }
        }
    }

    @Test
    void shouldReportFiguresForTwentyPercentLoss()
    {
        final long seed = Long.getLong("rc.seed", 42);
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final FaultInjector faults = new FaultInjector(seed).dropProbability(0.20);
            fabric.network().faultInjector(faults);
            final Figures f = run(fabric, seed, 1000, true, Mtu.MTU_1024);
            System.out.printf("RC 20%% loss, seed %d: messages %d, datagrams dropped %d, retransmitted packets %d, "
                + "NAKs %d, RNR NAKs %d, timeout/NAK retries %d, lost 0, duplicated 0%n", seed, f.messages(),
                faults.dropped(), f.retransmits(), f.naks(), f.rnrNaks(), f.timeouts());
            assertTrue(f.retransmits() > 0, "seed " + seed + ": a lossy run retransmits");
        }
    }

    @Test
    void shouldDeliverExactlyOnceOverLossyUdp()
    {
        final long seed = Long.getLong("rc.seed", 7);
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP))
        {
            final long[] next = {seed};
            fabric.linkWrapper(link -> new LossyLink(link, next[0]++, 0.10));
            run(fabric, seed, 300, false, Mtu.MTU_1024);
        }
    }

    /** 24-bit PSN helper for the test. */
    static final class Psn24
    {
        static int minus(final int psn, final int n)
        {
            return (psn - n) & 0xFFFFFF;
        }
    }
}
