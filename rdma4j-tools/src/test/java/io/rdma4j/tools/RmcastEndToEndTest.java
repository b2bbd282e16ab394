package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rmcast_pub and rmcast_sub as processes: every message through 5 % loss, and a publisher killed with no
 * goodbye ends its session at the subscriber within the publisher timeout.
 */
class RmcastEndToEndTest
{
    private static final Map<String, String> LOSSY = Map.of("RDMA4J_SOFT_LOSS", "0.05", "RDMA4J_SOFT_LOSS_SEED", "42");

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    private ToolProcess start(final String role, final List<String> args, final String readyPrefix)
        throws Exception
    {
        // the device list's one device on the tool's own address, not the default 127.0.0.1 another build may hold
        final Map<String, String> environment = new java.util.HashMap<>(LOSSY);
        environment.put("RDMA4J_SOFT_ADDRESS", args.get(args.indexOf("-b") + 1));
        final ToolProcess child = ToolProcess.start(role, args, l -> l.startsWith(readyPrefix), environment);
        children.add(child);
        return child;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldDeliverEveryMessageThroughFivePercentLoss() throws Exception
    {
        final String group = TestNet.group(8, 1);
        final ToolProcess sub = start("sub", List.of("rmcast_sub", "-b", TestNet.host(8, 2), "-m", group, "-n",
            "2000"), "rmcast_sub: joined");
        assertTrue(sub.ready().get(60, TimeUnit.SECONDS), "the subscriber joined");
        final ToolProcess pub = start("pub", List.of("rmcast_pub", "-b", TestNet.host(8, 1), "-m", group, "-n",
            "2000"), "rmcast_pub: session");
        assertEquals(0, sub.await(90, TimeUnit.SECONDS), "subscriber: " + sub.lines());
        assertTrue(sub.lines().stream().anyMatch(l -> l.startsWith("rmcast_sub: delivered 2000 messages, 128000 " +
            "bytes, 0 fragments lost")), sub.lines().toString());
        assertEquals(0, pub.await(30, TimeUnit.SECONDS), "publisher: " + pub.lines());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldEndTheSessionOfAKilledPublisher() throws Exception
    {
        final String group = TestNet.group(8, 2);
        final ToolProcess sub = start("sub", List.of("rmcast_sub", "-b", TestNet.host(8, 4), "-m", group,
            "--idle-exit", "1"), "rmcast_sub: joined");
        assertTrue(sub.ready().get(60, TimeUnit.SECONDS), "the subscriber joined");
        final ToolProcess pub = start("pub", List.of("rmcast_pub", "-b", TestNet.host(8, 3), "-m", group, "-n", "0"),
            "rmcast_pub: session");
        assertTrue(sub.awaitLines(l -> l.contains(" available at "), 1, 60, TimeUnit.SECONDS), sub.lines().toString());
        assertTrue(sub.awaitLines(l -> l.startsWith("sub: ") && !l.startsWith("sub: 0 msg/s"), 1, 60, TimeUnit.SECONDS),
            "messages flowed: " + sub.lines());
        pub.destroy();
        final long killed = System.nanoTime();
        // heartbeats stop: the session goes within the publisher timeout (2 s) and a poll, whatever it had
        assertTrue(sub.awaitLines(l -> l.contains(" gone at "), 1, 30, TimeUnit.SECONDS), sub.lines().toString());
        final long goneMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        assertTrue(goneMs < 10_000, "gone " + goneMs + " ms after the kill");
        sub.await(30, TimeUnit.SECONDS);
        assertTrue(sub.lines().stream().anyMatch(l -> l.startsWith("rmcast_sub: delivered ")), sub.lines().toString());
    }
}
