package io.rdma4j.rdmacore;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.AsyncEventType;
import io.rdma4j.verbs.CompletionQueue;
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
import io.rdma4j.verbs.SrqAttr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Events on the first native device: a completion channel wakes its waiter when an armed CQ gets a
 * completion, and the SRQ limit event arrives through the context's async event queue.
 */
class NativeEventsTest
{
    private static final int QKEY = 0x22222222;

    private NativeContext context;
    private Arena arena;
    private NativePd pd;
    private MemoryRegion mr;

    @BeforeEach
    void open()
    {
        context = Rxe.device().open();
        arena = Arena.ofShared();
        pd = context.allocPd();
        mr = pd.regMr(arena.allocate(4096, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
    }

    @AfterEach
    void close()
    {
        if (context == null)
        {
            // skipped: no device, nothing was opened
            return;
        }
        mr.close();
        pd.close();
        context.close();
        arena.close();
    }

    @Test
    void anArmedCqWakesTheThreadWaitingOnItsChannel() throws Exception
    {
        final NativeCompChannel channel = context.createCompChannel();
        final NativeCq cq = context.createCq(16, channel, 0);
        final NativeQp qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
        Rxe.udToRts(qp, QKEY);
        final int gidIndex = Rxe.ipv4GidIndex(context);
        final Gid gid = context.queryGid(1, gidIndex);
        final NativeAh ah = pd.createAh(Rxe.route(gid, gidIndex));

        // nothing armed, nothing completed: the wait times out with no event
        assertNull(channel.getCqEvent(1, TimeUnit.MILLISECONDS));

        cq.requestNotify(false);
        final CountDownLatch waiting = new CountDownLatch(1);
        final CompletableFuture<CompletionQueue> event = CompletableFuture.supplyAsync(() ->
        {
            waiting.countDown();
            try
            {
                return channel.getCqEvent(Rxe.COMPLETION_WAIT_NANOS, TimeUnit.NANOSECONDS);
            }
            catch (final InterruptedException ex)
            {
                throw new IllegalStateException(ex);
            }
        });
        waiting.await();
        qp.postRecv(new RecvWr().wrId(1).sge(mr, 0, 1024));
        qp.postSend(new SendWr().wrId(2).sendFlags(SendFlags.SIGNALED).sge(mr, 2048, 16).ud(ah, qp.qpNum(), QKEY));

        assertSame(cq, event.get(Rxe.COMPLETION_WAIT_NANOS, TimeUnit.NANOSECONDS));
        cq.ackEvents(1);
        final WorkCompletion[] wcs = WorkCompletion.array(4);
        int polled = 0;
        while (polled < 2)
        {
            final int n = cq.poll(wcs, 4 - polled);
            for (int i = 0; i < n; i++)
            {
                assertEquals(WcStatus.SUCCESS, wcs[i].status(), wcs[i].toString());
            }
            polled += n;
        }
        assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> cq.ackEvents(1)).errno());
        assertEquals(Errno.EBUSY, assertThrows(RdmaException.class, channel::close).errno());

        ah.close();
        qp.close();
        cq.close();
        channel.close();
    }

    @Test
    void anInterruptedWaiterLeavesWithInterruptedException() throws Exception
    {
        final NativeCompChannel channel = context.createCompChannel();
        final CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        final Thread waiter = Thread.ofPlatform().start(() ->
        {
            try
            {
                channel.getCqEvent(Rxe.COMPLETION_WAIT_NANOS, TimeUnit.NANOSECONDS);
                outcome.complete(null);
            }
            catch (final Throwable ex)
            {
                outcome.complete(ex);
            }
        });
        waiter.interrupt();
        assertEquals(InterruptedException.class, outcome.get(Rxe.COMPLETION_WAIT_NANOS, TimeUnit.NANOSECONDS).getClass());
        channel.close();
    }

    @Test
    void theSrqLimitEventNamesTheSrq() throws InterruptedException, ExecutionException
    {
        final NativeCq cq = context.createCq(16, null, 0);
        final NativeSrq srq = pd.createSrq(new SrqAttr(8, 1, 0));
        final NativeQp qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)).withSrq(srq));
        Rxe.udToRts(qp, QKEY);
        final int gidIndex = Rxe.ipv4GidIndex(context);
        final NativeAh ah = pd.createAh(Rxe.route(context.queryGid(1, gidIndex), gidIndex));
        srq.postRecv(new RecvWr().wrId(1).sge(mr, 0, 1024));
        srq.postRecv(new RecvWr().wrId(2).sge(mr, 1024, 1024));
        // armed at 2: consuming one receive leaves fewer than the limit
        srq.modifyLimit(2);
        assertEquals(2, srq.query().srqLimit());

        qp.postSend(new SendWr().wrId(3).sendFlags(SendFlags.SIGNALED).sge(mr, 3000, 16).ud(ah, qp.qpNum(), QKEY));

        final AsyncEvent event = context.getAsyncEvent(Rxe.COMPLETION_WAIT_NANOS, TimeUnit.NANOSECONDS);
        assertEquals(AsyncEventType.SRQ_LIMIT_REACHED, event.type());
        assertSame(srq, event.srq());
        // the limit disarms itself once reported
        assertEquals(0, srq.query().srqLimit());

        Rxe.pollOne(cq, new WorkCompletion());
        Rxe.pollOne(cq, new WorkCompletion());
        ah.close();
        qp.close();
        srq.close();
        cq.close();
    }
}
