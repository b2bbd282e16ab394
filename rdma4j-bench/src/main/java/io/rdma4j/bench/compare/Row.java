package io.rdma4j.bench.compare;

import java.util.Locale;

/**
 * One line of the comparison table: a workload on one system in one idle mode, its figure, and that
 * figure over the raw UDP figure of the same workload and mode.
 *
 * @param workload the workload, e.g. {@code pingpong 64B}.
 * @param system   the system and mode, e.g. {@code rdma4j RC, progress thread, busy poll}.
 * @param figure   the figure (latency p50 in µs, or MB/s), or NaN if the run failed.
 * @param unit     {@code us} or {@code MB/s}.
 * @param udp      the raw UDP figure it is compared with, or NaN.
 * @param note     why the figure is missing, or extra detail such as p99; may be empty.
 */
public record Row(String workload, String system, double figure, String unit, double udp, String note)
{
    /**
     * @return true when the run produced a figure.
     */
    public boolean ok()
    {
        return !Double.isNaN(figure);
    }

    /**
     * @return figure over the UDP figure, two decimals, or "-" when either is missing.
     */
    public String ratio()
    {
        if (!ok() || Double.isNaN(udp) || udp == 0)
        {
            return "-";
        }
        return String.format(Locale.ROOT, "%.2f", figure / udp);
    }

    /**
     * @return the table line.
     */
    public String format()
    {
        final String value = ok() ? String.format(Locale.ROOT, "%.2f %s", figure, unit) : "FAILED";
        return String.format(Locale.ROOT, "%-28s %-44s %14s %8s  %s", workload, system, value, ratio(), note)
            .stripTrailing();
    }
}
