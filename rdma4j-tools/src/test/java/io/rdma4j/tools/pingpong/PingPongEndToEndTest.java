package io.rdma4j.tools.pingpong;

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
 * Each pingpong tool as two processes on one machine, server then client, each with its own soft
 * device on its own loopback address. The server is started first and the client only once the
 * server has printed its local address line (its TCP port is bound by then); no sleeps.
 * <p>
 * Addresses 127.0.0.1xx and TCP ports 186xx keep these clear of the other end-to-end tests; the
 * last test runs rdma4j's literal default command lines, so it needs 127.0.0.1, 127.0.0.2 and TCP
 * 18515 free.
 */
class PingPongEndToEndTest
{
    private static final Pattern LOCAL = Pattern.compile(
        "  local address:  LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}[,:] GID ::ffff:127\\.0\\.0\\.\\d+");
    private static final Pattern REMOTE = Pattern.compile(
        "  remote address: LID 0x0000, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID ::ffff:127\\.0\\.0\\.\\d+");
    private static final Pattern BYTES = Pattern.compile("\\d+ bytes in \\d+\\.\\d\\d seconds = [\\d.]+ Mbit/sec");
    private static final Pattern INJECTED_LOSS = Pattern.compile(
        "injected loss: (\\d+) of \\d+ datagrams sent were dropped; retransmitted_pkts (\\d+), .*");
    private static final Pattern ITERS = Pattern.compile("\\d+ iters in \\d+\\.\\d\\d seconds = [\\d.]+ usec/iter");

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    private List<String> run(final List<String> server, final List<String> client) throws Exception
    {
        final List<List<String>> outputs = run(server, client, Map.of());
        checkReport(outputs.get(0), client.contains("-q") ? qps(client) : 1);
        checkReport(outputs.get(1), client.contains("-q") ? qps(client) : 1);
        return outputs.get(1);
    }

    /**
     * @return the server's and the client's output, both having exited 0.
     */
    private List<List<String>> run(final List<String> server, final List<String> client,
        final Map<String, String> environment) throws Exception
    {
        final ToolProcess s = start("server", server, environment);
        assertTrue(s.ready().get(60, TimeUnit.SECONDS), "the server printed no local address: " + s.lines());
        final ToolProcess c = start("client", client, environment);
        final int clientStatus = c.await(120, TimeUnit.SECONDS);
        assertEquals(0, clientStatus, "client exit status; its output: " + c.lines());
        final int serverStatus = s.await(60, TimeUnit.SECONDS);
        assertEquals(0, serverStatus, "server exit status; its output: " + s.lines());
        return List.of(s.lines(), c.lines());
    }

    private static int qps(final List<String> args)
    {
        return Integer.parseInt(args.get(args.indexOf("-q") + 1));
    }

    private ToolProcess start(final String role, final List<String> args, final Map<String, String> environment)
        throws IOException
    {
        // the server prints its local address once its TCP port is bound
        final ToolProcess child = ToolProcess.start(role, args, line -> line.startsWith("  local address:"),
            environment);
        children.add(child);
        return child;
    }

    private static void checkReport(final List<String> lines, final int qps)
    {
        assertEquals(2 * qps + 2, lines.size(), "lines: " + lines);
        for (int i = 0; i < qps; i++)
        {
            assertTrue(LOCAL.matcher(lines.get(i)).matches(), lines.get(i));
            assertTrue(REMOTE.matcher(lines.get(qps + i)).matches(), lines.get(qps + i));
        }
        assertTrue(BYTES.matcher(lines.get(2 * qps)).matches(), lines.get(2 * qps));
        assertTrue(ITERS.matcher(lines.get(2 * qps + 1)).matches(), lines.get(2 * qps + 1));
    }

