package io.rdma4j.tools.cmtime;

import java.io.PrintWriter;

/**
 * One test's times, in microseconds: each step's span over all connections (the wall time from the step's start to
 * its last connection's end) and each connection's own span, from which cmtime's table derives the sum, max and
 * min. A connection without both ends of a step adds nothing to it.
 */
final class StepTimes
{
    private static final int STEPS = Step.values().length;

    private final int connections;
    private final long[][] total = new long[STEPS][2];
    private final long[][][] perConnection;

    StepTimes(final int connections)
    {
        this.connections = connections;
        this.perConnection = new long[connections][STEPS][2];
    }

    static long nowUs()
    {
        return System.nanoTime() / 1000;
    }

    void start(final Step step)
    {
        total[step.ordinal()][0] = nowUs();
    }

    void end(final Step step)
    {
        total[step.ordinal()][1] = nowUs();
    }

    void start(final int connection, final Step step)
    {
        perConnection[connection][step.ordinal()][0] = nowUs();
    }

    void end(final int connection, final Step step)
    {
        perConnection[connection][step.ordinal()][1] = nowUs();
    }

    /** A step's span over all connections, from times taken elsewhere. */
    void total(final Step step, final long startUs, final long endUs)
    {
        total[step.ordinal()][0] = startUs;
        total[step.ordinal()][1] = endUs;
    }

    /** One connection's span of a step, from times taken elsewhere. */
    void span(final int connection, final Step step, final long startUs, final long endUs)
    {
        perConnection[connection][step.ordinal()][0] = startUs;
        perConnection[connection][step.ordinal()][1] = endUs;
    }

    /**
     * @return the step's span over all connections, in microseconds (0 where it was not timed).
     */
    long totalUs(final Step step)
    {
        final long[] t = total[step.ordinal()];
        return t[0] != 0 && t[1] != 0 ? t[1] - t[0] : 0;
    }

    /**
     * Print cmtime's table: connections, threads, then per step avg/conn and total(us) over the whole step, and
     * us/conn, sum(us), max(us) and min(us) of the connections' own spans.
     *
     * @param out     where.
     * @param withQps true for a test with QPs ("qp_conn"), false for CM-only ("cm_conn").
     */
    void print(final PrintWriter out, final boolean withQps)
    {
        out.printf("%s        %10d%n", withQps ? "qp_conn" : "cm_conn", connections);
        out.printf("threads        %10d%n", 1);
        out.println("step             avg/conn  total(us)    us/conn    sum(us)    max(us)    min(us)");
        for (final Step step : Step.values())
        {
            long sum = 0;
            long max = 0;
            long min = Long.MAX_VALUE;
            for (int c = 0; c < connections; c++)
            {
                final long[] t = perConnection[c][step.ordinal()];
                if (t[0] != 0 && t[1] != 0)
                {
                    final long diff = t[1] - t[0];
                    sum += diff;
                    max = Math.max(max, diff);
                    min = Math.min(min, diff);
                }
            }
            if (min == Long.MAX_VALUE)
            {
                min = 0;
            }
            if (step == Step.FULL_CONNECT)
            {
                // cmtime: the sum of overlapping full connects means nothing
                sum = 0;
            }
            final long diff = totalUs(step);
            out.printf("%-13s  %10d %10d %10d %10d %10d %10d%n", step.label(), diff / connections, diff,
                sum / connections, sum, max, min);
        }
        out.flush();
    }
}
