package io.rdma4j.rmcast;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Offer, poll, delivery, repair by READ and status writes allocate nothing, on the soft device over UDP on
 * loopback as an application runs it. The JVM is held to C1 (the module's pom): without escape analysis every
 * per-message object is counted. Gaps come from the subscriber's receive queue overflowing while it does not
 * poll (a burst of 2 048 into 128 receives), so rounds repair by READ.
 * <p>
 * Not in the default run (its own execution, C1 only): {@code mvn test -pl rdma4j-rmcast} runs both.
 */
@Timeout(60)
class HotPathAllocationTest
{
    private static final int ROUNDS = 10;
    private static final int WARM_UP_ROUNDS = 5;
    private static final int BURST = 2048;

    static
    {
        System.setProperty("rdma4j.soft.address", TestNet.host(2, 1));
    }

    @Test
    void shouldAllocateNothingPerMessageWhileOfferingPollingAndRepairing() throws Exception
    {
        final MulticastConfig config = new MulticastConfig().windowSlots(4096).mtu(1024).maxMessageLength(16 * 1024)
            .receiveSlots(128);
        final InetSocketAddress group = new InetSocketAddress(TestNet.groupAddress(2, 9), 0);
        try (Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(config, TestNet.address(2, 11), group);
             Subscription subscription = Subscription.open(new MulticastConfig().windowSlots(4096).mtu(1024)
                 .maxMessageLength(16 * 1024).receiveSlots(128), TestNet.address(2, 12), group, null))
        {
            final long[] delivered = {0};
            final MessageHandler handler = (buffer, offset, length, sessionId, position) -> delivered[0]++;
            Traffic.await(() -> publication.memberCount() == 1 && subscription.imageCount() == 1, () ->
            {
                publication.doWork();
                subscription.poll(handler, 64);
            }, 10_000, "the member joins");
            final MemorySegment message = arena.allocate(64);
            final MemorySegment large = arena.allocate(3000);
            for (int r = 0; r < WARM_UP_ROUNDS; r++)
            {
                // lazy class loading and call-site linking, in this module and in the device, happen here
                round(publication, subscription, handler, message, large, delivered);
            }
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
            final long repairsBefore = subscription.counters().get("repair_reads");
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int r = 0; r < ROUNDS; r++)
            {
                round(publication, subscription, handler, message, large, delivered);
            }
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            final long messages = (long)ROUNDS * BURST;
            assertEquals((ROUNDS + WARM_UP_ROUNDS) * (long)BURST, delivered[0], "every message delivered");
            assertTrue(subscription.counters().get("repair_reads") - repairsBefore > 0, "repairs were measured: " +
                subscription.counters());
            // one object per message would be 16 bytes or more each; a fifth of that is left for one-offs (a class
            // a rare path loads late), as rdma4j-soft's allocation test allows
            assertTrue(allocated < 16 * messages / 5, allocated + " bytes allocated over " + messages + " messages");
        }
    }

    private static void round(final Publication publication, final Subscription subscription,
        final MessageHandler handler, final MemorySegment message, final MemorySegment large, final long[] delivered)
    {
        final long target = delivered[0] + BURST;
        // a burst sixteen times the receive queue, unpolled: what overflows it is dropped and repaired by READ
        for (int i = 0; i < BURST; i++)
        {
            final MemorySegment body = (i & 15) == 0 ? large : message;
            while (publication.offer(body, 0, (int)body.byteSize()) < 0)
            {
                publication.doWork();
            }
        }
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (delivered[0] < target)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("round not delivered: " + subscription.counters());
            }
            publication.doWork();
            subscription.poll(handler, 64);
        }
    }
}