    private static List<String> args(final String tool, final String address, final int port, final String... rest)
    {
        final List<String> all = new ArrayList<>(List.of(tool, "--address", address, "-p", Integer.toString(port)));
        all.addAll(List.of(rest));
        return all;
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldPingPongOverUd() throws Exception
    {
        final List<String> client = run(args("ud_pingpong", "127.0.0.101", 18601, "-n", "500"),
            args("ud_pingpong", "127.0.0.102", 18601, "-n", "500", "127.0.0.101"));
        assertEquals("1024000 bytes", client.get(2).substring(0, client.get(2).indexOf(" in")));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldPingPongOverUdOnCompletionEventsWithTheBufferCheck() throws Exception
    {
        run(args("ud_pingpong", "127.0.0.103", 18602, "-n", "200", "-s", "512", "-e", "-c"),
            args("ud_pingpong", "127.0.0.104", 18602, "-n", "200", "-s", "512", "-e", "-c", "127.0.0.103"));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldPingPongOverRc() throws Exception
    {
        run(args("rc_pingpong", "127.0.0.105", 18603, "-n", "50", "-s", "2500"),
            args("rc_pingpong", "127.0.0.106", 18603, "-n", "50", "-s", "2500", "127.0.0.105"));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldPingPongOverRcOnCompletionEventsWithTheBufferCheck() throws Exception
    {
        run(args("rc_pingpong", "127.0.0.107", 18604, "-n", "50", "-s", "9000", "-e", "-c"),
            args("rc_pingpong", "127.0.0.108", 18604, "-n", "50", "-s", "9000", "-e", "-c", "127.0.0.107"));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldPingPongOverUc() throws Exception
    {
        run(args("uc_pingpong", "127.0.0.109", 18605, "-n", "50", "-s", "2500"),
            args("uc_pingpong", "127.0.0.110", 18605, "-n", "50", "-s", "2500", "127.0.0.109"));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldPingPongOverRcQpsSharingAnSrq() throws Exception
    {
        run(args("srq_pingpong", "127.0.0.111", 18606, "-n", "100", "-s", "512", "-q", "4"),
            args("srq_pingpong", "127.0.0.112", 18606, "-n", "100", "-s", "512", "-q", "4", "127.0.0.111"));
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void shouldRunTheDefaultRcCommandLinesOnOneMachine() throws Exception
    {
        // Exactly `rdma4j rc_pingpong -n 1000 -s 65536` and `rdma4j rc_pingpong -n 1000 -s 65536 127.0.0.1`:
        // the server takes 127.0.0.1, the client moves itself to a free 127.0.0.x.
        final List<String> client = run(List.of("rc_pingpong", "-n", "1000", "-s", "65536"),
            List.of("rc_pingpong", "-n", "1000", "-s", "65536", "127.0.0.1"));
        assertTrue(client.getFirst().endsWith("GID ::ffff:127.0.0.2") || !client.getFirst().endsWith("127.0.0.1"),
            client.getFirst());
        assertTrue(client.get(1).endsWith("GID ::ffff:127.0.0.1"), client.get(1));
        assertEquals("131072000 bytes", client.get(2).substring(0, client.get(2).indexOf(" in")));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldPingPongOverRcBetweenProcessesOnALossyNetwork() throws Exception
    {
        // each process's device drops a tenth of what it sends; RC recovers, and -c checks the data
        final Map<String, String> loss = Map.of("RDMA4J_SOFT_LOSS", "0.1");
        final List<List<String>> outputs = run(
            args("rc_pingpong", "127.0.0.113", 18607, "-n", "200", "-s", "4096", "-m", "1024", "-c"),
            args("rc_pingpong", "127.0.0.114", 18607, "-n", "200", "-s", "4096", "-m", "1024", "-c", "127.0.0.113"),
            loss);
        long dropped = 0;
        long retransmitted = 0;
        for (final List<String> output : outputs)
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
                else if (!line.contains("SoftProvider") && !line.contains("rdma4j.soft.loss"))
                {
                    // everything else is the tool's usual report; the provider's warning is not
                    report.add(line);
                }
            }
            checkReport(report, 1);
        }
        assertTrue(dropped > 0, "the devices dropped datagrams: " + outputs);
        assertTrue(retransmitted > 0, "RC retransmitted what was lost: " + outputs);
    }
}
