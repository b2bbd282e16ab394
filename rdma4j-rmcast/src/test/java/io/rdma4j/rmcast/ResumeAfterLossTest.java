package io.rdma4j.rmcast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A member that stalled past the member timeout is let go by MIN flow control, and told what its image knew sent
 * and had not delivered; when it polls again it rejoins the session and resumes where that image ended, with what
 * the window still holds (a replay), not at the live head: what was sent while it was out is delivered, not
 * reported lost, and delivery goes on.
 */
@Timeout(60)
class ResumeAfterLossTest
{
    private static final int WINDOW = 256;

    private static MulticastConfig config()
    {
        // the pause before an ended session is taken up again: long enough to offer the messages below in
        return new MulticastConfig().windowSlots(WINDOW).mtu(512).maxMessageLength(8 * 1024).receiveSlots(64)
            .sendQueueDepth(32).memberTimeoutNs(TimeUnit.SECONDS.toNanos(1))
            .publisherTimeoutNs(TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void shouldResumeAStalledMemberWhereItsImageEndedWithWhatTheWindowHolds() throws Exception
    {
        try (MemoryFabric fabric = new MemoryFabric(17); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(config().minGroupSize(2), fabric.device(1), fabric.group(1)))
        {
            final Traffic traffic = new Traffic(arena, 100);
            final Traffic.Received aliveGot = traffic.new Received();
            final Traffic.Received stalledGot = traffic.new Received();
            try (Subscription alive = Subscription.open(config(), fabric.device(2), fabric.group(1), aliveGot);
                 Subscription stalled = Subscription.open(config(), fabric.device(3), fabric.group(1), stalledGot))
            {
                final Runnable both = () ->
                {
                    publication.doWork();
                    alive.poll(aliveGot, 64);
                    stalled.poll(stalledGot, 64);
                };
                final Runnable aliveOnly = () ->
                {
                    publication.doWork();
                    alive.poll(aliveGot, 64);
                };
                Traffic.await(() -> publication.memberCount() == 2, both, 10_000, "both join");
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                for (int m = 0; m < 20; m++)
                {
                    traffic.offer(publication, 100, both, deadline);
                    both.run();
                }
                // the stalled member stops polling: its status stands still, MIN lets it go after the timeout
                // (all of this within one window, one message a datagram: a replay can bring every one back)
                for (int m = 0; m < 100; m++)
                {
                    traffic.offer(publication, 100, aliveOnly, deadline);
                }
                Traffic.await(() -> publication.counters().get("members_timed_out") == 1, aliveOnly, 20_000,
                    "the stalled member is timed out");
                Traffic.await(() -> stalledGot.unavailable, both, 10_000, "the stalled member learns it was let go");

                // sent while it is out, before it rejoins: the window holds all of it
                final int whileOut = traffic.offered().size();
                for (int m = 0; m < 40; m++)
                {
                    traffic.offer(publication, 100, both, deadline);
                }
                assertEquals(1, stalledGot.images, "offered before the member rejoined");
                Traffic.await(() -> stalledGot.images == 2, both, 10_000, "the member rejoins");
                for (int m = 0; m < 40; m++)
                {
                    traffic.offer(publication, 100, both, deadline);
                    both.run();
                }
                final int total = traffic.offered().size();
                Traffic.await(() -> stalledGot.count() > 0 &&
                    stalledGot.delivered.getLast().index() == total - 1 && aliveGot.count() == total, both, 10_000,
                    "both reach the last message");

                stalledGot.assertEveryMessageOrLoss();
                aliveGot.assertEveryMessageOrLoss();
                assertTrue(aliveGot.losses.isEmpty(), "the live member lost nothing");
                // at most one loss: what its image knew sent and had not delivered when it ended (nothing, when it
                // had taken all of that before it was let go); a rejoin at the live head would report another,
                // [where the image ended, the head), the messages sent while it was out, and miss them (below)
                assertTrue(stalledGot.losses.size() <= 1, "the window held what was sent while it was out: " +
                    stalledGot.describe());
                final List<Traffic.Offered> resumed = stalledGot.delivered.stream()
                    .filter(message -> message.index() >= whileOut).toList();
                assertEquals(total - whileOut, resumed.size(),
                    "every message sent while it was out, and after, is delivered");
            }
        }
    }
}
