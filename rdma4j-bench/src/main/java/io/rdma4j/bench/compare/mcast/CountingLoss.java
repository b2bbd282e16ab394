package io.rdma4j.bench.compare.mcast;

import io.aeron.driver.ext.LossGenerator;
import io.aeron.driver.ext.RandomLossGenerator;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Aeron's {@link RandomLossGenerator}, counting what it drops: the run's proof that loss was injected, as the soft
 * device's {@code drop_injected} counter is on rdma4j's side.
 */
final class CountingLoss implements LossGenerator
{
    private final RandomLossGenerator random;
    private final AtomicLong dropped;

    /**
     * @param rate    the share dropped.
     * @param seed    the draws' seed.
     * @param dropped counts the drops (the driver's threads draw, the application's reads).
     */
    CountingLoss(final double rate, final long seed, final AtomicLong dropped)
    {
        this.random = new RandomLossGenerator(rate, seed);
        this.dropped = dropped;
    }

    private boolean counted(final boolean drop)
    {
        if (drop)
        {
            dropped.incrementAndGet();
        }
        return drop;
    }

    @Override
    public boolean shouldDropFrame(final InetSocketAddress address, final UnsafeBuffer buffer, final int length)
    {
        return counted(random.shouldDropFrame(address, buffer, length));
    }

    @Override
    public boolean shouldDropFrame(final InetSocketAddress address, final UnsafeBuffer buffer, final int streamId,
        final int sessionId, final int termId, final int termOffset, final int length)
    {
        return counted(random.shouldDropFrame(address, buffer, streamId, sessionId, termId, termOffset, length));
    }
}
