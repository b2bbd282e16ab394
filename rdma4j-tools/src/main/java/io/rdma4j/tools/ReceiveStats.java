package io.rdma4j.tools;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * What one receiving QP got: counts per sender (told apart by the immediate data, the sender's
 * QPN, as mckey sends it), duplicates, gaps and one-way latencies.
 */
public final class ReceiveStats
{
    private final Map<Integer, BitSet> seenBySender = new HashMap<>();
    private long[] latencies = new long[1024];
    private int latencyCount;
    private long received;
    private long unique;
    private long duplicates;
    private long withoutHeader;
    private long errors;

    /**
     * Record a message that carried a {@link Payload} header.
     *
     * @param sender   the sender's QPN.
     * @param sequence the message's sequence number.
     * @param micros   one-way latency in microseconds.
     */
    public void record(final int sender, final long sequence, final long micros)
    {
        received++;
        final BitSet seen = seenBySender.computeIfAbsent(sender, k -> new BitSet());
        if (sequence < 0 || sequence > Integer.MAX_VALUE)
        {
            withoutHeader++;
            return;
        }
        if (seen.get((int)sequence))
        {
            duplicates++;
            return;
        }
        seen.set((int)sequence);
        unique++;
        if (latencyCount == latencies.length)
        {
            latencies = Arrays.copyOf(latencies, latencies.length * 2);
        }
        latencies[latencyCount++] = Math.max(0, micros);
    }

    /**
     * Record a message too short to carry a header: it counts, but cannot be told apart.
     */
    public void recordWithoutHeader()
    {
        received++;
        unique++;
        withoutHeader++;
    }

    /**
     * Record a completion in error.
     */
    public void recordError()
    {
        errors++;
    }

    /**
     * @return messages received, duplicates included.
     */
    public long received()
    {
        return received;
    }

    /**
     * @return distinct messages received.
     */
    public long unique()
    {
        return unique;
    }

    /**
     * @return messages received more than once.
     */
    public long duplicates()
    {
        return duplicates;
    }

    /**
     * @return completions in error.
     */
    public long errors()
    {
        return errors;
    }

    /**
     * @param expected messages expected from each sender.
     * @return messages not received from the senders seen, or all expected if none was seen.
     */
    public long missing(final long expected)
    {
        if (seenBySender.isEmpty())
        {
            return Math.max(0, expected - withoutHeader);
        }
        long missing = 0;
        for (final BitSet seen : seenBySender.values())
        {
            missing += Math.max(0, expected - seen.cardinality());
        }
        return missing;
    }

    /**
     * @param percent 0..100.
     * @return the latency at that percentile (nearest rank) in microseconds, or -1 if none.
     */
    public long percentile(final double percent)
    {
        if (latencyCount == 0)
        {
            return -1;
        }
        final long[] sorted = Arrays.copyOf(latencies, latencyCount);
        Arrays.sort(sorted);
        final int rank = (int)Math.ceil(percent / 100.0 * latencyCount);
        return sorted[Math.min(latencyCount, Math.max(1, rank)) - 1];
    }

    /**
     * @param node     the connection index.
     * @param expected messages expected from each sender.
     * @return the summary line the demo parses: {@code key=value} pairs.
     */
    public String summary(final int node, final long expected)
    {
        return String.format(
            "mckey: summary node=%d received=%d unique=%d duplicates=%d missing=%d errors=%d senders=%d " +
                "p50_us=%d p90_us=%d p99_us=%d max_us=%d",
            node, received, unique, duplicates, missing(expected), errors, seenBySender.size(),
            percentile(50), percentile(90), percentile(99), percentile(100));
    }
}
