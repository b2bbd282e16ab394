package io.rdma4j.soft;

import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Polling mode tells a busy poller from an event consumer. A thread that polls an empty CQ receives itself, and
 * the progress thread stands back for a while; but a consumer that armed its CQ (ibv_req_notify_cq, poll,
 * ibv_get_cq_event, as Netty's loop over rdma4j does) waits on its channel after the poll, and if the progress
 * thread stood back then too, nobody would receive until the hold ran out: a millisecond on every hop. The clock
 * is the test's and stands still, so the hold never runs out by itself here.
 */
class EventConsumerPollTest
{
    @Test
    void shouldStandBackForABusyPollerButNotForAPollOfAnArmedCq()
    {
        final AtomicLong clock = new AtomicLong(TimeUnit.SECONDS.toNanos(5));
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = SoftDevice.builder("armed", fabric.address(70))
                .link(address -> fabric.network().attach(address))
                .clock(clock::get)
                .pollsInline(true)
                .progressThread(false)
                .build().open();
            fabric.adopt(context);
            final SoftEngine engine = SoftEngine.of(context);
            final CompletionChannel channel = context.createCompChannel();
            final CompletionQueue cq = context.createCq(16, channel, 0);
            final WorkCompletion[] wcs = WorkCompletion.array(4);
            assertFalse(engine.defersToPoller(), "nobody polled yet");

            assertEquals(0, cq.poll(wcs));
            assertTrue(engine.defersToPoller(), "a busy poller receives itself: the progress thread stands back");

            cq.requestNotify(false);
            assertEquals(0, cq.poll(wcs));
            assertFalse(engine.defersToPoller(), "the consumer of an armed CQ waits on its channel next");

            assertEquals(0, cq.poll(wcs));
            assertFalse(engine.defersToPoller(), "still armed: another poll is the same consumer's");

            cq.close();
            channel.close();
        }
    }
}
