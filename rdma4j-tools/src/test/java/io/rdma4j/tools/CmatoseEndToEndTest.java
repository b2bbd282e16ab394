package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * cmatose between processes: the client sets up its RC connections at once, the server sends its
 * messages on each and takes as many back, then disconnects them all. The server runs with --debug,
 * which says when it listens (only then does the client start) and, on both sides, what each
 * connection received. Addresses 127.0.0.18x keep these clear of the other end-to-end tests.
 */
class CmatoseEndToEndTest
{
    /** How long a client behind forged requests may take, start to end, with the default 10 s handshake timeout. */
    private static final long FORGED_HOLD_BOUND_S = 30;
    private static final List<String> SERVER_LINES = List.of("cmatose: starting server", "initiating data transfers",
        "completing sends", "receiving data transfers", "data transfers complete", "cmatose: disconnecting",
        "disconnected", "test complete", "return status 0");
    private static final List<String> CLIENT_LINES = List.of("cmatose: starting client", "cmatose: connecting",
        "receiving data transfers", "sending replies", "data transfers complete", "test complete",
        "return status 0");

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    private ToolProcess start(final String role, final List<String> args) throws IOException
    {
        final ToolProcess child = ToolProcess.start(role, args, line -> line.startsWith("cmatose: listening on "));
        children.add(child);
        return child;
    }

    private static List<String> args(final String name, final String... args)
    {
        final List<String> all = new ArrayList<>(List.of(name, "--timeout", "60", "--debug"));
        all.addAll(List.of(args));
        return all;
    }

    /**
     * @return the lines cmatose itself prints, without --debug's.
     */
    private static List<String> report(final List<String> lines)
    {
        return lines.stream().filter(l -> !l.startsWith("cmatose: event ") && !l.startsWith("cmatose: listening on ")
            && !l.startsWith("cmatose: connection ")).toList();
    }

    /**
     * @return the --debug lines that say what each connection received.
     */
    private static List<String> received(final List<String> lines)
    {
        return lines.stream().filter(l -> l.startsWith("cmatose: connection ")).toList();
    }

    private static List<String> expectedReceived(final int connections, final int count, final int size)
    {
        return IntStream.range(0, connections).mapToObj(i -> "cmatose: connection " + i + " received " + count
            + " messages, " + (long)count * size + " bytes").toList();
    }

    private List<List<String>> exchange(final String serverName, final String clientName, final String serverAddress,
        final String clientAddress, final String... extra) throws Exception
    {
        final List<String> serverArgs = args(serverName, "-b", serverAddress, "-p", "7471");
        serverArgs.addAll(List.of(extra));
        final ToolProcess server = start("server", serverArgs);
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        final List<String> clientArgs = args(clientName, "-s", serverAddress, "-b", clientAddress);
        clientArgs.addAll(List.of(extra));
        final ToolProcess client = start("client", clientArgs);

        assertEquals(0, client.await(120, TimeUnit.SECONDS), "client exit status; its output: " + client.lines());
        assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
        return List.of(server.lines(), client.lines());
    }

