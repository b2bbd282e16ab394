package io.rdma4j.rmcast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Several publishers to one group, each its own session delivered in its own order; a subscriber of two groups.
 */
@Timeout(60)
class GroupsTest
{
    private static MulticastConfig config()
    {
        return new MulticastConfig().windowSlots(256).mtu(512).maxMessageLength(4096).receiveSlots(128)
            .sendQueueDepth(64);
    }

    @Test
    void shouldDeliverTwoPublishersOfOneGroupAsTwoSessionsAndTwoGroupsToOneSubscriber() throws Exception
    {
        try (MemoryFabric fabric = new MemoryFabric(21); Arena arena = Arena.ofConfined();
             Publication a = Publication.open(config(), fabric.device(1), fabric.group(1));
             Publication b = Publication.open(config(), fabric.device(2), fabric.group(1));
             Publication c = Publication.open(config(), fabric.device(3), fabric.group(2)))
        {
            assertNotEquals(a.sessionId(), b.sessionId());
            final java.net.InetAddress subscriber = fabric.device(10);
            final List<String> groupOne = new ArrayList<>();
            final List<String> groupTwo = new ArrayList<>();
            try (Subscription one = Subscription.open(config(), subscriber, fabric.group(1), null);
                 Subscription two = Subscription.open(config(), subscriber, fabric.group(2), null))
            {
                final MessageHandler intoOne = (buffer, offset, length, sessionId, position) ->
                    groupOne.add(sessionId + ":" + position);
                final MessageHandler intoTwo = (buffer, offset, length, sessionId, position) ->
                    groupTwo.add(sessionId + ":" + position);
                final Runnable step = () ->
                {
                    a.doWork();
                    b.doWork();
                    c.doWork();
                    one.poll(intoOne, 32);
                    two.poll(intoTwo, 32);
                };
                Traffic.await(() -> one.imageCount() == 2 && two.imageCount() == 1 && a.memberCount() == 1 &&
                    b.memberCount() == 1 && c.memberCount() == 1, step, 10_000, "three sessions join");
                fabric.faults().dropProbability(0.05);
                final Traffic traffic = new Traffic(arena, 100);
                final long deadline = System.nanoTime() + 20_000_000_000L;
                for (int m = 0; m < 100; m++)
                {
                    traffic.offer(a, 50, step, deadline);
                    traffic.offer(b, 60, step, deadline);
                    traffic.offer(c, 70, step, deadline);
                }
                Traffic.await(() -> groupOne.size() == 200 && groupTwo.size() == 100, step, 20_000, "all 300");
                final List<String> expectedA = new ArrayList<>();
                final List<String> expectedB = new ArrayList<>();
                final List<String> expectedC = new ArrayList<>();
                for (int m = 1; m <= 100; m++)
                {
                    expectedA.add(a.sessionId() + ":" + m);
                    expectedB.add(b.sessionId() + ":" + m);
                    expectedC.add(c.sessionId() + ":" + m);
                }
                assertEquals(expectedA, groupOne.stream().filter(s -> s.startsWith(a.sessionId() + ":")).toList());
                assertEquals(expectedB, groupOne.stream().filter(s -> s.startsWith(b.sessionId() + ":")).toList());
                assertEquals(expectedC, groupTwo);
            }
        }
    }
}
