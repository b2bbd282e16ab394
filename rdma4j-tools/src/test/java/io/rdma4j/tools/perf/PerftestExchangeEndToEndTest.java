package io.rdma4j.tools.perf;

import io.rdma4j.testing.TestNet;
import io.rdma4j.tools.ToolProcess;
import io.rdma4j.verbs.Gid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdma4j perf ib_*} on both sides, so both speak perftest's exchange (the lab's perftest-* scenarios put
 * perftest itself on one side): each prints perftest's result row, the write_bw server the client's report as
 * perftest's server does; and a side on rdma4j's own exchange meets one on perftest's with the version refusal
 * named, not a reset connection. With {@code -R} the same runs meet through rdma_cm: the exchange on an
 * rdma_cm-connected QP, the test's QPs connected by the connection manager. Never how fast anything is.
 */
class PerftestExchangeEndToEndTest
{
    // each row ends as perftest's does, its last figure left-aligned in a field of 7: "734.21 " and "29.94  " end in
    // spaces, "1778.69" does not (a pattern without the trailing spaces matched a run only when its slowest
    // exchange took a millisecond or more)
    private static final Pattern LATENCY_ROW = Pattern.compile(" (\\d+) +(\\d+) +(\\d+\\.\\d\\d) +(\\d+\\.\\d\\d) +" +
        "(\\d+\\.\\d\\d) +(\\d+\\.\\d\\d) +\\d+\\.\\d\\d +(\\d+\\.\\d\\d) +(\\d+\\.\\d\\d) *");
    private static final Pattern BANDWIDTH_ROW = Pattern.compile(" (\\d+) +(\\d+) +(\\d+\\.\\d\\d) +(\\d+\\.\\d\\d) +" +
        "(\\d+\\.\\d{6}) *");

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    private List<ToolProcess> pair(final int host, final int port, final List<String> server,
        final List<String> client) throws Exception
    {
        final List<String> s = new ArrayList<>(List.of("perf"));
        s.addAll(server);
        s.addAll(List.of("--address", TestNet.host(host), "-p", String.valueOf(TestNet.tcpPort(port))));
        final ToolProcess sp = ToolProcess.start("server", s, line -> line.contains("waiting for a client"));
        children.add(sp);
        assertTrue(sp.ready().get(60, TimeUnit.SECONDS), "the server never said it was listening");
        final List<String> c = new ArrayList<>(List.of("perf"));
        c.addAll(client);
        c.addAll(List.of("--address", TestNet.host(host + 1), "-p", String.valueOf(TestNet.tcpPort(port)),
            TestNet.host(host)));
        final ToolProcess cp = ToolProcess.start("client", c, line -> false);
        children.add(cp);
        return List.of(sp, cp);
    }

    /** Both sides with the same flags, each ending with status 0. */
    private List<ToolProcess> bothPass(final int host, final int port, final List<String> args) throws Exception
    {
        final List<ToolProcess> p = pair(host, port, args, args);
        assertEquals(0, p.get(1).await(120, TimeUnit.SECONDS), "client exit status: " + p.get(1).lines());
        assertEquals(0, p.get(0).await(60, TimeUnit.SECONDS), "server exit status: " + p.get(0).lines());
        return p;
    }

    private static Matcher row(final ToolProcess p, final Pattern pattern)
    {
        final List<Matcher> rows = p.lines().stream().map(pattern::matcher).filter(Matcher::matches).toList();
        assertEquals(1, rows.size(), "one result row: " + p.lines());
        return rows.getFirst();
    }

    @Test
    void shouldPingPongOnPerftestsExchangeWithBothSidesPrintingTheirRow() throws Exception
    {
        final List<String> args = List.of("ib_send_lat", "-c", "RC", "-s", "64", "-n", "200");
        final List<ToolProcess> p = bothPass(191, 30, args);
        for (final ToolProcess side : p)
        {
            final Matcher m = row(side, LATENCY_ROW);
            assertEquals("64", m.group(1));
            assertEquals("200", m.group(2));
            final double min = Double.parseDouble(m.group(3));
            final double max = Double.parseDouble(m.group(4));
            final double typical = Double.parseDouble(m.group(5));
            assertTrue(min > 0 && min <= typical && typical <= max, "min <= typical <= max: " + m.group());
            assertTrue(Double.parseDouble(m.group(7)) <= Double.parseDouble(m.group(8)), "p99 <= p99.9: " + m.group());
        }
    }

