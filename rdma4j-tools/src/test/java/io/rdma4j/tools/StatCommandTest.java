package io.rdma4j.tools;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rdma4j stat reads, from another process, the counters a running device keeps in its mapped file, with
 * its QPs, groups and connection manager ids; a file left by a process that was killed is removed. Addresses
 * Addresses and groups are the test JVM's own ({@link TestNet}); port 17445 is this class's.
 */
class StatCommandTest
{
    private ToolProcess receiver;
    private ToolProcess server;

    @AfterEach
    void killLeftovers()
    {
        if (receiver != null)
        {
            receiver.destroy();
        }
        if (server != null)
        {
            server.destroy();
        }
    }

    private static String stat(final Path dir, final String... extra)
    {
        final StringWriter text = new StringWriter();
        final var cl = Main.commandLine();
        cl.setOut(new PrintWriter(text, true));
        final String[] args = new String[extra.length + 3];
        args[0] = "stat";
        args[1] = "--dir";
        args[2] = dir.toString();
        System.arraycopy(extra, 0, args, 3, extra.length);
        cl.execute(args);
        return text.toString();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldShowAnotherProcesssDeviceLiveAndForgetItOnceKilled(@TempDir final Path dir) throws Exception
    {
        receiver = ToolProcess.start("receiver", List.of("mckey", "-m", TestNet.group(44, 50), "-b", TestNet.host(5, 1),
            "-C", "5", "--delay-ms", "0", "--timeout", "60"), line -> line.startsWith("mckey: joined"),
            Map.of("RDMA4J_STAT_DIR", dir.toString()));
        assertTrue(receiver.ready().get(60, TimeUnit.SECONDS), "the receiver joined: " + receiver.lines());

        // the describe section is written when the device opens and then once a second: wait for the group
        String shown = stat(dir, "-a");
        for (int i = 0; i < 100 && !shown.contains("group " + TestNet.group(44, 50) + " 1 QP attached"); i++)
        {
            TimeUnit.MILLISECONDS.sleep(100);
            shown = stat(dir, "-a");
        }
        assertTrue(shown.contains(" " + TestNet.host(5, 1) + " pid " + receiver.pid() + " up "), shown);
        assertTrue(shown.matches("(?s).*\\n    rcvd_pkts +\\d+\\n.*"), "every counter with -a: " + shown);
        // grouped: the device's, its link's and the connection manager's, each under its heading
        assertTrue(section(shown, "device counters").stream().anyMatch(l -> l.matches("sent_pkts +\\d+")), shown);
        assertTrue(section(shown, "link counters").stream().anyMatch(l -> l.matches("udp_send_failures +\\d+")),
            shown);
        assertTrue(section(shown, "cm counters").stream().anyMatch(l -> l.matches("cm_handled +\\d+")), shown);
        assertTrue(section(shown, "qps").stream().anyMatch(l -> l.matches("qp 0x[0-9a-f]{6} UD RTS.*")), shown);
        assertTrue(shown.matches("(?s).*\\n    qp 0x[0-9a-f]{6} UD RTS.*"), "its UD QP: " + shown);
        assertTrue(shown.contains("group " + TestNet.group(44, 50) + " 1 QP attached"), shown);

        receiver.destroy();
        final String after = stat(dir);
        assertEquals("no rdma4j device is running (files in " + dir + ")\n", after);
        try (var files = Files.list(dir))
        {
            assertFalse(files.findAny().isPresent(), "the killed process's file is removed");
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldShowAnotherProcesssSubscriptionBesideItsDevice(@TempDir final Path dir) throws Exception
    {
        final String group = TestNet.group(44, 51);
        receiver = ToolProcess.start("subscriber", List.of("rmcast_sub", "-b", TestNet.host(5, 21), "-m", group),
            line -> line.startsWith("rmcast_sub: joined"),
            Map.of("RDMA4J_STAT_DIR", dir.toString(), "RDMA4J_SOFT_ADDRESS", TestNet.host(5, 21)));
        assertTrue(receiver.ready().get(60, TimeUnit.SECONDS), "the subscriber joined: " + receiver.lines());

        // reliable multicast's file: its own counters and gauges under the subscription's heading, and its line
        final String shown = awaitStat(dir, Pattern.compile("subscription group " + Pattern.quote(group) + " on " +
            Pattern.quote(TestNet.host(5, 21)) + " join LIVE, up to \\d+ sessions"));
        assertTrue(shown.matches("(?s)(.*\\n)?rmcast-sub-\\d+ " + Pattern.quote(group) + " pid " + receiver.pid() +
            " up .*"), shown);
        assertTrue(stat(dir, "-a").contains("  subscription counters\n"), shown);
        assertTrue(section(stat(dir, "-a"), "subscription counters").stream()
            .anyMatch(l -> l.matches("fragments_received +0")), shown);
        assertTrue(section(stat(dir, "-a", "subscription"), "subscription counters").stream()
            .anyMatch(l -> l.matches("images +0")), "the group named in full picks its counters: " + shown);
        assertTrue(section(shown, "subscriptions").stream().anyMatch(l -> l.startsWith("subscription group ")), shown);
        // and the device the subscription runs on, in a file of its own
        assertTrue(shown.contains(" " + TestNet.host(5, 21) + " pid " + receiver.pid() + " up "), shown);

        receiver.destroy();
        assertEquals("no rdma4j device is running (files in " + dir + ")\n", stat(dir));
    }

    @Test
    void shouldRefuseADirectoryOthersMayWriteWithAClearError(@TempDir final Path tmp) throws Exception
    {
        final Path dir = Files.createDirectory(tmp.resolve("rdma4j-stat"));
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        final StringWriter err = new StringWriter();
        final var cl = Main.commandLine();
        cl.setOut(new PrintWriter(new StringWriter(), true));
        cl.setErr(new PrintWriter(err, true));
        assertEquals(2, cl.execute("stat", "--dir", dir.toString()));
        assertEquals("rdma4j stat: " + dir + " is rwxrwxrwx, not rwx------: other users could change what is in it, " +
            "so it is not used for rdma4j stat files\n", err.toString());
    }

    /**
     * @return the lines under a device's heading ({@code "  link counters"}, {@code "  qps"}), trimmed: those
     *         indented further, up to the next heading or device.
     */
    private static List<String> section(final String shown, final String heading)
    {
        final List<String> lines = new java.util.ArrayList<>();
        boolean in = false;
        for (final String line : shown.lines().toList())
        {
            if (!line.startsWith("    "))
            {
                in = line.equals("  " + heading);
            }
            else if (in)
            {
                lines.add(line.trim());
            }
        }
        return lines;
    }

    /**
     * @return what {@code rdma4j stat} shows once a line matches, asked again until then (60 s at most): the
     * describe section is rewritten once a second.
     */
    private static String awaitStat(final Path dir, final Pattern line)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String shown = stat(dir);
        while (!shown.lines().anyMatch(l -> line.matcher(l.trim()).matches()))
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("rdma4j stat never showed " + line + "; last:\n" + shown);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            shown = stat(dir);
        }
        return shown;
    }

    private static void expectAndAck(final EventChannel channel, final CmEventType type) throws InterruptedException
    {
        final CmEvent event = channel.getEvent(30, TimeUnit.SECONDS);
        assertNotNull(event, "no " + type + " within 30 s");
        assertEquals(type, event.type(), () -> "status " + event.status());
        event.ack();
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldShowAnotherProcesssCmIdsAsTheyConnectAndGo(@TempDir final Path dir) throws Exception
    {
        // a persistent rping server: its listener stays while connections come and go
        server = ToolProcess.start("server",
            List.of("rping", "-s", "-P", "-d", "-a", TestNet.host(5, 11), "-p", "17445"),
            line -> line.startsWith("listening on "), Map.of("RDMA4J_STAT_DIR", dir.toString()));
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server listened: " + server.lines());
        final String serverAddress = Pattern.quote(TestNet.host(5, 11));
        final Pattern listener =
            Pattern.compile("cm id \\d+ TCP LISTEN local " + serverAddress + ":17445 backlog 0/\\d+");
        awaitStat(dir, listener);

        // this process connects and holds the connection while the server's file is read
        try (EventChannel channel = RdmaCm.createEventChannel())
        {
            final CmId client = channel.createId(null, PortSpace.TCP);
            client.resolveAddr(new InetSocketAddress(InetAddress.getByName(TestNet.host(5, 12)), 0),
                new InetSocketAddress(InetAddress.getByName(TestNet.host(5, 11)), 17445), 5000);
            expectAndAck(channel, CmEventType.ADDR_RESOLVED);
            client.resolveRoute(5000);
            expectAndAck(channel, CmEventType.ROUTE_RESOLVED);
            final CompletionQueue cq = client.verbs().createCq(16, null, 0);
            client.createQp(null, QpInitAttr.of(QpType.RC, cq, QpCap.of(8, 8)));
            client.connect(null);
            expectAndAck(channel, CmEventType.ESTABLISHED);
            final int clientPort = client.localAddress().getPort();

            final Pattern connected = Pattern.compile("cm id \\d+ TCP CONNECT \\(ESTABLISHED\\) local " +
                serverAddress + ":17445 remote " + Pattern.quote(TestNet.host(5, 12)) + ":" + clientPort +
                " qp 0x[0-9a-f]{6}");
            final String established = awaitStat(dir, connected);
            assertTrue(established.lines().anyMatch(l -> listener.matcher(l.trim()).matches()), established);
            // the server's connection manager handled the REQ and the RTU, counted on its device; its link sent
            // the REP by UDP or through the same-host inbox
            final Pattern handled = Pattern.compile("cm_handled +[1-9]\\d*");
            final String counted = awaitStat(dir, handled);
            assertTrue(section(counted, "cm counters").stream().anyMatch(l -> handled.matcher(l).matches()), counted);
            assertTrue(section(counted, "link counters").stream()
                .anyMatch(l -> l.matches("(udp|shm)_sent_pkts +[1-9]\\d*")), counted);
            assertTrue(section(counted, "cm ids").stream().anyMatch(l -> connected.matcher(l).matches()), counted);

            client.disconnect();
            expectAndAck(channel, CmEventType.DISCONNECTED);
            // the server destroys the connection's id on DISCONNECTED; its listener stays
            final String after = awaitStat(dir, listener);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            String shown = after;
            while (shown.contains("remote " + TestNet.host(5, 12) + ":" + clientPort))
            {
                assertTrue(System.nanoTime() < deadline, "the connection's id never went: " + shown);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                shown = stat(dir);
            }
            assertTrue(shown.lines().anyMatch(l -> listener.matcher(l.trim()).matches()), shown);
            client.destroyQp();
            cq.close();
            client.close();
        }
    }
}
