package io.rdma4j.netty;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.ArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The credit timeouts of one event loop's connections ({@code CREDIT_TIMEOUT_MILLIS}), looked at by one task of
 * the loop's, not one per connection: a hundred idle connections with a task each woke their loop seven times a
 * second between them, where one task wakes it once per period. The period is a quarter of the shortest timeout
 * watched, so a connection starved for its timeout is closed within 1.25 times it. The task exists while the loop
 * has a connection to watch. On the loop's thread alone.
 */
final class CreditWatch
{
    private final ArrayList<RdmaChannel> channels = new ArrayList<>();
    private ScheduledFuture<?> task;
    private long periodMs = Long.MAX_VALUE;

    /**
     * Watch an active connection until {@link #unwatch}.
     *
     * @param channel   the connection.
     * @param timeoutMs its credit timeout, above 0.
     */
    void watch(final RdmaChannel channel, final int timeoutMs)
    {
        channels.add(channel);
        final long period = Math.max(1, timeoutMs / 4);
        if (period < periodMs)
        {
            if (task != null)
            {
                task.cancel(false);
            }
            periodMs = period;
            final EventLoop loop = channel.eventLoop();
            task = loop.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * @param channel a connection closing; nothing if it was not watched.
     */
    void unwatch(final RdmaChannel channel)
    {
        if (channels.remove(channel) && channels.isEmpty())
        {
            task.cancel(false);
            task = null;
            periodMs = Long.MAX_VALUE;
        }
    }

    /**
     * @return the connections watched now.
     */
    int watched()
    {
        return channels.size();
    }

    private void tick()
    {
        // from the end: a connection the look closes takes itself out, and only those after it move
        for (int i = channels.size() - 1; i >= 0; i--)
        {
            channels.get(i).creditWatchTick();
        }
    }
}
