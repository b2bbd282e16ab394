package io.rdma4j.tools.perf;

import io.rdma4j.tools.perf.perftest.BwReport;
import org.HdrHistogram.Histogram;

import java.util.Locale;

/**
 * The result table {@code rdma4j perf} prints with perftest's exchange: perftest's columns and units, so that the
 * two tools' output reads side by side. Latency is in microseconds (half the round trip for the SEND and WRITE
 * ping-pongs, all of it for READ and atomics; t_typical is the median); bandwidth in MB/s of 2^20 bytes and the
 * message rate in millions a second. rdma4j measures no peak, so its peak column is its average.
 */
final class PerftestReport
{
    /** perftest's rule above and below the table. */
    static final String RULE = "-".repeat(87);
    static final String LATENCY_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    " +
        "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]";
    static final String BANDWIDTH_HEADER = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   " +
        "MsgRate[Mpps]";
    private static final double NS_PER_US = 1000.0;
    private static final double MIB = 1 << 20;

    private PerftestReport()
    {
    }

    /**
     * @param size       the message size.
     * @param iterations the exchanges run.
     * @param h          the latencies, ns.
     * @return the row.
     */
    static String latency(final int size, final int iterations, final Histogram h)
    {
        return String.format(Locale.ROOT, " %-7d %-10d    %-14.2f %-12.2f %-16.2f   %-14.2f %-16.2f %-22.2f %-7.2f",
            size, iterations, us(h.getMinValue()), us(h.getMaxValue()), us(h.getValueAtPercentile(50)),
            h.getMean() / NS_PER_US, h.getStdDeviation() / NS_PER_US, us(h.getValueAtPercentile(99)),
            us(h.getValueAtPercentile(99.9)));
    }

    private static double us(final long ns)
    {
        return ns / NS_PER_US;
    }

    /**
     * @param size  the message size.
     * @param count the messages measured.
     * @param ns    how long they took.
     * @return the report, its peak the average.
     */
    static BwReport bandwidth(final int size, final int count, final long ns)
    {
        final double seconds = ns / 1e9;
        final double mbs = (double)size * count / MIB / seconds;
        return new BwReport(size, count, mbs, mbs, count / seconds / 1e6);
    }

    /**
     * @param report a bandwidth report, this side's or the one a perftest client sent.
     * @return the row.
     */
    static String bandwidth(final BwReport report)
    {
        return String.format(Locale.ROOT, " %-7d    %-10d       %-7.2f            %-7.2f            %-7.6f",
            report.size(), report.iters(), report.bwPeak(), report.bwAvg(), report.msgRate());
    }
}
