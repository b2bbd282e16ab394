package io.rdma4j.bench.grpc;

import io.rdma4j.bench.netty.Transport;

import java.util.Locale;

/**
 * One transport's row: its first call, its unary p50 and p99 and its streamed messages a second, or why it has
 * none.
 *
 * @param transport the transport.
 * @param firstMs   the first call in ms, the connection's set-up included, or NaN.
 * @param p50       unary call p50 in µs, or NaN.
 * @param p99       unary call p99 in µs, or NaN.
 * @param rate      streamed messages a second, or NaN.
 * @param note      why the figures are missing ({@code skipped: ...} or {@code FAILED: ...}); empty when they are
 *                  there.
 */
record GrpcResult(Transport transport, double firstMs, double p50, double p99, double rate, String note)
{
    /** The table's column heads, as {@link #format} aligns its rows. */
    static final String HEAD = String.format(Locale.ROOT, "%-44s %9s %9s %9s %11s %9s %9s %9s", "transport",
        "first ms", "p50 us", "p99 us", "stream/s", "p50 x", "p99 x", "stream x");

    /**
     * @param transport the transport.
     * @param why       why it has no figures.
     * @return a row without figures.
     */
    static GrpcResult missing(final Transport transport, final String why)
    {
        return new GrpcResult(transport, Double.NaN, Double.NaN, Double.NaN, Double.NaN, why);
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
     * @return the table line: the figures, then the unary and stream figures over the reference's.
     */
    String format(final GrpcResult reference)
    {
        if (!ok())
        {
            return String.format(Locale.ROOT, "%-44s %s", transport.label(), note);
        }
        final boolean ratios = reference != null && reference.ok();
        return String.format(Locale.ROOT, "%-44s %9.1f %9.2f %9.2f %11.0f %9s %9s %9s", transport.label(), firstMs,
            p50, p99, rate, ratios ? ratio(p50, reference.p50) : "-", ratios ? ratio(p99, reference.p99) : "-",
            ratios ? ratio(rate, reference.rate) : "-");
    }

    private static String ratio(final double figure, final double reference)
    {
        return reference > 0 ? String.format(Locale.ROOT, "%.2f", figure / reference) : "-";
    }
}
