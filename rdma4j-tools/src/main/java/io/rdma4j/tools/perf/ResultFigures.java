package io.rdma4j.tools.perf;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The figures of one {@link ResultLine}, read back from its text: what {@code bin/perf-targets} recorded is all
 * {@link TargetTable} has, so it reads the lines as printed, ratio included, rather than recomputing anything.
 *
 * @param subject          what ran, e.g. {@code send_lat RC 64B} or {@code send_bw UD 64B mcast x4}.
 * @param latency          true for a latency line (p50 in µs), false for a bandwidth line (MB/s).
 * @param ours             rdma4j's p50 (µs) or MB/s.
 * @param baseline         the raw UDP baseline's p50 (µs) or MB/s.
 * @param oursMessages     rdma4j's messages a second; NaN on a latency line.
 * @param baselineMessages the baseline's messages a second; NaN on a latency line.
 * @param ratio            the line's ratio, rdma4j over the baseline; infinite where it printed {@code inf}.
 */
public record ResultFigures(String subject, boolean latency, double ours, double baseline, double oursMessages,
    double baselineMessages, double ratio)
{
    private static final String NUMBER = "(\\d+(?:\\.\\d+)?)";
    private static final String RATIO = "  ratio (\\d+\\.\\d+|inf)$";
    private static final Pattern LATENCY = Pattern.compile("^(\\w+ \\w+ \\d+B(?: mcast x\\d+)?): p50 " + NUMBER +
        " us .*  baseline udp p50 " + NUMBER + " us .*" + RATIO);
    private static final Pattern BANDWIDTH = Pattern.compile("^(\\w+ \\w+ \\d+B(?: mcast x\\d+)?): " + NUMBER +
        " MB/s " + NUMBER + " msgs/s  baseline udp " + NUMBER + " MB/s " + NUMBER + " msgs/s" + RATIO);

    /**
     * @param line a line of {@code rdma4j perf}'s output, or anything.
     * @return its figures, or empty if it is not a result line.
     */
    public static Optional<ResultFigures> parse(final String line)
    {
        final String text = line.strip();
        Matcher m = LATENCY.matcher(text);
        if (m.matches())
        {
            return Optional.of(new ResultFigures(m.group(1), true, number(m.group(2)), number(m.group(3)), Double.NaN,
                Double.NaN, ratio(m.group(4))));
        }
        m = BANDWIDTH.matcher(text);
        if (m.matches())
        {
            return Optional.of(new ResultFigures(m.group(1), false, number(m.group(2)), number(m.group(4)),
                number(m.group(3)), number(m.group(5)), ratio(m.group(6))));
        }
        return Optional.empty();
    }

    private static double number(final String text)
    {
        return Double.parseDouble(text);
    }

    private static double ratio(final String text)
    {
        return text.equals("inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(text);
    }
}
