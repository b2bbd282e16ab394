package io.rdma4j.soft;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A completion channel: an armed CQ announces its next completion once; a negative timeout waits for
 * it however long it takes; closing the channel wakes a waiter with an error; {@code wakeup} makes the current
 * or next wait return null.
 */
@Timeout(30)
class CompletionChannelTest
{
    private Fabric fabric;
    private Context context;
    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue cq;
    private QueuePair qp;
    private SendWr send;

    @BeforeEach
    void setUp()
    {
        fabric = new Fabric(Fabric.Kind.MEMORY);
        context = fabric.open();
        pd = context.allocPd();
        channel = context.createCompChannel();
        cq = context.createCq(16, channel, 0);
        qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(1));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        final MemoryRegion mr = pd.regMr(Arena.ofAuto().allocate(64), EnumSet.of(AccessFlag.LOCAL_WRITE));
        final AddressHandle ah = pd.createAh(AhAttr.global(context.queryGid(1, 0), 64));
        // a signaled UD send completes whether or not anyone receives it: one completion per post
        send = new SendWr().wrId(7).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(mr, 0, 8)
            .ud(ah, 0x123456, 1);
    }

    @AfterEach
    void tearDown()
    {
        fabric.close();
    }

    /**
     * Start a thread in {@code getCqEvent} and return once it is parked there (or has returned, which
     * the caller's assertions then catch).
     */
    private CompletableFuture<CompletionQueue> waitInAnotherThread(final long timeout, final TimeUnit unit)
    {
        final CompletableFuture<CompletionQueue> result = new CompletableFuture<>();
        final Thread thread = Thread.ofPlatform().daemon().start(() ->
        {
            try
            {
                result.complete(channel.getCqEvent(timeout, unit));
            }
            catch (final Throwable ex)
            {
                result.completeExceptionally(ex);
            }
        });
        while (!result.isDone() && thread.getState() != Thread.State.WAITING)
        {
            Thread.onSpinWait();
        }
        return result;
    }

    @Test
    void shouldAnnounceTheNextCompletionOnceWhenArmed() throws Exception
    {
        assertNull(channel.getCqEvent(0, TimeUnit.SECONDS), "nothing happened yet");
        cq.requestNotify(false);
        qp.postSend(send);

        assertSame(cq, channel.getCqEvent(10, TimeUnit.SECONDS));
        cq.ackEvents(1);
        assertEquals(1, TestVerbs.pollFor(cq, 1, 10_000).size());

        // not re-armed: a second completion is not announced
        qp.postSend(send);
        assertEquals(1, TestVerbs.pollFor(cq, 1, 10_000).size());
        assertNull(channel.getCqEvent(0, TimeUnit.SECONDS));
    }

    @Test
    void shouldWaitForEverWithANegativeTimeout() throws Exception
    {
        cq.requestNotify(false);
        // a negative timeout used to return null at once: the waiter must be parked, not done
        final CompletableFuture<CompletionQueue> waiter = waitInAnotherThread(-1, TimeUnit.NANOSECONDS);
        qp.postSend(send);

        assertSame(cq, waiter.get(10, TimeUnit.SECONDS));
        cq.ackEvents(1);
    }

    @Test
    void shouldWakeAWaiterWithEinvalWhenTheChannelIsDestroyed() throws Exception
    {
        final CompletableFuture<CompletionQueue> waiter = waitInAnotherThread(-1, TimeUnit.SECONDS);
        qp.close();
        cq.close();
        channel.close();

        final ExecutionException ex = assertThrows(ExecutionException.class, () -> waiter.get(10, TimeUnit.SECONDS));
        assertEquals(Errno.EINVAL, assertInstanceOf(RdmaException.class, ex.getCause()).errno());
    }

    @Test
    void shouldReturnNullToAWaiterWokenFromAnotherThread() throws Exception
    {
        final CompletableFuture<CompletionQueue> waiter = waitInAnotherThread(-1, TimeUnit.SECONDS);
        channel.wakeup();

        assertNull(waiter.get(10, TimeUnit.SECONDS), "woken, not announced");
    }

    @Test
    void shouldKeepOneWakeupForTheNextWaitAndStillAnnounceCompletions() throws Exception
    {
        channel.wakeup();
        channel.wakeup();
        // a wait for ever that returns: the wake-up was kept; the two collapse into one
        assertNull(channel.getCqEvent(-1, TimeUnit.SECONDS));
        final CompletableFuture<CompletionQueue> waiter = waitInAnotherThread(-1, TimeUnit.SECONDS);
        cq.requestNotify(false);
        qp.postSend(send);

        assertSame(cq, waiter.get(10, TimeUnit.SECONDS));
        cq.ackEvents(1);
    }
}
