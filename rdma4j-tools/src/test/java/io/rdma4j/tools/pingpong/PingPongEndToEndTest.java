package io.rdma4j.tools.pingpong;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each pingpong tool as two processes on one machine ({@link PingPongPair}), each with its own soft
 * device on its own loopback address; the lines each prints are pinned to rdma-core's.
 * <p>
 * Addresses and TCP ports of the test JVM's own ({@link TestNet}) keep these clear of the other
 * end-to-end tests and of concurrent builds; the default-command-line test runs rdma4j's literal default
 * command lines, so it needs 127.0.0.1, 127.0.0.2 and TCP 18515, and takes them under
 * {@link TestNet#lockDefaultAddresses()}.
 */
class PingPongEndToEndTest
{
    private static final String LOCAL = "  local address:  LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}%s GID " +
        "::ffff:127\\.\\d+\\.\\d+\\.\\d+";
    private static final Pattern REMOTE = Pattern.compile(
        "  remote address: LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID ::ffff:127\\.\\d+\\.\\d+\\.\\d+");
    private static final Pattern BYTES = Pattern.compile("\\d+ bytes in \\d+\\.\\d\\d seconds = [\\d.]+ Mbit/sec");
    private static final Pattern INJECTED_LOSS = Pattern.compile(
        "injected loss: (\\d+) of \\d+ datagrams sent were dropped; retransmitted_pkts (\\d+), .*");
    private static final Pattern WARM_UP =
        Pattern.compile("warm-up: 30 iters in \\d+\\.\\d\\d seconds = [\\d.]+ usec/iter");
    private static final Pattern ITERS = Pattern.compile("\\d+ iters in \\d+\\.\\d\\d seconds = [\\d.]+ usec/iter");

    private final PingPongPair pair = PingPongPair.plain();

    /**
     * One tool between two addresses on one TCP port, with the options both sides get and the
     * bytes the tool reports (size × iterations × 2: each message goes both ways).
     */
    enum Run
    {
        /** ud_pingpong's default size, 1024. */
        UD("ud_pingpong", 101, TestNet.tcpPort(1), 1024 * 500 * 2, "-n", "500"),
        UD_ON_EVENTS_WITH_THE_BUFFER_CHECK("ud_pingpong", 103, TestNet.tcpPort(2), 512 * 200 * 2,
            "-n", "200", "-s", "512", "-e", "-c"),
        RC("rc_pingpong", 105, TestNet.tcpPort(3), 2500 * 50 * 2, "-n", "50", "-s", "2500"),
        RC_ON_EVENTS_WITH_THE_BUFFER_CHECK("rc_pingpong", 107, TestNet.tcpPort(4), 9000 * 50 * 2,
            "-n", "50", "-s", "9000", "-e", "-c"),
        UC("uc_pingpong", 109, TestNet.tcpPort(5), 2500 * 50 * 2, "-n", "50", "-s", "2500"),
        RC_QPS_SHARING_AN_SRQ("srq_pingpong", 111, TestNet.tcpPort(6), 512 * 100 * 2,
            "-n", "100", "-s", "512", "-q", "4");

        final String tool;
        final String serverAddress;
        final String clientAddress;
        final int tcpPort;
        final long bytes;
        final List<String> options;

        /**
         * @param serverHost the server's host number in {@link TestNet#host(int)}; the client takes the next.
         */
        Run(final String tool, final int serverHost, final int tcpPort, final long bytes, final String... options)
        {
            this.tool = tool;
            this.serverAddress = TestNet.host(serverHost);
            this.clientAddress = TestNet.host(serverHost + 1);
            this.tcpPort = tcpPort;
            this.bytes = bytes;
            this.options = List.of(options);
        }

        List<String> server()
        {
            return side(serverAddress);
        }

        List<String> client()
        {
            final List<String> args = side(clientAddress);
            args.add(serverAddress);
            return args;
        }

        private List<String> side(final String address)
        {
            final List<String> args = new ArrayList<>(List.of(tool, "--address", address, "-p",
                Integer.toString(tcpPort)));
            args.addAll(options);
            return args;
        }

        int qps()
        {
            return options.contains("-q") ? Integer.parseInt(options.get(options.indexOf("-q") + 1)) : 1;
        }
    }

    @AfterEach
    void killLeftovers()
    {
        pair.close();
    }

    /**
     * The report rdma-core's tools print: local and remote addresses, one per QP, then the rate.
     *
     * @param localSeparator what comes between PSN and GID on the local address line: ud_pingpong
     *                       prints ":", the others ",".
     */
    private static void checkReport(final List<String> lines, final int qps, final String localSeparator)
    {
        final Pattern local = Pattern.compile(String.format(LOCAL, localSeparator));
        assertEquals(2 * qps + 2, lines.size(), "lines: " + lines);
        for (int i = 0; i < qps; i++)
        {
            assertTrue(local.matcher(lines.get(i)).matches(), lines.get(i));
            assertTrue(REMOTE.matcher(lines.get(qps + i)).matches(), lines.get(qps + i));
        }
        assertTrue(BYTES.matcher(lines.get(2 * qps)).matches(), lines.get(2 * qps));
        assertTrue(ITERS.matcher(lines.get(2 * qps + 1)).matches(), lines.get(2 * qps + 1));
    }

    private static String localSeparator(final String tool)
    {
        return "ud_pingpong".equals(tool) ? ":" : ",";
    }

    @ParameterizedTest
    @EnumSource(Run.class)
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldPingPongAndReportAsRdmaCoreDoes(final Run run) throws Exception
    {
        final PingPongPair.Outputs outputs = pair.run(run.server(), run.client());

        checkReport(outputs.server(), run.qps(), localSeparator(run.tool));
        checkReport(outputs.client(), run.qps(), localSeparator(run.tool));
        final String rate = outputs.client().get(2 * run.qps());
        assertEquals(run.bytes + " bytes", rate.substring(0, rate.indexOf(" in")));
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void shouldRunTheDefaultRcCommandLinesOnOneMachine() throws Exception
    {
        // Exactly `rdma4j rc_pingpong -n 1000 -s 65536` and `rdma4j rc_pingpong -n 1000 -s 65536 127.0.0.1`:
        // the server takes 127.0.0.1, the client moves itself to a free 127.0.0.x.
        final List<String> client;
        try (AutoCloseable defaults = TestNet.lockDefaultAddresses())
        {
            client = pair.run(List.of("rc_pingpong", "-n", "1000", "-s", "65536"),
                List.of("rc_pingpong", "-n", "1000", "-s", "65536", "127.0.0.1")).client();
        }

        checkReport(client, 1, ",");
        assertTrue(!client.getFirst().endsWith("GID ::ffff:127.0.0.1"), client.getFirst());
        assertTrue(client.get(1).endsWith("GID ::ffff:127.0.0.1"), client.get(1));
        assertEquals("131072000 bytes", client.get(2).substring(0, client.get(2).indexOf(" in")));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldTimeOnlyTheExchangesAfterTheWarmUp() throws Exception
    {
        // the server warms up for 30 exchanges and times 20; the client, as rdma-core's tool would, times all
        // 50: both finish only if the warm-up's exchanges are real ones of the same stream
        final String port = Integer.toString(TestNet.tcpPort(8));
        final List<String> server = List.of("rc_pingpong", "--address", TestNet.host(115), "-p", port,
            "-s", "64", "--warmup", "30", "-n", "20");
        final List<String> client = List.of("rc_pingpong", "--address", TestNet.host(116), "-p", port,
            "-s", "64", "-n", "50", TestNet.host(115));

        final PingPongPair.Outputs outputs = pair.run(server, client);

        final List<String> s = outputs.server();
        assertEquals(5, s.size(), "addresses, the warm-up's rate, then the timed rate: " + s);
        assertTrue(WARM_UP.matcher(s.get(2)).matches(), s.get(2));
        assertEquals("2560 bytes", s.get(3).substring(0, s.get(3).indexOf(" in")));
        assertTrue(s.get(4).startsWith("20 iters in "), s.get(4));
        checkReport(outputs.client(), 1, ",");
        assertTrue(outputs.client().get(3).startsWith("50 iters in "), outputs.client().get(3));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldPingPongOverRcBetweenProcessesOnALossyNetwork() throws Exception
    {
        // each process's device drops a tenth of what it sends; RC recovers, and -c checks the data
        final List<String> options = List.of("-n", "200", "-s", "4096", "-m", "1024", "-c");
        final String port = Integer.toString(TestNet.tcpPort(7));
        final List<String> server = new ArrayList<>(List.of("rc_pingpong", "--address", TestNet.host(113), "-p", port));
        server.addAll(options);
        final List<String> client = new ArrayList<>(List.of("rc_pingpong", "--address", TestNet.host(114), "-p", port));
        client.addAll(options);
        client.add(TestNet.host(113));
        final PingPongPair.Outputs outputs;
        try (PingPongPair lossy = PingPongPair.withEnvironment(Map.of("RDMA4J_SOFT_LOSS", "0.1")))
        {
            outputs = lossy.run(server, client);
        }
        long dropped = 0;
        long retransmitted = 0;
        for (final List<String> output : List.of(outputs.server(), outputs.client()))
        {
            final List<String> report = new ArrayList<>();
            for (final String line : output)
            {
                final Matcher m = INJECTED_LOSS.matcher(line);
                if (m.matches())
                {
                    dropped += Long.parseLong(m.group(1));
                    retransmitted += Long.parseLong(m.group(2));
                }
                else if (!line.contains("SoftDevices") && !line.contains("rdma4j.soft.loss"))
                {
                    // everything else is the tool's usual report; the device registry's warning is not
                    report.add(line);
                }
            }
            checkReport(report, 1, ",");
        }
        assertTrue(dropped > 0, "the devices dropped datagrams: " + outputs);
        assertTrue(retransmitted > 0, "RC retransmitted what was lost: " + outputs);
    }
}
