package io.rdma4j.examples;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reliable multicast example as bin/example runs it: a publisher and three subscribers, four JVMs, 5 %
 * of every device's datagrams dropped (its default), every message delivered in order to each subscriber.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReliableMulticastExampleTest
{
    @Test
    void shouldDeliverEveryMessageInOrderToThreeSubscriberProcessesAtFivePercentLoss() throws Exception
    {
        final String[] hosts = {TestNet.host(1, 71), TestNet.host(1, 72), TestNet.host(1, 73), TestNet.host(1, 74)};
        try (ExampleProcess demo = ExampleProcess.start(ReliableMulticast.class, "3000", TestNet.group(1, 71),
            hosts[0], hosts[1], hosts[2], hosts[3]))
        {
            assertEquals(0, demo.awaitExit(170, TimeUnit.SECONDS), "ReliableMulticast: " + demo.lines());
            for (int i = 1; i < hosts.length; i++)
            {
                final String ok = "[" + hosts[i] + "] OK: delivered 3000 of 3000 in order";
                assertTrue(demo.lines().stream().anyMatch(l -> l.startsWith(ok)), ok + " in " + demo.lines());
            }
            assertTrue(demo.lines().stream().anyMatch(l -> l.contains("drops 0.05 of the datagrams")),
                "the loss was on: " + demo.lines());
            assertTrue(demo.lines().contains("all three subscribers got every message in order"), demo.lines().toString());
        }
    }
}
