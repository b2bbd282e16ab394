package io.rdma4j.soft;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
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
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code CompletionQueue.poll(wcs, timeout, unit)}: returns the completion that arrives while it waits,
 * with or without a completion channel; returns 0 when the time runs out; refuses a channel's event for
 * another CQ.
 */
@Timeout(30)
class TimedPollTest
{
    /** A QP on the CQ whose signaled UD sends each complete once, whether or not anyone receives. */
    private static SendWr sendOn(final Context context, final ProtectionDomain pd, final QueuePair qp)
    {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(1));
        qp.modify(new QpAttr().state(QpState.RTR));
        qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
        return new SendWr().wrId(5).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(pd.regMr(Arena.ofAuto().allocate(8), EnumSet.of(AccessFlag.LOCAL_WRITE)), 0, 8)
            .ud(pd.createAh(AhAttr.global(context.queryGid(1, 0), 64)), 0x123456, 1);
    }

    @ParameterizedTest(name = "with a completion channel: {0}")
    @ValueSource(booleans = { true, false })
    void shouldReturnTheCompletionThatArrivesWhileWaiting(final boolean withChannel) throws Exception
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = fabric.open();
            final ProtectionDomain pd = context.allocPd();
            final CompletionChannel channel = withChannel ? context.createCompChannel() : null;
            final CompletionQueue cq = context.createCq(16, channel, 0);
            final QueuePair qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
            final SendWr send = sendOn(context, pd, qp);
            final WorkCompletion[] wcs = WorkCompletion.array(4);

            assertEquals(0, cq.poll(wcs, 20, TimeUnit.MILLISECONDS), "nothing to take: the time runs out");

            final CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return cq.poll(wcs, -1, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            qp.postSend(send);
            assertEquals(1, waiter.get(10, TimeUnit.SECONDS));
            assertEquals(5, wcs[0].wrId());
        }
    }

    @Test
    void shouldRefuseAnotherCqsEventOnASharedChannel() throws Exception
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = fabric.open();
            final ProtectionDomain pd = context.allocPd();
            final CompletionChannel channel = context.createCompChannel();
            final CompletionQueue mine = context.createCq(16, channel, 0);
            final CompletionQueue other = context.createCq(16, channel, 0);
            final QueuePair otherQp = pd.createQp(QpInitAttr.of(QpType.UD, other, QpCap.of(4, 4)));
            final SendWr send = sendOn(context, pd, otherQp);
            other.requestNotify(false);
            otherQp.postSend(send);

            final RdmaException ex = assertThrows(RdmaException.class,
                () -> mine.poll(WorkCompletion.array(1), 10, TimeUnit.SECONDS));
            assertEquals(Errno.EINVAL, ex.errno());
        }
    }
}