    @Test
    void shouldLeaveTheWarmUpOutOfTheRowWhileThePeerRunsTheSameExchanges() throws Exception
    {
        // the client warms up, the server (as perftest would) knows nothing of it: both run -n exchanges
        final List<String> server = List.of("ib_send_lat", "-c", "RC", "-n", "300");
        final List<String> client = List.of("ib_send_lat", "-c", "RC", "-n", "300", "--warmup", "100");
        final List<ToolProcess> p = pair(209, 30, server, client);
        assertEquals(0, p.get(1).await(120, TimeUnit.SECONDS), "client exit status: " + p.get(1).lines());
        assertEquals(0, p.get(0).await(60, TimeUnit.SECONDS), "server exit status: " + p.get(0).lines());
        assertEquals("200", row(p.get(1), LATENCY_ROW).group(2), "the client records the last 200");
        assertEquals("300", row(p.get(0), LATENCY_ROW).group(2), "the server records all 300");
        assertTrue(p.get(1).lines().stream().anyMatch(l -> l.contains("300 iterations (the first 100 unrecorded: " +
            "--warmup)")), p.get(1).lines().toString());
    }

    @Test
    void shouldPrintTheClientsWriteBandwidthOnTheServerAsPerftestDoes() throws Exception
    {
        assertServerPrintsTheClientsWriteReport(193, 31, List.of("ib_write_bw", "-s", "4096", "-n", "300"));
    }

    private void assertServerPrintsTheClientsWriteReport(final int host, final int port, final List<String> args)
        throws Exception
    {
        final List<ToolProcess> p = bothPass(host, port, args);
        final Matcher client = row(p.get(1), BANDWIDTH_ROW);
        assertEquals("4096", client.group(1));
        assertEquals("300", client.group(2));
        assertTrue(Double.parseDouble(client.group(4)) > 0, client.group());
        assertEquals(client.group(), row(p.get(0), BANDWIDTH_ROW).group(), "the server prints the client's report");
    }

    @Test
    void shouldNameTheExchangeWhenOneSideSpeaksRdma4jsOwn() throws Exception
    {
        final List<ToolProcess> p = pair(195, 32, List.of("send_lat", "-n", "10", "--warmup", "0"),
            List.of("ib_send_lat", "-n", "10"));
        assertEquals(1, p.get(1).await(120, TimeUnit.SECONDS), "client exit status");
        assertTrue(p.get(1).lines().stream().anyMatch(l -> l.contains("needs 5.70 or newer") &&
            l.contains("--exchange perftest")), "the refusal names the version and the flag: " + p.get(1).lines());
        assertEquals(1, p.get(0).await(60, TimeUnit.SECONDS), "server exit status");
        assertTrue(p.get(0).lines().stream().anyMatch(l -> l.startsWith("perf: the peer is perftest 6.06") &&
            l.contains("type rdma4j perf ib_send_lat -n 10")), "the server says what to type: " + p.get(0).lines());
    }

    @Test
    void shouldPingPongWithRdmaCmWhereNoTcpConnectionExists() throws Exception
    {
        final List<String> args = List.of("ib_send_lat", "-R", "-s", "64", "-n", "200");
        final List<ToolProcess> p = bothPass(197, 33, args);
        assertTrue(p.get(0).lines().stream().anyMatch(l -> l.contains("waiting for a client on rdma_cm port")),
            "the server listened through rdma_cm: " + p.get(0).lines());
        for (final ToolProcess side : p)
        {
            assertTrue(side.lines().stream().anyMatch(l -> l.contains("over rdma_cm (-R)")), side.lines().toString());
            final Matcher m = row(side, LATENCY_ROW);
            assertEquals("64", m.group(1));
            assertEquals("200", m.group(2));
            assertTrue(Double.parseDouble(m.group(3)) > 0, m.group());
        }
    }

    @Test
    void shouldHandTheWriteBandwidthReportOverRdmaCmWithTwoQps() throws Exception
    {
        assertServerPrintsTheClientsWriteReport(199, 34, List.of("ib_write_bw", "-R", "-q", "2", "-s", "4096", "-n",
            "300"));
    }

    @Test
    void shouldReadThroughQpsTheConnectionManagerGaveReadCredits() throws Exception
    {
        final List<String> args = List.of("ib_read_lat", "--rdma_cm", "-s", "32", "-n", "100");
        final List<ToolProcess> p = bothPass(201, 35, args);
        final Matcher m = row(p.get(1), LATENCY_ROW);
        assertEquals("32", m.group(1));
        assertEquals("100", m.group(2));
    }

