package io.rdma4j.bench.grpc;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bench-grpc with tiny counts over NIO and the software device, its four processes on this JVM's own loopback
 * addresses: a row per transport with positive figures (the driver fails a row whose client reports other counts
 * of calls, messages or bytes than it asked for), NIO's ratios 1 (it is the reference without epoll) and the
 * rdma4j row's its figures over NIO's. No figure is judged.
 */
@Timeout(300)
class GrpcBenchTest
{
    private static final Pattern ROW = Pattern.compile(
        "(.{44}) +([\\d.]+) +([\\d.]+) +([\\d.]+) +(\\d+) +([\\d.]+) +([\\d.]+) +([\\d.]+)");

    @Test
    void shouldPrintARowPerTransportWithFiguresAndRatiosAgainstNio()
    {
        final String address = TestNet.address(TestNet.nextSubnet(), 1).getHostAddress();
        final String network = address.substring(0, address.lastIndexOf('.'));
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final int status = new CommandLine(new GrpcBench(out)).execute("-n", "200", "--warmup", "100",
            "--stream-warmup", "500", "--stream", "3000", "--transports", "nio,rdma-polling", "--network", network,
            "--first-host", "1", "--timeout", "60");
        final String text = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertEquals(0, status, "every row has its figures:\n" + text);
        assertTrue(text.startsWith("# machine: cpu "), "the machine line heads the output:\n" + text);
        assertTrue(text.contains("# x = figure / nio's"), "NIO is the reference without epoll:\n" + text);
        assertTrue(text.lines().anyMatch(l -> l.startsWith("# done, load ")), "the load at the end:\n" + text);

        final double[] nio = figures(text, "Netty NIO, TCP loopback");
        for (int i = 4; i < 7; i++)
        {
            assertEquals(1.0, nio[i], 0.0, "NIO's ratio of column " + i + " over itself");
        }
        final double[] rdma = figures(text, "rdma4j soft RC, progress polling (default)");
        for (int i = 1; i < 4; i++)
        {
            // the ratio is taken before rounding, the figures printed after: allow the rounding
            assertEquals(rdma[i] / nio[i], rdma[i + 3], rdma[i + 3] * 0.02 + 0.01, "ratio of column " + i);
        }
    }

    @Test
    void shouldRefuseAnExecutorThatIsNeither()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final int status = new CommandLine(new GrpcBench(new PrintStream(bytes, true, StandardCharsets.UTF_8)))
            .execute("--executor", "pool");
        assertEquals(2, status);
        assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("--executor is direct or default, not 'pool'"),
            bytes.toString(StandardCharsets.UTF_8));
    }

    /**
     * @return first ms, p50, p99, stream/s and their three ratios of the transport's row, each checked positive.
     */
    private static double[] figures(final String text, final String label)
    {
        final List<Matcher> rows = text.lines().map(ROW::matcher).filter(Matcher::matches)
            .filter(m -> m.group(1).strip().equals(label)).toList();
        assertEquals(1, rows.size(), label + " has one row in\n" + text);
        final double[] figures = new double[7];
        for (int i = 0; i < figures.length; i++)
        {
            figures[i] = Double.parseDouble(rows.getFirst().group(i + 2));
            assertTrue(figures[i] > 0, label + " column " + i + " positive: " + rows.getFirst().group());
        }
        return figures;
    }
}
