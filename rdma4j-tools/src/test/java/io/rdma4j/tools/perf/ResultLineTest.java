package io.rdma4j.tools.perf;

import io.rdma4j.verbs.QpType;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The result lines' wording, units and ratio (ours over the baseline, from the figures as printed).
 */
class ResultLineTest
{
    static Histogram histogram(final long... nanos)
    {
        final Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        for (final long value : nanos)
        {
            h.recordValue(value);
        }
        return h;
    }

    @Test
    void shouldPrintPercentilesInMicrosecondsAndTheRatioOfTheMedians()
    {
        // Below 2048 ns a three-digit histogram keeps every nanosecond, so the figures are exact.
        final Histogram ours = histogram(1230, 1230, 1230, 2000);
        final Histogram udp = histogram(500, 500, 500, 600);
        assertEquals("send_lat RC 64B: p50 1.23 us p99 2.00 us p99.9 2.00 us max 2.00 us  "
            + "baseline udp p50 0.50 us p99 0.60 us p99.9 0.60 us max 0.60 us  ratio 2.46",
            ResultLine.latency(PerfTest.SEND_LAT, QpType.RC, 64, ours, udp));
    }

    @Test
    void shouldPrintMebibytesAndMessagesPerSecond()
    {
        // 1000 messages of 1 MiB: 2 s is 500 MB/s and 500 msgs/s; 0.5 s is 2000 of each.
        assertEquals("write_bw UC 1048576B: 500.00 MB/s 500 msgs/s  baseline udp 2000.00 MB/s 2000 msgs/s  ratio 0.25",
            ResultLine.bandwidth(PerfTest.WRITE_BW, QpType.UC, 1 << 20, 1000, 2_000_000_000L, 500_000_000L));
    }

    @Test
    void shouldDivideTheFiguresAsPrinted()
    {
        // 2004 ns over 3007 ns is 0.6664, 0.67; a reader of the line divides 2.00 by 3.01 and gets 0.66.
        final String line = ResultLine.latency(PerfTest.READ_LAT, QpType.RC, 2, histogram(2004), histogram(3007));
        assertTrue(line.startsWith("read_lat RC 2B: p50 2.00 us "), line);
        assertTrue(line.contains("baseline udp p50 3.01 us "), line);
        assertTrue(line.endsWith("  ratio 0.66"), line);
        assertEquals("inf", ResultLine.ratio("2.00", "0.00"));
    }
}
