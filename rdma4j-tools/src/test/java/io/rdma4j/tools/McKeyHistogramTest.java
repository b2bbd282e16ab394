package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * mckey --histogram: the receiver's one-way latencies, one value per message, in HdrHistogram's
 * standard log, whose percentiles are the ones its summary line prints. Addresses 127.44.4.x and
 * group 239.255.44.40 are this class's own.
 */
class McKeyHistogramTest
{
    private static final int COUNT = 25;
    private static final String GROUP = TestNet.group(44, 40);

    private final List<RoleProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(RoleProcess::destroy);
    }

    private RoleProcess start(final String role, final String address, final String... extra) throws IOException
    {
        final List<String> args = new ArrayList<>(List.of("mckey", "-m", GROUP, "-b", address,
            "-C", Integer.toString(COUNT), "--delay-ms", "0", "--timeout", "30"));
        args.addAll(List.of(extra));
        final RoleProcess child = RoleProcess.start(role, address, args, System.out::println);
        children.add(child);
        return child;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldWriteTheReceiversLatenciesAsAnHdrHistogramLog(@TempDir final Path dir) throws Exception
    {
        final Path log = dir.resolve("mckey.hlog");
        final RoleProcess receiver = start("receiver", TestNet.host(4, 1), "--histogram", log.toString());
        receiver.joined().get(60, TimeUnit.SECONDS);
        final RoleProcess sender = start("sender", TestNet.host(4, 2), "-s");
        assertEquals(0, sender.await(60, TimeUnit.SECONDS), "sender status; output: " + sender.lines());
        assertEquals(0, receiver.await(60, TimeUnit.SECONDS), "receiver status; output: " + receiver.lines());

        final HistogramLogReader reader = new HistogramLogReader(log.toFile());
        final Histogram latencies = (Histogram)reader.nextIntervalHistogram();
        assertNotNull(latencies, "the log holds the node's histogram");
        assertEquals("mckey.node0", latencies.getTag());
        assertEquals(COUNT, latencies.getTotalCount(), "one latency per message");
        assertEquals(receiver.summaryValue("p50_us"), latencies.getValueAtPercentile(50));
        assertEquals(receiver.summaryValue("max_us"), latencies.getMaxValue());
        assertNull(reader.nextIntervalHistogram(), "one receiving node, one histogram");
    }
}
