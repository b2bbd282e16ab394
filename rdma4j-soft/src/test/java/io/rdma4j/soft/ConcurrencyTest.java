package io.rdma4j.soft;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
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
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every verb is safe from any thread, as in libibverbs: several threads post to one QP while
 * several others poll one CQ, and every message arrives exactly once.
 */
@Timeout(60)
class ConcurrencyTest
{
    private static final int POSTERS = 4;
    private static final int PER_POSTER = 500;
    private static final int TOTAL = POSTERS * PER_POSTER;

    @Test
    void shouldDeliverEveryMessageOnceWhenManyThreadsPostAndPoll() throws Exception
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context senderContext = fabric.open();
            final Context receiverContext = fabric.open();
            final Side sender = new Side(senderContext, TOTAL);
            final Side receiver = new Side(receiverContext, TOTAL);
            final RecvWr recv = new RecvWr();
            for (int i = 0; i < TOTAL; i++)
            {
                receiver.qp.postRecv(recv.wrId(i).sge(receiver.mr, (long)i * 64 + 40 - 40, 64));
            }
            final AddressHandle ah = sender.pd.createAh(
                io.rdma4j.verbs.AhAttr.global(receiverContext.queryGid(1, 0), 64));

            final CountDownLatch start = new CountDownLatch(1);
            final List<Thread> threads = new ArrayList<>();
            final AtomicInteger sendCompletions = new AtomicInteger();
            final AtomicInteger failures = new AtomicInteger();
            for (int t = 0; t < POSTERS; t++)
            {
                final int poster = t;
                threads.add(Thread.ofPlatform().start(() ->
                {
                    final SendWr wr = new SendWr();
                    final long base = (long)(TOTAL + poster) * 64;
                    try
                    {
                        start.await();
                        for (int i = 0; i < PER_POSTER; i++)
                        {
                            // the payload is read at post time for UD sends, so one slot per thread suffices
                            sender.buffer.set(ValueLayout.JAVA_INT_UNALIGNED, base, poster * PER_POSTER + i);
                            wr.wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                                .sge(sender.mr, base, 4).ud(ah, receiver.qp.qpNum(), 0x22);
                            sender.qp.postSend(wr);
                        }
                    }
                    catch (final Exception ex)
                    {
                        failures.incrementAndGet();
                    }
                }));
            }
            final BitSet seen = new BitSet(TOTAL);
            final AtomicInteger duplicates = new AtomicInteger();
            final AtomicInteger received = new AtomicInteger();
            for (int p = 0; p < 2; p++)
            {
                threads.add(Thread.ofPlatform().start(() -> pollAll(receiver, received, TOTAL, seen, duplicates)));
                threads.add(Thread.ofPlatform().start(() -> pollCount(sender.cq, sendCompletions, TOTAL)));
            }
            start.countDown();
            for (final Thread thread : threads)
            {
                thread.join();
            }
            assertEquals(0, failures.get());
            assertEquals(TOTAL, sendCompletions.get());
            assertEquals(TOTAL, received.get());
            assertEquals(0, duplicates.get());
            assertEquals(TOTAL, seen.cardinality());
        }
    }

    private static void pollCount(final CompletionQueue cq, final AtomicInteger count, final int total)
    {
        final WorkCompletion[] wcs = WorkCompletion.array(8);
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (count.get() < total && System.nanoTime() < deadline)
        {
            final int n = cq.poll(wcs);
            for (int i = 0; i < n; i++)
            {
                assertEquals(WcStatus.SUCCESS, wcs[i].status());
            }
            count.addAndGet(n);
        }
    }

    private static void pollAll(
        final Side side, final AtomicInteger count, final int total, final BitSet seen, final AtomicInteger dups)
    {
        final WorkCompletion[] wcs = WorkCompletion.array(8);
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (count.get() < total && System.nanoTime() < deadline)
        {
            final int n = side.cq.poll(wcs);
            for (int i = 0; i < n; i++)
            {
                assertTrue(wcs[i].isSuccess(), wcs[i].toString());
                final int value = side.buffer.get(ValueLayout.JAVA_INT_UNALIGNED, wcs[i].wrId() * 64 + 40);
                synchronized (seen)
                {
                    if (seen.get(value))
                    {
                        dups.incrementAndGet();
                    }
                    seen.set(value);
                }
            }
            count.addAndGet(n);
        }
    }

    private static final class Side
    {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemorySegment buffer;
        final MemoryRegion mr;

        Side(final Context context, final int depth)
        {
            pd = context.allocPd();
            cq = context.createCq(2 * depth, null, 0);
            qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, new QpCap(64, depth, 1, 1, 0)));
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x22));
            qp.modify(new QpAttr().state(QpState.RTR));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
            buffer = Arena.ofAuto().allocate((long)(depth + POSTERS) * 64, 64);
            mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
        }
    }
}
