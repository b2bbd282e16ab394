package io.rdma4j.tools.perf;

import io.rdma4j.verbs.QpType;
import org.HdrHistogram.Histogram;

import java.util.Locale;

/**
 * The one line per test and size that {@code rdma4j perf} prints: rdma4j's figure, the UDP
 * baseline's, and their ratio. The ratio is computed from the two figures <em>as printed</em>, so a
 * reader (or a test) dividing the printed numbers gets the printed ratio, to its two decimals.
 * <pre>
 * send_lat RC 64B: p50 12.30 us p99 20.10 us p99.9 40.20 us max 100.30 us  baseline udp p50 5.10 us p99 ...  ratio 2.41
 * send_bw RC 65536B: 181.20 MB/s 2899 msgs/s  baseline udp 1200.00 MB/s 19200 msgs/s  ratio 0.15
 * </pre>
 * MB is 2^20 bytes, as perftest counts it. Latency is in microseconds: half the round trip for the
 * SEND and WRITE ping-pongs, the whole of it for READ and atomics, as perftest reports them.
 */
public final class ResultLine
{
    private static final double NS_PER_US = 1000.0;
    private static final double MIB = 1 << 20;

    private ResultLine()
    {
    }

    /**
     * @param test     the test.
     * @param type     the transport.
     * @param size     the message size.
     * @param ours     rdma4j's latencies (ns).
     * @param baseline the UDP baseline's (ns).
     * @return the line.
     */
    public static String latency(final PerfTest test, final QpType type, final int size, final Histogram ours,
        final Histogram baseline)
    {
        return latency(test, type, size, 0, ours, baseline);
    }

    /**
     * @param test      the test.
     * @param type      the transport.
     * @param size      the message size.
     * @param receivers the multicast receivers of a -M run (shown as {@code mcast xN}), or 0.
     * @param ours      rdma4j's latencies (ns).
     * @param baseline  the UDP baseline's (ns).
     * @return the line.
     */
    public static String latency(final PerfTest test, final QpType type, final int size, final int receivers,
        final Histogram ours, final Histogram baseline)
    {
        final String p50 = micros(ours.getValueAtPercentile(50));
        final String base50 = micros(baseline.getValueAtPercentile(50));
        return String.format(Locale.ROOT, "%s: %s  baseline udp %s  ratio %s", subject(test, type, size, receivers),
            percentiles(p50, ours), percentiles(base50, baseline), ratio(p50, base50));
    }

    private static String subject(final PerfTest test, final QpType type, final int size, final int receivers)
    {
        return String.format(Locale.ROOT, "%s %s %dB", test.label(), type, size) +
            (receivers > 0 ? " mcast x" + receivers : "");
    }

    private static String percentiles(final String p50, final Histogram h)
    {
        return "p50 " + p50 + " us p99 " + micros(h.getValueAtPercentile(99)) + " us p99.9 " +
            micros(h.getValueAtPercentile(99.9)) + " us max " + micros(h.getMaxValue()) + " us";
    }

    /**
     * @param test       the test.
     * @param type       the transport.
     * @param size       the message size.
     * @param count      messages measured, on each side.
     * @param oursNs     how long rdma4j took.
     * @param baselineNs how long the UDP baseline took.
     * @return the line.
     */
    public static String bandwidth(final PerfTest test, final QpType type, final int size, final int count,
        final long oursNs, final long baselineNs)
    {
        return bandwidth(test, type, size, 0, count, oursNs, baselineNs);
    }

    /**
     * @param test       the test.
     * @param type       the transport.
     * @param size       the message size.
     * @param receivers  the multicast receivers of a -M run, or 0.
     * @param count      messages measured (each delivered to every receiver).
     * @param oursNs     how long rdma4j took.
     * @param baselineNs how long the UDP baseline took.
     * @return the line.
     */
    public static String bandwidth(final PerfTest test, final QpType type, final int size, final int receivers,
        final int count, final long oursNs, final long baselineNs)
    {
        final String ours = megabytes(size, count, oursNs);
        final String base = megabytes(size, count, baselineNs);
        return String.format(Locale.ROOT, "%s: %s MB/s %s msgs/s  baseline udp %s MB/s %s msgs/s  ratio %s",
            subject(test, type, size, receivers), ours, messages(count, oursNs), base, messages(count, baselineNs),
            ratio(ours, base));
    }

    private static String micros(final long nanos)
    {
        return String.format(Locale.ROOT, "%.2f", nanos / NS_PER_US);
    }

    private static String megabytes(final int size, final int count, final long nanos)
    {
        return String.format(Locale.ROOT, "%.2f", (double)size * count / MIB / (nanos / 1e9));
    }

    private static String messages(final int count, final long nanos)
    {
        return String.format(Locale.ROOT, "%.0f", count / (nanos / 1e9));
    }

    /**
     * @return ours over the baseline, both as printed, to two decimals; "inf" over a printed zero.
     */
    static String ratio(final String ours, final String baseline)
    {
        final double base = Double.parseDouble(baseline);
        if (base == 0)
        {
            return "inf";
        }
        return String.format(Locale.ROOT, "%.2f", Double.parseDouble(ours) / base);
    }
}
