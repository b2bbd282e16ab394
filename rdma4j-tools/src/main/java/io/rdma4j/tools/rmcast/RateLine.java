package io.rdma4j.tools.rmcast;

import java.util.Map;

/**
 * Turns successive counter snapshots into per-second rates for a report line.
 */
final class RateLine
{
    private Map<String, Long> previous = Map.of();
    private Map<String, Long> last = Map.of();
    private long lastNs = System.nanoTime();

    /**
     * @param counters the snapshot now.
     * @return seconds since the previous call; the deltas are read with {@link #delta}.
     */
    double advance(final Map<String, Long> counters)
    {
        final long now = System.nanoTime();
        final double seconds = Math.max(1e-9, (now - lastNs) / 1e9);
        previous = last;
        last = counters;
        lastNs = now;
        return seconds;
    }

    long delta(final String counter)
    {
        return last.getOrDefault(counter, 0L) - previous.getOrDefault(counter, 0L);
    }

    long total(final String counter)
    {
        return last.getOrDefault(counter, 0L);
    }
}
