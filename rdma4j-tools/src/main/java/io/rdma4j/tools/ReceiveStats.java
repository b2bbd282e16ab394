package io.rdma4j.tools;

import org.HdrHistogram.Histogram;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * What one receiving QP got. Every successful receive completion counts, as rdma-core's mckey
 * counts them; messages that carry rdma4j's {@link Payload} header are also told apart per sender
 * (by the immediate data, the sender's QPN, as mckey sends it) for duplicates, gaps and one-way
 * latencies. Plain messages (rdma-core's mckey sends its buffer as it finds it) count once each.
 */
public final class ReceiveStats
{
    private final Map<Integer, BitSet> seenBySender = new HashMap<>();
    /** One-way latencies in microseconds, 3 significant digits, growing as needed. */
    private final Histogram latencies = new Histogram(3);
    private long received;
    private long unique;
    private long duplicates;
    private long plain;
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
        if (sequence < 0 || sequence > Integer.MAX_VALUE)
        {
            recordPlain();
            return;
        }
        received++;
        final BitSet seen = seenBySender.computeIfAbsent(sender, k -> new BitSet());
        if (seen.get((int)sequence))
        {
            duplicates++;
            return;
        }
        seen.set((int)sequence);
        unique++;
        latencies.recordValue(Math.max(0, micros));
    }

    /**
     * Record a message without the header (too short for it, or from another mckey, such as
     * rdma-core's): it counts, as rdma-core counts a completion, but cannot be told apart.
     */
    public void recordPlain()
    {
        received++;
        unique++;
        plain++;
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
     * @return messages received without the header.
     */
    public long plain()
    {
        return plain;
    }

    /**
     * @return true once a message with the header came: only then are duplicates, gaps and
     *         latencies known.
     */
    public boolean hasHeaders()
    {
        return !seenBySender.isEmpty();
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
            return Math.max(0, expected - plain);
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
     * @return the latency at that percentile in microseconds (HdrHistogram's value, to 3 significant
     *         digits), or -1 if none.
     */
    public long percentile(final double percent)
    {
        if (latencies.getTotalCount() == 0)
        {
            return -1;
        }
        return percent >= 100 ? latencies.getMaxValue() : latencies.getValueAtPercentile(percent);
    }

    /**
     * @return the one-way latencies recorded, in microseconds (for {@code --histogram}).
     */
    public Histogram latencies()
    {
        return latencies;
    }

    /**
     * @param node     the connection index.
     * @param expected messages expected from each sender.
     * @return the summary line the demo parses: {@code key=value} pairs. When only plain messages
     *         came it has the counts rdma-core's mckey has, and no analysis it could not make.
     */
    public String summary(final int node, final long expected)
    {
        if (!hasHeaders() && plain > 0)
        {
            return String.format("mckey: summary node=%d received=%d errors=%d", node, received, errors);
        }
        return String.format(
            "mckey: summary node=%d received=%d unique=%d duplicates=%d missing=%d errors=%d senders=%d " +
                "p50_us=%d p90_us=%d p99_us=%d max_us=%d",
            node, received, unique, duplicates, missing(expected), errors, seenBySender.size(),
            percentile(50), percentile(90), percentile(99), percentile(100));
    }
}
