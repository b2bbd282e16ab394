package io.rdma4j.bench.compare;

import java.util.Locale;

/**
 * One line of the multicast comparison: a system at one message size and loss, its delivery rate, its
 * goodput against its own lossless run, its latency, and their ratios to the baselines of the same run.
 *
 * @param size           the message size in bytes.
 * @param loss           the injected loss, a fraction.
 * @param system         the system, e.g. {@code rdma4j rmcast}.
 * @param rate           messages/s at the slowest subscriber, NaN if the run failed.
 * @param udpRate        raw UDP multicast's rate at this size, the rate's baseline.
 * @param lossless       the same system's lossless rate at this size, for the goodput; NaN on a lossless row.
 * @param p50            one-way latency p50 in us, the worst subscriber's.
 * @param p99            one-way latency p99 in us, the worst subscriber's.
 * @param udpP99         raw UDP multicast's p99 at this size.
 * @param udP99          plain UD multicast's p99 at this size, NaN without.
 * @param injected       datagrams the injected loss dropped, every process's together (-1 if not known).
 * @param repairRequests repairs the subscribers asked for, together (rmcast's READs, Aeron's NAKs).
 * @param lossEvents     losses reported as unrecoverable, together.
 * @param note           why the row failed, or what else to know; may be empty.
 */
public record McastRow(int size, double loss, String system, double rate, double udpRate, double lossless,
    double p50, double p99, double udpP99, double udP99, long injected, long repairRequests, long lossEvents,
    String note)
{
    /** The table's column heads, as {@link #format()} aligns them. */
    public static final String HEADER = String.format(Locale.ROOT,
        "%-14s %5s  %-34s %10s %6s %8s %9s %9s %6s %6s %7s %8s %5s", "workload", "loss", "system", "msgs/s", "x udp",
        "goodput", "p50 us", "p99 us", "x udp", "x ud", "dropped", "repairs", "lost");

    /** @return true when the run produced a figure. */
    public boolean ok()
    {
        return !Double.isNaN(rate);
    }

    /** @return the workload's name, e.g. {@code mcast 64B}. */
    public String workload()
    {
        return "mcast " + size + "B";
    }

    /** @return the goodput, rate over the lossless rate, or NaN on a lossless or failed row. */
    public double goodput()
    {
        return ok() && !Double.isNaN(lossless) && lossless > 0 ? rate / lossless : Double.NaN;
    }

    /** @return the rate over raw UDP's. */
    public double rateRatio()
    {
        return ratio(rate, udpRate);
    }

    /** @return the p99 over raw UDP's. */
    public double p99UdpRatio()
    {
        return ratio(p99, udpP99);
    }

    /** @return the p99 over plain UD's. */
    public double p99UdRatio()
    {
        return ratio(p99, udP99);
    }

    private static double ratio(final double figure, final double baseline)
    {
        return Double.isNaN(figure) || Double.isNaN(baseline) || baseline == 0 ? Double.NaN : figure / baseline;
    }

    private static String one(final double value)
    {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String two(final double value)
    {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.2f", value);
    }

    /** @return the table line. */
    public String format()
    {
        final String lossText = String.format(Locale.ROOT, "%.0f%%", loss * 100);
        if (!ok())
        {
            return String.format(Locale.ROOT, "%-14s %5s  %-34s %10s  %s", workload(), lossText, system, "FAILED", note)
                .stripTrailing();
        }
        final double goodput = goodput();
        return String.format(Locale.ROOT, "%-14s %5s  %-34s %10.0f %6s %8s %9s %9s %6s %6s %7d %8d %5d  %s",
            workload(), lossText, system, rate, two(rateRatio()),
            Double.isNaN(goodput) ? "-" : String.format(Locale.ROOT, "%.0f%%", goodput * 100), one(p50), one(p99),
            two(p99UdpRatio()), two(p99UdRatio()), injected, repairRequests, lossEvents, note).stripTrailing();
    }
}
