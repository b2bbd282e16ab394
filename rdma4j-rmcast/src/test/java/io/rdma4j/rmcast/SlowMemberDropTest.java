package io.rdma4j.rmcast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MAX flow control drops a member that fell more than a window behind: the publisher's listener is told, the
 * member gets an unrecoverable-loss event for what it missed, joins again and goes on with no silent gap.
 */
@Timeout(60)
class SlowMemberDropTest
{
    private static final int WINDOW = 128;

    private static MulticastConfig config()
    {
        return new MulticastConfig().windowSlots(WINDOW).mtu(512).maxMessageLength(8 * 1024).receiveSlots(64)
            .sendQueueDepth(32).publisherTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300));
    }

    private record Drop(InetSocketAddress member, long position, long head)
    {
    }

    @Test
    void shouldDropAMemberBeyondTheWindowWithAnEventAtBothEnds() throws Exception
    {
        final List<Drop> drops = new ArrayList<>();
        final PublicationListener dropped = new PublicationListener()
        {
            @Override
            public void onMemberDropped(final InetSocketAddress member, final long position, final long head)
            {
                drops.add(new Drop(member, position, head));
            }
        };
        try (MemoryFabric fabric = new MemoryFabric(21); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(config().flowControl(FlowControl.MAX).minGroupSize(2),
                 fabric.device(1), fabric.group(1), dropped))
        {
            final Traffic traffic = new Traffic(arena, 100);
            final Traffic.Received fastGot = traffic.new Received();
            final Traffic.Received slowGot = traffic.new Received();
            final InetAddress slowAddress = fabric.device(3);
            try (Subscription fast = Subscription.open(config(), fabric.device(2), fabric.group(1), fastGot);
                 Subscription slow = Subscription.open(config(), slowAddress, fabric.group(1), slowGot))
            {
                final Runnable both = () ->
                {
                    publication.doWork();
                    fast.poll(fastGot, 64);
                    slow.poll(slowGot, 64);
                };
                final Runnable fastOnly = () ->
                {
                    publication.doWork();
                    fast.poll(fastGot, 64);
                };
                Traffic.await(() -> publication.memberCount() == 2, both, 10_000, "both join");
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                for (int m = 0; m < 3 * WINDOW; m++)
                {
                    traffic.offer(publication, 100, fastOnly, deadline);
                    fastOnly.run();
                }
                Traffic.await(() -> !drops.isEmpty(), fastOnly, 10_000, "the slow member is dropped");
                final Drop drop = drops.getFirst();
                assertEquals(slowAddress, drop.member().getAddress(), "the slow member, not the fast one");
                assertTrue(drop.head() > drop.position() + WINDOW, "dropped only beyond the window: " + drop);
                assertEquals(1L, publication.counters().get("members_dropped"));
                assertEquals(1, publication.memberCount(), "it no longer holds flow control");

                Traffic.await(() -> !slowGot.losses.isEmpty() && slowGot.unavailable, both, 10_000,
                    "the member is told what it lost and that the image went");
                for (int m = 0; m < 20; m++)
                {
                    traffic.offer(publication, 100, both, deadline);
                    both.run();
                }
                Traffic.await(() -> slowGot.images == 2 && slow.position(publication.sessionId()) ==
                    publication.position() && fastGot.count() == traffic.offered().size(), both, 10_000,
                    "the dropped member joins again and reaches the head");
                assertEquals(1, drops.size(), "once");
                fastGot.assertEveryMessageOrLoss();
                assertTrue(fastGot.losses.isEmpty(), "the fast member lost nothing");
                // from its first image on: every message delivered, or covered by a loss event, the gap while it
                // was out included
                slowGot.assertEveryMessageOrLoss();
                assertTrue(slowGot.count() < traffic.offered().size(), "it did not get what it missed");
                assertFalse(slowGot.delivered.isEmpty());
            }
        }
    }
}
