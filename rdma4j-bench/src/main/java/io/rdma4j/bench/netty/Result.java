package io.rdma4j.bench.netty;

import java.util.Locale;

/**
 * One transport's row: its ping-pong p50 and p99 and its pipelined rate, or why it has none.
 *
 * @param transport the transport.
 * @param p50       ping-pong round trip p50 in µs, or NaN.
 * @param p99       ping-pong round trip p99 in µs, or NaN.
 * @param rate      pipelined echoes per second, or NaN.
 * @param note      why the figures are missing ({@code skipped: ...} or {@code FAILED: ...}); empty when they are
 *                  there.
 */
record Result(Transport transport, double p50, double p99, double rate, String note)
{
    /** The table's column heads, as {@link #format} aligns its rows. */
    static final String HEAD = String.format(Locale.ROOT, "%-44s %9s %9s %11s %9s %9s %9s", "transport", "p50 us",
        "p99 us", "req/s", "p50 x", "p99 x", "req/s x");

    /**
     * @param transport the transport.
     * @param why       why it has no figures.
     * @return a row without figures.
     */
    static Result missing(final Transport transport, final String why)
    {
        return new Result(transport, Double.NaN, Double.NaN, Double.NaN, why);
    }

    /**
     * @return true when the run produced its figures.
     */
    boolean ok()
    {
        return !Double.isNaN(p50);
    }

    /**
     * @param reference the row the ratios are taken against, or null when there is none.
     * @return the table line: the figures, then each over the reference's.
     */
    String format(final Result reference)
    {
        if (!ok())
        {
            return String.format(Locale.ROOT, "%-44s %s", transport.label(), note);
        }
        final boolean ratios = reference != null && reference.ok();
        return String.format(Locale.ROOT, "%-44s %9.2f %9.2f %11.0f %9s %9s %9s", transport.label(), p50, p99, rate,
            ratios ? ratio(p50, reference.p50) : "-", ratios ? ratio(p99, reference.p99) : "-",
            ratios ? ratio(rate, reference.rate) : "-");
    }

    private static String ratio(final double figure, final double reference)
    {
        return reference > 0 ? String.format(Locale.ROOT, "%.2f", figure / reference) : "-";
    }
}
