package io.rdma4j.tools.perf;

import io.rdma4j.verbs.QpType;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link ResultFigures} reads back what {@link ResultLine} prints, so the two cannot drift apart unseen.
 */
class ResultFiguresTest
{
    @Test
    void readsALatencyLineAsPrinted()
    {
        final String line = ResultLine.latency(PerfTest.SEND_LAT, QpType.RC, 64, ResultLineTest.histogram(1230, 1230, 2000),
            ResultLineTest.histogram(500, 500, 600));
        assertEquals(Optional.of(new ResultFigures("send_lat RC 64B", true, 1.23, 0.50, Double.NaN, Double.NaN,
            2.46)), ResultFigures.parse(line));
    }

    @Test
    void readsABandwidthLineAsPrinted()
    {
        final String line = ResultLine.bandwidth(PerfTest.WRITE_BW, QpType.UC, 1 << 20, 1000, 2_000_000_000L,
            500_000_000L);
        assertEquals(Optional.of(new ResultFigures("write_bw UC 1048576B", false, 500, 2000, 500, 2000, 0.25)),
            ResultFigures.parse(line));
    }

    @Test
    void readsAMulticastLineAndAnInfiniteRatio()
    {
        final String line = ResultLine.bandwidth(PerfTest.SEND_BW, QpType.UD, 64, 4, 100_000, 1_000_000_000L,
            Long.MAX_VALUE);
        final ResultFigures figures = ResultFigures.parse(line).orElseThrow();
        assertEquals("send_bw UD 64B mcast x4", figures.subject());
        assertEquals(100_000, figures.oursMessages());
        assertEquals(Double.POSITIVE_INFINITY, figures.ratio());
    }

    @Test
    void anythingElseIsNoResult()
    {
        assertEquals(Optional.empty(), ResultFigures.parse("# rdma4j perf send_lat: RC, 1 QP(s), ..."));
        assertEquals(Optional.empty(), ResultFigures.parse("no result"));
        assertEquals(Optional.empty(), ResultFigures.parse("perf: the peer closed the control connection"));
    }
}
