package io.rdma4j.rmcast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Small messages packed several to a datagram keep their boundaries and order: through a poll budget that ends
 * within a datagram, through a lost datagram repaired by READ of its slot, and beside claims and long messages.
 */
@Timeout(60)
class PackingTest
{
    private static final int MTU = 512;

    private static MulticastConfig config(final int offersPerFlush)
    {
        return new MulticastConfig().windowSlots(256).mtu(MTU).maxMessageLength(4096).receiveSlots(64)
            .sendQueueDepth(64).offersPerFlush(offersPerFlush);
    }

    @Test
    void shouldPackSmallMessagesAndDeliverEachWholeInOrderThroughASmallBudget() throws Exception
    {
        final int messages = 60;
        try (MemoryFabric fabric = new MemoryFabric(31); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(config(messages), fabric.device(1), fabric.group(1));
             Subscription subscription = Subscription.open(config(1), fabric.device(2), fabric.group(1), null))
        {
            final Traffic traffic = new Traffic(arena, 4096);
            final Traffic.Received got = traffic.new Received();
            final Runnable step = () ->
            {
                publication.doWork();
                subscription.poll(got, 64);
            };
            Traffic.await(() -> publication.memberCount() == 1 && subscription.imageCount() == 1, step, 10_000,
                "the member joins");
            got.onImageAvailable(publication.sessionId(), publication.position());
            final int[] perPoll = new int[1];
            final long deadline = System.nanoTime() + 20_000_000_000L;
            for (int m = 0; m < messages; m++)
            {
                // lengths 0..58, a long message now and then, so frames are unaligned and slots mixed
                traffic.offer(publication, m == 25 ? 1500 : m % 59, () -> { }, deadline);
            }
            publication.doWork();
            final long datagrams = publication.counters().get("fragments_sent");
            assertTrue(datagrams < messages / 4, "packed: " + datagrams + " datagrams for " + messages + " messages");
            final BufferlessCounter counting = new BufferlessCounter(got, perPoll);
            Traffic.await(() -> got.count() == messages, () ->
            {
                publication.doWork();
                perPoll[0] = 0;
                subscription.poll(counting, 3);
                assertTrue(perPoll[0] <= 3, "a poll delivers no more than its limit: " + perPoll[0]);
            }, 10_000, "every message");
            got.assertEveryMessageOrLoss();
            assertTrue(got.losses.isEmpty());
        }
    }

    @Test
    void shouldRepairALostPackedDatagramWithEveryMessageInIt() throws Exception
    {
        final int messages = 200;
        try (MemoryFabric fabric = new MemoryFabric(32); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(config(16), fabric.device(1), fabric.group(1));
             Subscription subscription = Subscription.open(config(1), fabric.device(2), fabric.group(1), null))
        {
            final Traffic traffic = new Traffic(arena, 4096);
            final Traffic.Received got = traffic.new Received();
            final Runnable step = () ->
            {
                publication.doWork();
                subscription.poll(got, 64);
            };
            Traffic.await(() -> publication.memberCount() == 1 && subscription.imageCount() == 1, step, 10_000,
                "the member joins");
            got.onImageAvailable(publication.sessionId(), publication.position());
            fabric.faults().dropProbability(0.2);
            final long deadline = System.nanoTime() + 20_000_000_000L;
            // the subscriber polls between offers; the publisher's duty cycle would send the open datagram early
            final Runnable receive = () -> subscription.poll(got, 64);
            for (int m = 0; m < messages; m++)
            {
                traffic.offer(publication, 1 + m % 40, receive, deadline);
                receive.run();
            }
            publication.doWork();
            Traffic.await(() -> got.count() == messages, step, 10_000, "every message");
            got.assertEveryMessageOrLoss();
            assertTrue(got.losses.isEmpty());
            assertTrue(subscription.counters().get("fragments_repaired") > 0, "some came by READ");
            assertTrue(publication.counters().get("fragments_sent") < messages / 4, "packed");
            assertEquals(messages, subscription.counters().get("messages_delivered"));
        }
    }

    /** Counts what one poll delivers, and passes each message on. */
    private record BufferlessCounter(Traffic.Received into, int[] perPoll) implements MessageHandler
    {
        @Override
        public void onMessage(final java.lang.foreign.MemorySegment buffer, final long offset, final int length,
            final int sessionId, final long position)
        {
            perPoll[0]++;
            into.onMessage(buffer, offset, length, sessionId, position);
        }
    }
}
