package io.rdma4j.tools.perf;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The end of {@code bin/perf-targets}: issue 18's targets, each read from the result line of the pair that
 * measures it, as one Markdown table ({@code target | figure | baseline | ratio | goal | met}) that
 * docs/performance.md takes as it is, under the sitting's machine line. Run as a plain main by the script
 * ({@code TargetTable FILE}); it exits 1 when a target is missed or its pair left no result line, so that a
 * sitting cannot pass by losing a figure.
 * <p>
 * The script logs each pair as {@code NAME | args | ... | RESULT LINE}: the name before the first {@code " | "},
 * the {@link ResultLine} after the last.
 */
public final class TargetTable
{
    /** What a target compares with its goal. */
    enum Measure
    {
        /** rdma4j's figure over the baseline's, as the line printed it. */
        RATIO,
        /** rdma4j's figure alone. */
        ABSOLUTE
    }

    /** What a figure is. */
    enum Figure
    {
        /** p50 of a latency line, µs (half the round trip for SEND and WRITE). */
        P50_US,
        /** Bandwidth, MB/s. */
        MB_S,
        /** Messages a second, shown in millions. */
        MSG_S
    }

    /**
     * @param name    what the target is, in the issue's words.
     * @param pair    the name {@code bin/perf-targets} gives the pair that measures it.
     * @param figure  which figure of the line it reads.
     * @param measure whether the goal is on the ratio or on the figure itself.
     * @param atMost  true if the value must be at most the goal, false if at least.
     * @param goal    the goal: a ratio, µs or millions of messages a second.
     */
    record Target(String name, String pair, Figure figure, Measure measure, boolean atMost, double goal)
    {
        String goalText()
        {
            final String value = BigDecimal.valueOf(goal).stripTrailingZeros().toPlainString();
            final String unit = measure == Measure.RATIO ? "x" : switch (figure)
            {
                case P50_US -> " us";
                case MB_S -> " MB/s";
                case MSG_S -> " M msg/s";
            };
            return (atMost ? "<= " : ">= ") + value + unit;
        }
    }

    /** Issue 18's targets, in its order; the pair names are bin/perf-targets'. */
    static final List<Target> TARGETS = List.of(
        new Target("UD 64 B RTT p50, polling", "rtt-UD-udp", Figure.P50_US, Measure.RATIO, true, 1.2),
        new Target("RC 64 B RTT p50, polling", "rtt-RC-udp", Figure.P50_US, Measure.RATIO, true, 1.5),
        new Target("RC send_lat p50, no flags (defaults)", "lat-RC-defaults", Figure.P50_US, Measure.RATIO, true,
            2),
        new Target("RC send_bw 64 KiB", "bw-RC-send", Figure.MB_S, Measure.RATIO, false, 1.5),
        new Target("RC write_bw 64 KiB", "bw-RC-write", Figure.MB_S, Measure.RATIO, false, 1.5),
        new Target("UD 64 B rate, -l 32", "rate-UD-udp-l32", Figure.MSG_S, Measure.RATIO, false, 3),
        new Target("UD 64 B rate, one WR per post", "rate-UD-udp", Figure.MSG_S, Measure.RATIO, false, 1),
        new Target("multicast 1 -> 4, 64 B", "mcast-1to4", Figure.MSG_S, Measure.RATIO, false, 1.5),
        new Target("same-host UD half RTT p50", "rtt-UD-shm", Figure.P50_US, Measure.ABSOLUTE, true, 1),
        new Target("same-host RC half RTT p50", "rtt-RC-shm", Figure.P50_US, Measure.ABSOLUTE, true, 1),
        new Target("same-host UD rate, -l 32", "rate-UD-shm-l32", Figure.MSG_S, Measure.ABSOLUTE, false, 5));

    private static final String SEPARATOR = " | ";

    private final List<String> rows = new ArrayList<>();
    private int missed;

    private TargetTable()
    {
    }

    /**
     * @param output the lines {@code bin/perf-targets} wrote.
     * @return the table of every target.
     */
    static TargetTable of(final List<String> output)
    {
        final Map<String, ResultFigures> byPair = new HashMap<>();
        for (final String line : output)
        {
            final int first = line.indexOf(SEPARATOR);
            if (first > 0 && !line.startsWith("#"))
            {
                ResultFigures.parse(line.substring(line.lastIndexOf(SEPARATOR) + SEPARATOR.length()))
                    .ifPresent(figures -> byPair.put(line.substring(0, first).strip(), figures));
            }
        }
        final TargetTable table = new TargetTable();
        for (final Target target : TARGETS)
        {
            table.add(target, Optional.ofNullable(byPair.get(target.pair())));
        }
        return table;
    }

    private void add(final Target target, final Optional<ResultFigures> result)
    {
        final String name = target.name() + " (" + target.pair() + ")";
        if (result.isEmpty())
        {
            missed++;
            rows.add(row(name, "no result", "", "", target.goalText(), "no: missing"));
            return;
        }
        final ResultFigures r = result.get();
        final double ours = value(target.figure(), r, true);
        final double value = target.measure() == Measure.RATIO ? r.ratio() : ours;
        final boolean met = target.atMost() ? value <= target.goal() : value >= target.goal();
        if (!met)
        {
            missed++;
        }
        rows.add(row(name, format(target.figure(), ours), format(target.figure(), value(target.figure(), r, false)),
            String.format(Locale.ROOT, "%.2f", r.ratio()), target.goalText(), met ? "yes" : "no"));
    }

    private static double value(final Figure figure, final ResultFigures r, final boolean ours)
    {
        return switch (figure)
        {
            case P50_US, MB_S -> ours ? r.ours() : r.baseline();
            case MSG_S -> (ours ? r.oursMessages() : r.baselineMessages()) / 1e6;
        };
    }

    private static String format(final Figure figure, final double value)
    {
        return switch (figure)
        {
            case P50_US -> String.format(Locale.ROOT, "%.2f us", value);
            case MB_S -> String.format(Locale.ROOT, "%.0f MB/s", value);
            case MSG_S -> String.format(Locale.ROOT, "%.3f M msg/s", value);
        };
    }

    private static String row(final String... cells)
    {
        return "| " + String.join(" | ", cells) + " |";
    }

    /**
     * @return the number of targets missed, or missing.
     */
    int missed()
    {
        return missed;
    }

    /**
     * @return the table, header first, then a line counting the targets met.
     */
    List<String> lines()
    {
        final List<String> lines = new ArrayList<>();
        lines.add(row("target", "figure", "baseline", "ratio", "goal", "met"));
        lines.add(row("---", "---", "---", "---", "---", "---"));
        lines.addAll(rows);
        lines.add("");
        lines.add((TARGETS.size() - missed) + " of " + TARGETS.size() + " targets met");
        return lines;
    }

    /**
     * Print the table of a {@code bin/perf-targets} output file.
     *
     * @param args the file.
     * @throws IOException if it cannot be read.
     */
    public static void main(final String[] args) throws IOException
    {
        if (args.length != 1)
        {
            System.err.println("usage: TargetTable PERF_TARGETS_OUTPUT");
            System.exit(2);
        }
        final TargetTable table = of(Files.readAllLines(Path.of(args[0])));
        table.lines().forEach(System.out::println);
        System.exit(table.missed() == 0 ? 0 : 1);
    }
}