    @Test
    void shouldRunAtomicsOnQpsTheConnectionManagerConnected() throws Exception
    {
        // rdma_cm must grant an RC QP remote atomics, or the client's first FETCH_AND_ADD fails
        final List<ToolProcess> p = bothPass(203, 36, List.of("ib_atomic_lat", "-R", "-n", "100"));
        final Matcher m = row(p.get(1), LATENCY_ROW);
        assertEquals("8", m.group(1));
        assertEquals("100", m.group(2));
    }

    @Test
    void shouldPingPongOnUdQpsTheConnectionManagerResolvedThroughSidr() throws Exception
    {
        // the server sends too: it must learn the client's QPN from the SEND with immediate, and both sides must put
        // rdma_cm's Q_Key on their datagrams, or the first datagram is dropped and the run stalls
        final List<ToolProcess> p = bothPass(205, 37, List.of("ib_send_lat", "-R", "-c", "UD", "-s", "512", "-n",
            "200"));
        for (final ToolProcess side : p)
        {
            assertTrue(side.lines().stream().anyMatch(l -> l.contains("over rdma_cm (-R)") && l.contains("UD")),
                side.lines().toString());
            final Matcher m = row(side, LATENCY_ROW);
            assertEquals("512", m.group(1));
            assertEquals("200", m.group(2));
        }
    }

    @Test
    void shouldStreamUdSendsToQpsTheSidrReplyNamed() throws Exception
    {
        final List<ToolProcess> p = bothPass(207, 38, List.of("ib_send_bw", "-R", "-c", "UD", "-q", "2", "-s", "1024",
            "-n", "200"));
        for (final ToolProcess side : p)
        {
            final Matcher m = row(side, BANDWIDTH_ROW);
            assertEquals("1024", m.group(1));
            assertEquals("400", m.group(2), "two QPs, each -n messages");
        }
    }

    @Test
    void shouldStreamUdSendsToTheServersMulticastGroupAsPerftestsMinusG() throws Exception
    {
        // the server joins the group and hands its GID and the group QPN in its dest; the client sends there
        final String group = "0:0:0:0:0:0:0:0:0:0:255:255:" + TestNet.group(44, 60).replace('.', ':');
        final List<ToolProcess> p = bothPass(177, 38, List.of("ib_send_bw", "-g", "-M", group, "-s", "1024", "-n",
            "200", "-r", "200"));
        final String mgid = Gid.parse(TestNet.group(44, 60)).toString();
        assertTrue(p.get(0).lines().stream().anyMatch(l -> l.contains("receives on group " + mgid)),
            p.get(0).lines().toString());
        assertTrue(p.get(1).lines().stream().anyMatch(l -> l.contains("sends to group " + mgid)),
            p.get(1).lines().toString());
        for (final ToolProcess side : p)
        {
            final Matcher m = row(side, BANDWIDTH_ROW);
            assertEquals("1024", m.group(1));
            assertEquals("200", m.group(2));
        }
    }

    @Test
    void shouldRefusePerftestsIpv6DefaultGroupOnAnIpv4GidAsPerftestDoes() throws Exception
    {
        final List<ToolProcess> p = pair(179, 37, List.of("ib_send_bw", "-g", "-n", "10"),
            List.of("ib_send_bw", "-g", "-n", "10"));
        assertEquals(1, p.get(0).await(120, TimeUnit.SECONDS), "server exit status");
        assertTrue(p.get(0).lines().stream().anyMatch(l -> l.contains("ff01:0000:0002:c985:0000:0000:0000:0000") &&
            l.contains("different IP versions")), p.get(0).lines().toString());
        assertEquals(1, p.get(1).await(60, TimeUnit.SECONDS), "client exit status");
    }

    @Test
    void shouldPingPongThroughOneGroupBothSidesJoinedAsPerftestsMinusGWithAnMgid() throws Exception
    {
        // with -M both sides take the same group: each sends there, each takes the other's SEND off it
        final String group = "0:0:0:0:0:0:0:0:0:0:255:255:" + TestNet.group(44, 61).replace('.', ':');
        final List<ToolProcess> p = bothPass(175, 36, List.of("ib_send_lat", "-g", "--MGID", group, "-s", "64", "-n",
            "200"));
        final String mgid = Gid.parse(TestNet.group(44, 61)).toString();
        for (final ToolProcess side : p)
        {
            assertTrue(side.lines().stream().anyMatch(l -> l.contains("receives on group " + mgid) &&
                l.contains("sends to group " + mgid)), side.lines().toString());
            final Matcher m = row(side, LATENCY_ROW);
            assertEquals("64", m.group(1));
            assertEquals("200", m.group(2));
        }
    }
}
