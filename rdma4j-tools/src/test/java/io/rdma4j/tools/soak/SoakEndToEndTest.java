package io.rdma4j.tools.soak;

import io.rdma4j.testing.TestNet;
import io.rdma4j.tools.ToolProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Short soaks, each in a JVM of its own, that hold a cycle to what it must leave behind: the same
 * file descriptors and threads it started with and, for attach, a live heap that has not grown by
 * anything near an object per cycle. A socket, selector, thread or table entry left per attach, join or
 * connection fails them. The long runs (10^6 and 10^5 cycles) are the same commands with a larger
 * {@code -n}, outside the suite. Addresses are the test JVM's own ({@link TestNet}).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SoakEndToEndTest
{
    private static final Pattern CHANGE = Pattern.compile(
        "heap (\\d+) -> (\\d+) KiB.*fds (\\d+) -> (\\d+), threads (\\d+) -> (\\d+)");
    private static final Pattern CHECKPOINT = Pattern.compile("cycle \\d+: heap (\\d+) KiB");
    /** Well under one 16-byte object per cycle for the cycle counts below. */
    private static final long HEAP_SLACK_KIB = 96;

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    private ToolProcess start(final String role, final List<String> args, final String readyPrefix) throws IOException
    {
        final ToolProcess child = ToolProcess.start(role, args, line -> line.startsWith(readyPrefix),
            Map.of("RDMA4J_SOFT_ADDRESS", TestNet.host(171)));
        children.add(child);
        return child;
    }

    /**
     * @param heapToo false where live heap legitimately grows for a while: a connection's state is
     *                kept through its timewait, and join/leave state is released by the CM thread, which
     *                a loaded machine lets fall behind (a run under another build saw +703 KiB over 2700
     *                joins); their heap is flat only over runs longer than a test's (rdma4j soak, 10^6).
     */
    private static void assertFlat(final ToolProcess child, final String name, final boolean heapToo)
        throws InterruptedException
    {
        assertEquals(0, child.await(240, TimeUnit.SECONDS), name + " exit status; its output: " + child.lines());
        final String summary = child.lines().stream().filter(l -> l.startsWith("soak " + name + ": ") &&
            l.contains(" cycles in ")).findFirst().orElseThrow(() -> new AssertionError("no summary: " + child.lines()));
        final Matcher m = CHANGE.matcher(summary);
        assertTrue(m.find(), summary);
        assertEquals(m.group(3), m.group(4), "open file descriptors before and after: " + summary);
        assertEquals(m.group(5), m.group(6), "threads before and after: " + summary);
        if (heapToo)
        {
            final long growth = heapGrowthBesideTheLargestStep(child.lines());
            assertTrue(growth < HEAP_SLACK_KIB, "live heap grew by " + growth + " KiB over the checkpoints (the " +
                "largest single step aside): " + child.lines());
        }
    }

    /**
     * A leak grows the live heap at every checkpoint; the JVM and the device's own threads may keep some
     * hundreds of KiB more from one moment on, whatever the cycle (a run under another build saw one step
     * of +700 KiB between the last two of ten checkpoints, the nine others flat). So the growth counted is
     * the checkpoints' total less their largest single step.
     *
     * @param lines the soak's output.
     * @return KiB of live heap gained from the first checkpoint to the last, less the largest step.
     */
    private static long heapGrowthBesideTheLargestStep(final List<String> lines)
    {
        final List<Long> heap = new ArrayList<>();
        for (final String line : lines)
        {
            final Matcher m = CHECKPOINT.matcher(line);
            if (m.find())
            {
                heap.add(Long.parseLong(m.group(1)));
            }
        }
        assertTrue(heap.size() >= 3, "checkpoints: " + lines);
        long largestStep = 0;
        for (int i = 1; i < heap.size(); i++)
        {
            largestStep = Math.max(largestStep, heap.get(i) - heap.get(i - 1));
        }
        return heap.getLast() - heap.getFirst() - largestStep;
    }

    @Test
    void shouldLeaveNothingBehindAfterAttachAndDetach() throws Exception
    {
        final ToolProcess soak = start("attach", List.of("soak", "attach", "-n", "20000"), "soak attach: start");
        assertFlat(soak, "attach", true);
    }

    @Test
    void shouldLeaveNothingBehindAfterJoinAndLeave() throws Exception
    {
        final ToolProcess soak = start("join", List.of("soak", "join", "-n", "3000", "-b", TestNet.host(172),
            "-m", TestNet.group(0, 172)), "soak join: start");
        assertFlat(soak, "join", false);
    }

    @Test
    void shouldLeaveNothingBehindAfterConnectAndDisconnect() throws Exception
    {
        final ToolProcess server = start("server", List.of("soak", "server", "-n", "300", "-b", TestNet.host(173),
            "-p", "7473"), "soak server: listening on");
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        final ToolProcess client = start("connect", List.of("soak", "connect", "-n", "300", "-s", TestNet.host(173),
            "-b", TestNet.host(174), "-p", "7473"), "soak connect: start");
        assertFlat(client, "connect", false);
        assertFlat(server, "server", false);
    }
}
