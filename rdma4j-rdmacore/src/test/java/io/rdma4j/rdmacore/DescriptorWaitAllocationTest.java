package io.rdma4j.rdmacore;

import io.rdma4j.verbs.WaitSet;
import io.rdma4j.verbs.Waitable;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link WaitSet} over a descriptor-backed channel waits, through {@code poll(2)}, without allocating: an event
 * loop calls it every turn. Run under C1 alone (the module's pom), which does no escape analysis, so an object made
 * per wait is counted whatever the JIT has compiled. No RDMA device needed: an eventfd stands for the channel.
 */
class DescriptorWaitAllocationTest
{
    private static final int ROUNDS = 20_000;

    @Test
    void aWaitThatFindsADescriptorReadableAllocatesNothing() throws Exception
    {
        final var threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final DescriptorWaitSetTest.FdChannel channel = new DescriptorWaitSetTest.FdChannel();
        final Waitable[] ready = new Waitable[4];
        try (WaitSet set = WaitSet.create())
        {
            set.add(channel);
            rounds(set, channel, ready);
            final long before = threads.getCurrentThreadAllocatedBytes();
            rounds(set, channel, ready);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            // one object per wait would be at least 16 x ROUNDS bytes; a fifth of that is room for one-off noise
            assertTrue(allocated < 16L * ROUNDS / 5, allocated + " bytes allocated over " + ROUNDS + " waits");
        }
        finally
        {
            channel.close();
        }
    }

    private static void rounds(final WaitSet set, final DescriptorWaitSetTest.FdChannel channel,
        final Waitable[] ready) throws InterruptedException
    {
        for (int i = 0; i < ROUNDS; i++)
        {
            channel.post();
            // readable, so the set's collect finds it; every other round through the driver's poll as well
            if (set.await(ready, i % 2 == 0 ? 0 : 1, TimeUnit.SECONDS) != 1)
            {
                throw new AssertionError("round " + i + ": the readable descriptor was not reported");
            }
            channel.take();
            if (i % 2 == 1 && set.await(ready, 0, TimeUnit.SECONDS) != 0)
            {
                throw new AssertionError("round " + i + ": a taken descriptor was reported");
            }
        }
    }
}
