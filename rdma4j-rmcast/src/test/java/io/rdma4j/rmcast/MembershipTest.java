package io.rdma4j.rmcast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Joining late, falling out of the window, a subscriber that dies and a publisher that dies or restarts.
 */
@Timeout(60)
class MembershipTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    private static MulticastConfig small()
    {
        return new MulticastConfig().windowSlots(128).mtu(512).maxMessageLength(8 * 1024).receiveSlots(64)
            .sendQueueDepth(32);
    }

    @Test
    void shouldReplayWhatTheWindowHoldsToALateSubscriberAndNothingOldToALiveOne() throws Exception
    {
        try (MemoryFabric fabric = new MemoryFabric(7); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(small(), fabric.device(1), fabric.group(1)))
        {
            final Traffic traffic = new Traffic(arena, 100);
            final long deadline = System.nanoTime() + 10 * SECOND_NS;
            for (int m = 0; m < 50; m++)
            {
                traffic.offer(publication, 100, publication::doWork, deadline);
            }
            final Traffic.Received replayed = traffic.new Received();
            final Traffic.Received live = traffic.new Received();
            try (Subscription replay = Subscription.open(small().joinPosition(JoinPosition.REPLAY), fabric.device(2),
                fabric.group(1), replayed);
                 Subscription fresh = Subscription.open(small(), fabric.device(3), fabric.group(1), live))
            {
                final Runnable step = () ->
                {
                    publication.doWork();
                    replay.poll(replayed, 64);
                    fresh.poll(live, 64);
                };
                Traffic.await(() -> publication.memberCount() == 2 && replay.imageCount() == 1 &&
                    fresh.imageCount() == 1, step, 10_000, "both join");
                Traffic.await(() -> replayed.count() == 50, step, 10_000, "the replay of the 50 sent before joining");
                for (int m = 50; m < 60; m++)
                {
                    traffic.offer(publication, 100, step, deadline);
                }
                Traffic.await(() -> replayed.count() == 60 && live.count() == 10, step, 10_000, "the next ten");
                assertEquals(0, replayed.startSequence, "replay starts at the window's oldest fragment");
                assertEquals(50, live.startSequence, "live starts at the head");
                assertEquals(50, live.delivered.getFirst().index());
                replayed.assertEveryMessageOrLoss();
                live.assertEveryMessageOrLoss();
                assertTrue(replay.counters().get("fragments_repaired") >= 50, "the replay came by READ");
            }
        }
    }

    @Test
    void shouldReportTheRangeASlowMemberLostUnderMaxFlowControl() throws Exception
    {
        try (MemoryFabric fabric = new MemoryFabric(8); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(small().flowControl(FlowControl.MAX).dropSlowMembers(false).minGroupSize(2),
                 fabric.device(1), fabric.group(1)))
        {
            final Traffic traffic = new Traffic(arena, 100);
            final Traffic.Received fastGot = traffic.new Received();
            final Traffic.Received slowGot = traffic.new Received();
            try (Subscription fast = Subscription.open(small(), fabric.device(2), fabric.group(1), fastGot);
                 Subscription slow = Subscription.open(small(), fabric.device(3), fabric.group(1), slowGot))
            {
                final Runnable both = () ->
                {
                    publication.doWork();
                    fast.poll(fastGot, 64);
                    slow.poll(slowGot, 64);
                };
                Traffic.await(() -> publication.memberCount() == 2, both, 10_000, "both join");
                final Runnable fastOnly = () ->
                {
                    publication.doWork();
                    fast.poll(fastGot, 64);
                };
                final long deadline = System.nanoTime() + 20 * SECOND_NS;
                // the slow member polls nothing while 3 windows go by: its receive queue overflows too
                for (int m = 0; m < 400; m++)
                {
                    traffic.offer(publication, 100, fastOnly, deadline);
                    fastOnly.run();
                }
                Traffic.await(() -> fastGot.count() == 400, fastOnly, 10_000, "the fast member has all");
                Traffic.await(() -> slow.position(publication.sessionId()) == publication.position(), both, 10_000,
                    "the slow one catches up");
                fastGot.assertEveryMessageOrLoss();
                slowGot.assertEveryMessageOrLoss();
                assertTrue(fastGot.losses.isEmpty(), "the fast member lost nothing");
                assertFalse(slowGot.losses.isEmpty(), "the slow member was told what it lost");
                assertTrue(slowGot.count() < 400, "and did not get it");
                for (int i = 1; i < slowGot.losses.size(); i++)
                {
                    // one run of loss (what went by while it did not poll), reported a repair range at a time
                    assertEquals(slowGot.losses.get(i - 1)[1], slowGot.losses.get(i)[0], slowGot.describe());
                }
            }
        }
    }

    /**
     * A subscriber the publisher has no room for sees the session, is refused its repair connection and says so
     * (repair_connect_failures), where it used to stay silently without an image.
     */
    @Test
    void shouldCountARepairConnectionThePublisherRefused() throws Exception
    {
        try (MemoryFabric fabric = new MemoryFabric(8); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(small().maxMembers(1), fabric.device(1), fabric.group(1)))
        {
            final Traffic traffic = new Traffic(arena, 100);
            final Traffic.Received firstGot = traffic.new Received();
            final Traffic.Received refusedGot = traffic.new Received();
            try (Subscription first = Subscription.open(small(), fabric.device(2), fabric.group(1), firstGot))
            {
                final Runnable one = () ->
                {
                    publication.doWork();
                    first.poll(firstGot, 64);
                };
                Traffic.await(() -> publication.memberCount() == 1, one, 10_000, "the first joins");
                try (Subscription refused = Subscription.open(small(), fabric.device(3), fabric.group(1), refusedGot))
                {
                    final Runnable both = () ->
                    {
                        one.run();
                        refused.poll(refusedGot, 64);
                    };
                    Traffic.await(() -> refused.counters().get("repair_connect_failures") >= 1, both, 10_000,
                        "the refusal counted");
                    assertEquals(0, refused.imageCount());
                    assertEquals(0L, refused.counters().get("receive_errors"));
                    assertEquals(1, publication.memberCount());
                }
            }
        }
    }

    @Test
    void shouldStopWaitingForADeadSubscriberWithinTheMemberTimeout() throws Exception
    {
        final long timeoutNs = TimeUnit.MILLISECONDS.toNanos(300);
        try (MemoryFabric fabric = new MemoryFabric(9); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(small().memberTimeoutNs(timeoutNs), fabric.device(1),
                 fabric.group(1)))
        {
            final Traffic traffic = new Traffic(arena, 100);
            final Traffic.Received aliveGot = traffic.new Received();
            final Traffic.Received deadGot = traffic.new Received();
            try (Subscription alive = Subscription.open(small(), fabric.device(2), fabric.group(1), aliveGot);
                 Subscription dead = Subscription.open(small(), fabric.device(3), fabric.group(1), deadGot))
            {
                final Runnable both = () ->
                {
                    publication.doWork();
                    alive.poll(aliveGot, 64);
                    dead.poll(deadGot, 64);
                };
                Traffic.await(() -> publication.memberCount() == 2, both, 10_000, "both join");
                final Runnable aliveOnly = () ->
                {
                    publication.doWork();
                    alive.poll(aliveGot, 64);
                };
                // the dead member never polls again: no status write, so min flow control holds after a window
                final long stoppedAt = System.nanoTime();
                final long deadline = stoppedAt + 10 * SECOND_NS;
                for (int m = 0; m < 300; m++)
                {
                    traffic.offer(publication, 100, aliveOnly, deadline);
                }
                final long elapsedNs = System.nanoTime() - stoppedAt;
                assertEquals(1, publication.counters().get("members_timed_out"));
                assertEquals(1, publication.memberCount());
                assertTrue(elapsedNs < timeoutNs + 5 * SECOND_NS, "released within a bounded time: " + elapsedNs);
                assertTrue(elapsedNs >= timeoutNs, "not before the timeout: " + elapsedNs);
                Traffic.await(() -> aliveGot.count() == 300, aliveOnly, 10_000, "the live member has all");
                aliveGot.assertEveryMessageOrLoss();
            }
        }
    }

    @Test
    void shouldKeepAMemberWhenThePublisherItselfWasAwayPastTheMemberTimeout() throws Exception
    {
        // one thread drives both ends, as an application's loop may, and stops for three timeouts (a GC, a
        // descheduled thread on a loaded machine): the publisher may not take the member's silence, which was its
        // own absence, for death
        final long timeoutNs = TimeUnit.MILLISECONDS.toNanos(200);
        try (MemoryFabric fabric = new MemoryFabric(11); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(small().memberTimeoutNs(timeoutNs), fabric.device(1),
                 fabric.group(1)))
        {
            final Traffic traffic = new Traffic(arena, 100);
            final Traffic.Received got = traffic.new Received();
            try (Subscription subscription = Subscription.open(small(), fabric.device(2), fabric.group(1), got))
            {
                final Runnable step = () ->
                {
                    publication.doWork();
                    subscription.poll(got, 64);
                };
                Traffic.await(() -> publication.memberCount() == 1 && subscription.imageCount() == 1, step, 10_000,
                    "the member joins");
                final long deadline = System.nanoTime() + 10 * SECOND_NS;
                traffic.offer(publication, 100, step, deadline);
                Traffic.await(() -> got.count() == 1, step, 10_000, "the first message");

                // the publisher alone for a while: the member's last status is in and seen, so what follows is
                // silence as the publisher sees it
                final long quietEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
                while (System.nanoTime() < quietEnd)
                {
                    publication.doWork();
                }
                // the pause under test, not a wait for something: nothing runs either end meanwhile
                java.util.concurrent.locks.LockSupport.parkNanos(3 * timeoutNs);
                publication.doWork();
                assertEquals(0, publication.counters().get("members_timed_out"), "the member was kept");
                assertEquals(1, publication.memberCount());

                for (int m = 0; m < 50; m++)
                {
                    traffic.offer(publication, 100, step, deadline);
                }
                Traffic.await(() -> got.count() == 51, step, 10_000, "the messages after the pause");
                assertEquals(0, publication.counters().get("members_timed_out"));
                assertFalse(got.unavailable, "no unavailable image");
                got.assertEveryMessageOrLoss();
            }
        }
    }

    @Test
    void shouldReportWhatADeadPublisherNeverDeliveredAndTakeItsRestartAsANewSession() throws Exception
    {
        try (MemoryFabric fabric = new MemoryFabric(10); Arena arena = Arena.ofConfined())
        {
            final InetAddress publisherAddress = fabric.device(1);
            final InetSocketAddress group = fabric.group(1);
            final Traffic traffic = new Traffic(arena, 100);
            final Traffic.Received got = traffic.new Received();
            // no repair within the test: what the group drops stays a gap until the publisher goes
            final MulticastConfig subscriberConfig = small().repairDelayNs(60 * SECOND_NS)
                .publisherTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300));
            try (Subscription subscription = Subscription.open(subscriberConfig, fabric.device(2), group, got))
            {
                final int firstSession;
                try (Publication first = Publication.open(small(), publisherAddress, group))
                {
                    firstSession = first.sessionId();
                    final Runnable step = () ->
                    {
                        first.doWork();
                        subscription.poll(got, 64);
                    };
                    Traffic.await(() -> first.memberCount() == 1 && subscription.imageCount() == 1, step, 10_000,
                        "the member joins");
                    final long deadline = System.nanoTime() + 10 * SECOND_NS;
                    traffic.offer(first, 100, step, deadline);
                    Traffic.await(() -> got.count() == 1, step, 10_000, "the first message");
                    fabric.faults().dropProbability(1.0);
                    for (int m = 1; m < 6; m++)
                    {
                        traffic.offer(first, 100, step, deadline);
                    }
                    // a heartbeat tells the member the head; it gets through once the group carries again
                    fabric.faults().dropProbability(0);
                    Traffic.await(() -> subscription.lag(firstSession) == 5, step, 10_000, "the member knows of 5");
                }
                Traffic.await(() -> got.unavailable, () -> subscription.poll(got, 64), 10_000, "the session goes");
                assertEquals(1, got.count());
                got.assertEveryMessageOrLoss();
                assertEquals(1, got.losses.size(), "the undelivered five are one loss event");
                assertEquals(1, got.losses.getFirst()[0]);
                assertEquals(6, got.losses.getFirst()[1]);

                final Traffic.Received again = traffic.new Received();
                try (Publication restarted = Publication.open(small(), publisherAddress, group))
                {
                    assertNotEquals(firstSession, restarted.sessionId(), "a restarted publisher is a new session");
                    Traffic.await(() -> restarted.memberCount() == 1 && subscription.imageCount() == 1, () ->
                    {
                        restarted.doWork();
                        subscription.poll(again, 64);
                    }, 10_000, "the member joins the new session");
                    assertEquals(0, subscription.position(restarted.sessionId()));
                    assertEquals(-1, subscription.position(firstSession));
                }
            }
        }
    }
}
