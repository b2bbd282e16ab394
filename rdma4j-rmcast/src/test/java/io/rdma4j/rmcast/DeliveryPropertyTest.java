package io.rdma4j.rmcast;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The property the module promises, over drawn networks (1-20 % loss, reordering, duplication), message mixes
 * and flow-control policies: every subscriber gets every message once and in order, or a loss event covering
 * it; under min flow control, with every member polling, nothing is lost at all; with small messages packed
 * several to a datagram or one to each. A fixed seed, so a failure
 * replays.
 */
class DeliveryPropertyTest
{
    private static MulticastConfig config(final FlowControl flowControl, final int offersPerFlush)
    {
        return new MulticastConfig().windowSlots(256).mtu(512).maxMessageLength(16 * 1024).receiveSlots(128)
            .sendQueueDepth(64).flowControl(flowControl).minGroupSize(3).offersPerFlush(offersPerFlush);
    }

    @Property(tries = 10, seed = "4242")
    void everyMessageOnceInOrderOrAnExplicitLoss(
        @ForAll @DoubleRange(min = 0.01, max = 0.20) final double drop,
        @ForAll @DoubleRange(min = 0, max = 0.10) final double reorder,
        @ForAll @DoubleRange(min = 0, max = 0.05) final double duplicate,
        @ForAll @IntRange(min = 40, max = 150) final int messages,
        @ForAll final boolean maxFlowControl,
        @ForAll final boolean packed,
        @ForAll final long seed) throws Exception
    {
        // packed: up to 8 small messages share a datagram, each with its header, and a poll's budget may end in one
        final int offersPerFlush = packed ? 8 : 1;
        final FlowControl flowControl = maxFlowControl ? FlowControl.MAX : FlowControl.MIN;
        try (MemoryFabric fabric = new MemoryFabric(seed); Arena arena = Arena.ofConfined())
        {
            final InetAddress publisherAddress = fabric.device(1);
            final InetSocketAddress group = fabric.group(1);
            final Traffic traffic = new Traffic(arena, 16 * 1024);
            final Subscription[] subs = new Subscription[3];
            final Traffic.Received[] got = new Traffic.Received[3];
            try (Publication publication = Publication.open(config(flowControl, offersPerFlush), publisherAddress, group))
            {
                for (int i = 0; i < subs.length; i++)
                {
                    got[i] = traffic.new Received();
                    subs[i] = Subscription.open(config(flowControl, 1), fabric.device(10 + i), group, got[i]);
                }
                final Runnable step = () ->
                {
                    publication.doWork();
                    for (int i = 0; i < subs.length; i++)
                    {
                        subs[i].poll(got[i], 32);
                    }
                };
                Traffic.await(() -> publication.memberCount() == 3 && subs[0].imageCount() == 1 &&
                    subs[1].imageCount() == 1 && subs[2].imageCount() == 1, step, 10_000, "three members join");
                fabric.faults().dropProbability(drop).reorderProbability(reorder).duplicateProbability(duplicate);
                final SplittableRandom sizes = new SplittableRandom(seed);
                final long deadline = System.nanoTime() + 20_000_000_000L;
                for (int m = 0; m < messages; m++)
                {
                    final int length = sizes.nextInt(8) == 0 ? sizes.nextInt(16 * 1024) : sizes.nextInt(1, 64);
                    traffic.offer(publication, length, step, deadline);
                    step.run();
                }
                final long end = publication.position();
                Traffic.await(() ->
                {
                    for (int i = 0; i < subs.length; i++)
                    {
                        if (subs[i].position(publication.sessionId()) != end)
                        {
                            return false;
                        }
                    }
                    return true;
                }, step, 20_000, "every member reaches the end");
                for (final Traffic.Received received : got)
                {
                    received.assertEveryMessageOrLoss();
                    if (flowControl == FlowControl.MIN)
                    {
                        assertTrue(received.losses.isEmpty(), "min flow control loses nothing: " + received.describe());
                        assertEquals(messages, received.count());
                    }
                }
            }
            finally
            {
                for (final Subscription sub : subs)
                {
                    if (sub != null)
                    {
                        sub.close();
                    }
                }
            }
        }
    }
}
