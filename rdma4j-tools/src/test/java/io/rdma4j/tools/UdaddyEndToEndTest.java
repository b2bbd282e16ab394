package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import io.rdma4j.tools.udaddy.UdaddyCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * udaddy between processes: SIDR in the UDP port space sets up each path, the client sends its
 * messages with its QPN as immediate data, and the server answers to the address the GRH names.
 * The server runs with --debug, which says when it listens; only then does the client start.
 * Addresses 127.0.0.16x keep these clear of the other end-to-end tests.
 */
class UdaddyEndToEndTest
{
    /** How long a client behind a forged request may take, start to end, with the default 10 s handshake timeout. */
    private static final long FORGED_HOLD_BOUND_S = 30;
    private static final List<String> SERVER_LINES = List.of("udaddy: starting server", "receiving data transfers",
        "sending replies", "data transfers complete", "test complete", "return status 0");
    private static final List<String> CLIENT_LINES = List.of("udaddy: starting client", "udaddy: connecting",
        "initiating data transfers", "receiving data transfers", "data transfers complete", "test complete",
        "return status 0");

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    private ToolProcess start(final String role, final List<String> args) throws IOException
    {
        final ToolProcess child = ToolProcess.start(role, args, line -> line.startsWith("udaddy: listening on "));
        children.add(child);
        return child;
    }

    private static List<String> udaddy(final String... args)
    {
        final List<String> all = new ArrayList<>(List.of("udaddy", "--timeout", "60"));
        all.addAll(List.of(args));
        return all;
    }

    /**
     * @return the lines udaddy itself prints, without --debug's trace.
     */
    private static List<String> report(final List<String> lines)
    {
        return lines.stream().filter(l -> !l.startsWith("udaddy: event ") && !l.startsWith("udaddy: listening on "))
            .toList();
    }

    private void exchange(final String serverAddress, final String clientAddress, final String... extra)
        throws Exception
    {
        final List<String> serverArgs = udaddy("--debug", "-b", serverAddress);
        serverArgs.addAll(List.of(extra));
        final ToolProcess server = start("server", serverArgs);
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        final List<String> clientArgs = udaddy("-s", serverAddress, "-b", clientAddress);
        clientArgs.addAll(List.of(extra));
        final ToolProcess client = start("client", clientArgs);

        assertEquals(0, client.await(120, TimeUnit.SECONDS), "client exit status; its output: " + client.lines());
        assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
        assertEquals(CLIENT_LINES, report(client.lines()));
        assertEquals(SERVER_LINES, report(server.lines()));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldExchangeTheDefaultTenMessages() throws Exception
    {
        exchange(TestNet.host(161), TestNet.host(162));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldExchangeOnSeveralPathsAtOnce() throws Exception
    {
        exchange(TestNet.host(163), TestNet.host(164), "-c", "3", "-C", "50", "-S", "1000");
    }

    /**
     * Issue 41: a SIDR request whose path never carries a message holds the server's only slot for
     * --handshake-timeout, then the real client behind it gets it (before, the server waited for the forger's
     * messages for ever and the real client's requests went unanswered).
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldGiveTheSlotOfAPathThatNeverSendsToTheClientBehindIt() throws Exception
    {
        final ToolProcess server = start("server", udaddy("--debug", "-b", TestNet.host(167), "--handshake-timeout",
            "3"));
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        try (HalfOpenForger forger = HalfOpenForger.sidrRequest(TestNet.host(168), TestNet.host(167),
            UdaddyCommand.PORT))
        {
            final ToolProcess client = start("client", udaddy("-s", TestNet.host(167), "-b", TestNet.host(169)));
            assertEquals(0, client.await(120, TimeUnit.SECONDS), "client exit status; its output: " + client.lines());
            assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
            assertEquals(CLIENT_LINES, report(client.lines()));
            final String dropped = "udaddy: dropping connection 0: no message within 3 s of its request";
            assertEquals(1, server.lines().stream().filter(dropped::equals).count(), server.lines().toString());
            assertEquals(SERVER_LINES, report(server.lines()).stream().filter(l -> !l.equals(dropped)).toList());
        }
    }

    /**
     * Issue 41, finding 5: one forged SIDR_REQ from a host with no device (one datagram; no message ever follows)
     * holds a server on its defaults, whose one path is its only slot, for the default --handshake-timeout (10 s)
     * and no longer: the real client behind it is served within {@value #FORGED_HOLD_BOUND_S} s (before, the
     * server gave the slot to the forger for good and ignored the client's requests).
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldServeTheClientBehindAForgedSidrRequestOnDefaults() throws Exception
    {
        final String serverAddress = TestNet.host(MadForger.SUBNET, 21);
        final ToolProcess server = start("server", udaddy("--debug", "-b", serverAddress));
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        try (MadForger forger = MadForger.open(TestNet.host(MadForger.SUBNET, 2)))
        {
            forger.sidrRequest(serverAddress, UdaddyCommand.PORT);
            assertEquals(1, forger.sidrReplies(1, 30), "the server answered the forged SIDR_REQ: " + server.lines());
            final long start = System.nanoTime();
            final ToolProcess client = start("client", udaddy("-s", serverAddress, "-b",
                TestNet.host(MadForger.SUBNET, 22)));
            final int status = client.await(FORGED_HOLD_BOUND_S, TimeUnit.SECONDS);
            final long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("udaddy client behind a forged SIDR_REQ: ended " + status + " in " + waited + " ms");
            assertEquals(0, status, "client exit status (-1: still running after " + FORGED_HOLD_BOUND_S +
                " s); its output: " + client.lines());
            assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
            assertEquals(CLIENT_LINES, report(client.lines()));
            final String dropped = "udaddy: dropping connection 0: no message within 10 s of its request";
            assertEquals(1, server.lines().stream().filter(dropped::equals).count(), server.lines().toString());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldRefuseAMessageLargerThanTheActiveMtu() throws Exception
    {
        // the client checks the size once the route is resolved, before any connection request
        final ToolProcess client =
            start("client", udaddy("-s", TestNet.host(165), "-b", TestNet.host(166), "-S", "5000"));

        assertEquals(-22 & 0xFF, client.await(60, TimeUnit.SECONDS), "exit status; output: " + client.lines());
        assertEquals(List.of("udaddy: starting client", "udaddy: connecting",
            "udaddy: message_size 5000 is larger than active mtu 4096", "test complete", "return status -22"),
            client.lines());
    }
}
