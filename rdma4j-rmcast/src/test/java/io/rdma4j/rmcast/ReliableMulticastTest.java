package io.rdma4j.rmcast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A publication and three subscriptions on soft devices of one in-memory network: every message to every
 * member, whole and in order, with the group's datagrams dropped, duplicated and reordered by a seeded injector.
 */
@Timeout(60)
class ReliableMulticastTest
{
    private static final int MESSAGES = 400;

    static MulticastConfig config()
    {
        return new MulticastConfig().windowSlots(1024).mtu(1024).maxMessageLength(64 * 1024).receiveSlots(256)
            .sendQueueDepth(128);
    }

    @Test
    void shouldDeliverEveryMessageInOrderToThreeSubscribersWithoutLoss() throws Exception
    {
        run(0, 0, 0, 1);
    }

    @Test
    void shouldRepairTenPercentLossDuplicationAndReorderingByRead() throws Exception
    {
        final long[] repaired = run(0.10, 0.02, 0.05, 42);
        assertTrue(repaired[0] > 0, "some fragments were repaired by READ");
    }

    /** @return fragments repaired, over all subscribers. */
    private long[] run(final double drop, final double duplicate, final double reorder, final long seed)
        throws Exception
    {
        try (MemoryFabric fabric = new MemoryFabric(seed); Arena arena = Arena.ofConfined())
        {
            final InetAddress pubAddress = fabric.device(1);
            final InetSocketAddress group = fabric.group(1);
            final Subscription[] subs = new Subscription[3];
            final Traffic traffic = new Traffic(arena, 8 * 1024);
            final Traffic.Received[] received = new Traffic.Received[3];
            try (Publication publication = Publication.open(config().minGroupSize(3), pubAddress, group))
            {
                for (int i = 0; i < subs.length; i++)
                {
                    received[i] = traffic.new Received();
                    subs[i] = Subscription.open(config(), fabric.device(10 + i), group, received[i]);
                }
                final Runnable pollAll = () ->
                {
                    publication.doWork();
                    for (int i = 0; i < subs.length; i++)
                    {
                        subs[i].poll(received[i], 64);
                    }
                };
                Traffic.await(() -> publication.memberCount() == 3, pollAll, 10_000, "three members join");
                fabric.faults().dropProbability(drop).duplicateProbability(duplicate).reorderProbability(reorder);
                final SplittableRandom sizes = new SplittableRandom(seed);
                final long deadline = System.nanoTime() + 30_000_000_000L;
                for (int m = 0; m < MESSAGES; m++)
                {
                    // mostly small, some over several fragments
                    final int length = sizes.nextInt(10) == 0 ? sizes.nextInt(8 * 1024) : sizes.nextInt(200);
                    traffic.offer(publication, length, pollAll, deadline);
                    pollAll.run();
                }
                Traffic.await(() ->
                {
                    for (final Traffic.Received r : received)
                    {
                        if (r.count() < MESSAGES)
                        {
                            return false;
                        }
                    }
                    return true;
                }, pollAll, 20_000, "every subscriber has every message");
                long repaired = 0;
                for (int i = 0; i < subs.length; i++)
                {
                    received[i].assertEveryMessageOrLoss();
                    assertEquals(MESSAGES, received[i].count(), "min flow control loses nothing");
                    assertTrue(received[i].losses.isEmpty(), "no loss events under min flow control");
                    repaired += subs[i].counters().get("fragments_repaired");
                }
                if (drop > 0)
                {
                    assertTrue(fabric.faults().dropped() > 0, "the injector dropped datagrams: " + fabric.faults());
                }
                return new long[] {repaired};
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
