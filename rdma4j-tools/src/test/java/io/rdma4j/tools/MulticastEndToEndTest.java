package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * mckey between real processes: each child runs {@link Main} in its own JVM on its own loopback
 * address, so each owns UDP 4791 there. Needs the software device (rdma4j-soft) on the class path.
 */
class MulticastEndToEndTest
{
    private static final int COUNT = 200;

    private final List<RoleProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(RoleProcess::destroy);
    }

    private RoleProcess start(final String role, final String address, final List<String> args) throws IOException
    {
        final RoleProcess child = RoleProcess.start(role, address, args, System.out::println);
        children.add(child);
        return child;
    }

    private static List<String> mckey(final String address, final String... extra)
    {
        final List<String> args = new ArrayList<>(List.of("mckey", "-m", TestNet.group(7, 1), "-b", address,
            "-C", Integer.toString(COUNT), "--delay-ms", "0", "--timeout", "30"));
        args.addAll(List.of(extra));
        return args;
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldDeliverEveryMessageToEveryReceiverAndNoneToTheSendOnlyMember() throws Exception
    {
        final List<RoleProcess> receivers = new ArrayList<>();
        for (int i = 1; i <= 3; i++)
        {
            receivers.add(start("receiver-" + i, TestNet.host(20 + i), mckey(TestNet.host(20 + i))));
        }
        final RoleProcess member = start("send-only", TestNet.host(24),
            mckey(TestNet.host(24), "-o", "--expect", "0", "--stop-on-stdin"));
        final List<CompletableFuture<Boolean>> joins = new ArrayList<>();
        receivers.forEach(r -> joins.add(r.joined()));
        joins.add(member.joined());
        CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        joins.forEach(j -> assertTrue(j.join(), "every member prints 'joined' before the sender starts"));

        final RoleProcess sender =
            start("sender", TestNet.host(20), mckey(TestNet.host(20), "-s", "--interval-us", "20"));

        assertEquals(0, sender.await(60, TimeUnit.SECONDS), "sender exit status");
        assertTrue(sender.lines().contains("initiating data transfers"));
        for (final RoleProcess receiver : receivers)
        {
            assertEquals(0, receiver.await(60, TimeUnit.SECONDS), receiver.role() + " exit status");
            assertEquals(COUNT, receiver.summaryValue("unique"), receiver.role() + " unique");
            assertEquals(0, receiver.summaryValue("missing"), receiver.role() + " missing");
            assertEquals(0, receiver.summaryValue("duplicates"), receiver.role() + " duplicates");
            assertTrue(receiver.summaryValue("p50_us") >= 0, receiver.role() + " has latencies");
            assertTrue(receiver.lines().contains("data transfers complete"));
        }
        member.closeStdin();
        assertEquals(0, member.await(30, TimeUnit.SECONDS), "send-only member exit status");
        assertEquals(0, member.summaryValue("received"), "a send-only member is not attached: it gets nothing");
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldRunTheWholeDemoInOneCommand() throws Exception
    {
        final Path histograms = Files.createTempDirectory("demo-histograms");
        final String receivers = TestNet.host(31) + "," + TestNet.host(32) + "," + TestNet.host(33);
        final RoleProcess demo = start("demo", "-", List.of("demo", "-C", Integer.toString(COUNT),
            "-m", TestNet.group(7, 2), "--sender", TestNet.host(30), "--receivers", receivers,
            "--member", TestNet.host(34),
            "--timeout", "30", "--histogram", histograms.resolve("demo").toString()));

        assertEquals(0, demo.await(150, TimeUnit.SECONDS), "demo exit status");
        assertTrue(demo.lines().stream().anyMatch(l -> l.startsWith("demo: PASS")));
        // --histogram: each receiver's latencies, one per message, in HdrHistogram's log
        for (int i = 1; i <= 3; i++)
        {
            final Histogram latencies = (Histogram)new HistogramLogReader(
                histograms.resolve("demo-receiver-" + i + ".hlog").toFile()).nextIntervalHistogram();
            assertEquals(COUNT, latencies.getTotalCount(), "receiver " + i);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldRefuseAMessageLargerThanTheActiveMtu() throws Exception
    {
        final RoleProcess mckey = start("big", TestNet.host(40), List.of("mckey", "-m", TestNet.group(7, 3),
            "-b", TestNet.host(40),
            "-S", "5000", "-C", "1", "--delay-ms", "0", "--timeout", "10"));

        assertEquals(256 - 22, mckey.await(30, TimeUnit.SECONDS), "mckey returns -EINVAL from main");
        assertTrue(mckey.lines().stream().anyMatch(l -> l.startsWith("mckey: message_size 5000 is larger than active mtu")));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldTimeOutAReceiverThatGetsNothing() throws Exception
    {
        final RoleProcess mckey = start("lonely", TestNet.host(42), List.of("mckey", "-m", TestNet.group(7, 5), "-b",
            TestNet.host(42), "-C", "5", "--delay-ms", "0", "--timeout", "2"));

        assertEquals(256 - 110, mckey.await(45, TimeUnit.SECONDS), "mckey returns -ETIMEDOUT from main");
        assertEquals(5, mckey.summaryValue("missing"));
    }
}
