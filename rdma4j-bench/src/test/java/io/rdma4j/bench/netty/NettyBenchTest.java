package io.rdma4j.bench.netty;

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
 * bench-netty with tiny counts over NIO and the software device, its four processes on this JVM's own loopback
 * addresses: a row per transport with positive figures, NIO's ratios 1 (it is the reference without epoll) and the
 * rdma4j row's its figures over NIO's. No figure is judged.
 */
@Timeout(300)
class NettyBenchTest
{
    private static final Pattern ROW = Pattern.compile(
        "(.{44}) +([\\d.]+) +([\\d.]+) +(\\d+) +([\\d.]+) +([\\d.]+) +([\\d.]+)");

    @Test
    void shouldPrintARowPerTransportWithFiguresAndRatiosAgainstNio()
    {
        final String address = TestNet.address(TestNet.nextSubnet(), 1).getHostAddress();
        final String network = address.substring(0, address.lastIndexOf('.'));
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final int status = new CommandLine(new NettyBench(out)).execute("-n", "200", "--warmup", "100",
            "--connections", "2", "--window", "4", "--rate-warmup-ms", "200", "--rate-ms", "300", "--transports",
            "nio,rdma-polling", "--network", network, "--first-host", "1", "--timeout", "60");
        final String text = bytes.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertEquals(0, status, "every row has its figures:\n" + text);
        assertTrue(text.startsWith("# machine: cpu "), "the machine line heads the output:\n" + text);
        assertTrue(text.contains("# x = figure / nio's"), "NIO is the reference without epoll:\n" + text);

        final double[] nio = figures(text, "Netty NIO, TCP loopback");
        assertEquals(1.0, nio[3], 0.0, "NIO's p50 over itself");
        assertEquals(1.0, nio[4], 0.0, "NIO's p99 over itself");
        assertEquals(1.0, nio[5], 0.0, "NIO's rate over itself");
        final double[] rdma = figures(text, "rdma4j soft RC, progress polling (default)");
        for (int i = 0; i < 3; i++)
        {
            // the ratio is taken before rounding, the figures printed after: allow the rounding
            assertEquals(rdma[i] / nio[i], rdma[i + 3], rdma[i + 3] * 0.02 + 0.01, "ratio of column " + i);
        }
    }

    /**
     * @return p50, p99, req/s and their three ratios of the transport's row, each checked positive.
     */
    private static double[] figures(final String text, final String label)
    {
        final List<Matcher> rows = text.lines().map(ROW::matcher).filter(Matcher::matches)
            .filter(m -> m.group(1).strip().equals(label)).toList();
        assertEquals(1, rows.size(), label + " has one row in\n" + text);
        final double[] figures = new double[6];
        for (int i = 0; i < figures.length; i++)
        {
            figures[i] = Double.parseDouble(rows.getFirst().group(i + 2));
            assertTrue(figures[i] > 0, label + " column " + i + " positive: " + rows.getFirst().group());
        }
        return figures;
    }
}