    /**
     * Issue 41: two requests that are accepted but never established (no RTU) hold both of a {@code -c 2}
     * server's slots only for --handshake-timeout; the real client's two requests wait for them, unanswered, and
     * get them (before, the real client was rejected and the server ended -12).
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldGiveTheSlotsOfRequestsNeverEstablishedToTheClientBehindThem() throws Exception
    {
        final ToolProcess server = start("server", args("cmatose", "-b", TestNet.host(189), "-p", "7471", "-c", "2",
            "--handshake-timeout", "3"));
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        try (HalfOpenForger forger = HalfOpenForger.rcRequests(TestNet.host(190), TestNet.host(189), 7471, 2))
        {
            final ToolProcess client = start("client", args("cmatose", "-s", TestNet.host(189), "-b",
                TestNet.host(191), "-c", "2"));
            assertEquals(0, client.await(120, TimeUnit.SECONDS), "client exit status; its output: " + client.lines());
            assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
            final List<String> dropped = server.lines().stream().filter(l -> l.startsWith("cmatose: dropping "))
                .toList();
            assertEquals(List.of("cmatose: dropping connection 0: not established within 3 s",
                "cmatose: dropping connection 1: not established within 3 s"), dropped);
            assertEquals(SERVER_LINES, report(server.lines()).stream().filter(l -> !dropped.contains(l)).toList());
            assertEquals(expectedReceived(2, 10, 100), received(client.lines()));
        }
    }

    /**
     * Issue 41, finding 5: two forged REQs from a host with no device, each REP answered with an MRA asking for
     * 2.4 hours (service timeout 31) and never an RTU, hold both slots of a {@code -c 2} server on its defaults
     * for the default --handshake-timeout (10 s) and no longer: the server disconnects them, and the real client
     * behind them is served within {@value #FORGED_HOLD_BOUND_S} s (before, it was rejected and the server ended
     * -12).
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldServeTheClientBehindForgedRequestsThatAskForHoursWithAnMra() throws Exception
    {
        final String serverAddress = TestNet.host(MadForger.SUBNET, 31);
        final ToolProcess server = start("server", args("cmatose", "-b", serverAddress, "-p", "7471", "-c", "2"));
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        try (MadForger forger = MadForger.open(TestNet.host(MadForger.SUBNET, 3)))
        {
            forger.requests(serverAddress, 7471, 2);
            assertEquals(2, forger.mraReplies(2, 30), "the server sent its REPs to the forged REQs: " +
                server.lines());
            final long start = System.nanoTime();
            final ToolProcess client = start("client", args("cmatose", "-s", serverAddress, "-b",
                TestNet.host(MadForger.SUBNET, 32), "-c", "2"));
            final int status = client.await(FORGED_HOLD_BOUND_S, TimeUnit.SECONDS);
            final long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("cmatose -c 2 client behind two forged REQs + MRA(31): ended " + status + " in " +
                waited + " ms");
            assertEquals(0, status, "client exit status (-1: still running after " + FORGED_HOLD_BOUND_S +
                " s); its output: " + client.lines());
            assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
            final List<String> dropped = server.lines().stream().filter(l -> l.startsWith("cmatose: dropping "))
                .toList();
            assertEquals(List.of("cmatose: dropping connection 0: not established within 10 s",
                "cmatose: dropping connection 1: not established within 10 s"), dropped);
            assertEquals(expectedReceived(2, 10, 100), received(client.lines()));
            assertEquals(2, forger.disconnects(2, 10), "the server disconnected the forged requests");
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldExchangeTheDefaultTenMessagesEachWay() throws Exception
    {
        final List<List<String>> out = exchange("cmatose", "cmatose", TestNet.host(181), TestNet.host(182));

        assertEquals(SERVER_LINES, report(out.get(0)));
        assertEquals(CLIENT_LINES, report(out.get(1)));
        assertEquals(expectedReceived(1, 10, 100), received(out.get(0)));
        assertEquals(expectedReceived(1, 10, 100), received(out.get(1)));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldExchangeOnManyConnectionsAtOnceUnderEitherName() throws Exception
    {
        // rdma-core installs cmatose as ucmatose: both names run the one tool
        final List<List<String>> out = exchange("ucmatose", "cmatose", TestNet.host(183), TestNet.host(184),
            "-c", "5", "-C", "40", "-S", "3000");

        assertEquals(SERVER_LINES, report(out.get(0)));
        assertEquals(CLIENT_LINES, report(out.get(1)));
        assertEquals(expectedReceived(5, 40, 3000), received(out.get(0)));
        assertEquals(expectedReceived(5, 40, 3000), received(out.get(1)));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldOnlyConnectAndDisconnectWithoutAMessageSize() throws Exception
    {
        final List<List<String>> out = exchange("cmatose", "ucmatose", TestNet.host(185), TestNet.host(186),
            "-c", "2", "-S", "0");

        assertEquals(List.of("cmatose: starting server", "cmatose: disconnecting", "disconnected", "test complete",
            "return status 0"), report(out.get(0)));
        assertEquals(List.of("cmatose: starting client", "cmatose: connecting", "test complete", "return status 0"),
            report(out.get(1)));
        assertEquals(List.of(), received(out.get(0)));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldReportTheRejectionWhenNobodyListens() throws Exception
    {
        final ToolProcess client = start("client", args("cmatose", "-s", TestNet.host(187), "-b", TestNet.host(188)));

        final int status = client.await(60, TimeUnit.SECONDS);
        final List<String> lines = report(client.lines());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("cmatose: event: ")), "output: " + client.lines());
        assertTrue(status != 0, "exit status; output: " + client.lines());
        assertEquals("test complete", lines.get(lines.size() - 2));
    }
}
