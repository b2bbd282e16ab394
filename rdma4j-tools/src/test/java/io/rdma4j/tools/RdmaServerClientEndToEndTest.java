package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
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
 * rdma_server and rdma_client between processes: one RC connection set up with the synchronous endpoint calls, a
 * 16-byte message each way, and rdma-core 44's output and exit status. The server runs with --debug, which says
 * when it listens; only then does the client start. Addresses 127.0.0.17x keep these clear of the other
 * end-to-end tests.
 */
class RdmaServerClientEndToEndTest
{
    /** How long a client behind a forged request may take, start to end, with the default 10 s handshake timeout. */
    private static final long FORGED_HOLD_BOUND_S = 30;

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    private ToolProcess start(final String role, final String... args) throws IOException
    {
        final List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--timeout", "60"));
        final ToolProcess child = ToolProcess.start(role, all, line -> line.startsWith("rdma_server: listening on "));
        children.add(child);
        return child;
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldExchangeOneMessageAsTheCToolsDo() throws Exception
    {
        final String port = String.valueOf(TestNet.tcpPort(0));
        final ToolProcess server = start("server", "rdma_server", "--debug", "-s", TestNet.host(171), "-p", port);
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        final ToolProcess client = start("client", "rdma_client", "-s", TestNet.host(171), "-p", port, "-b",
            TestNet.host(172));

        assertEquals(0, client.await(120, TimeUnit.SECONDS), "client exit status; its output: " + client.lines());
        assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
        assertEquals(List.of("rdma_client: start", "rdma_client: end 0"), client.lines());
        assertEquals(List.of("rdma_server: start", "rdma_server: listening on " + TestNet.host(171) + ":" + port,
            "rdma_server: end 0"), server.lines());
    }

    /**
     * Issue 41: a request the server accepts but whose peer never sends the RTU is dropped after
     * --handshake-timeout, and the server serves the client that came behind it (before, it waited on the
     * half-open one until the REP's retries ran out, about 69 s, failed, and the real client with it).
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldDropARequestThatIsNeverEstablishedAndServeTheClientBehindIt() throws Exception
    {
        final String port = String.valueOf(TestNet.tcpPort(3));
        final ToolProcess server = start("server", "rdma_server", "--debug", "-s", TestNet.host(175), "-p", port,
            "--handshake-timeout", "3");
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        try (HalfOpenForger forger = HalfOpenForger.rcRequests(TestNet.host(176), TestNet.host(175),
            Integer.parseInt(port), 1))
        {
            final long start = System.nanoTime();
            final ToolProcess client = start("client", "rdma_client", "-s", TestNet.host(175), "-p", port, "-b",
                TestNet.host(177));
            assertEquals(0, client.await(120, TimeUnit.SECONDS), "client exit status; its output: " + client.lines());
            final long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("rdma_client behind a half-open request: done in " + waited + " ms");
            assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
            assertTrue(server.lines().stream().anyMatch(l -> l.startsWith("rdma_accept: ETIMEDOUT: the connection " +
                "was not established within 3 s")), server.lines().toString());
        }
    }

    /**
     * Issue 41, finding 5: one forged REQ from a host with no device, whose REP it answers with an MRA asking for
     * 2.4 hours (service timeout 31) and never an RTU, holds a server on its defaults for the default
     * --handshake-timeout (10 s) and no longer: the server disconnects it, and the real client that came behind it
     * is served within {@value #FORGED_HOLD_BOUND_S} s (before, the server waited on the forged request for good and
     * the client timed out).
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldServeTheClientBehindAForgedRequestThatAsksForHoursWithAnMra() throws Exception
    {
        final String port = String.valueOf(TestNet.tcpPort(3));
        final String serverAddress = TestNet.host(MadForger.SUBNET, 11);
        final ToolProcess server = start("server", "rdma_server", "--debug", "-s", serverAddress, "-p", port);
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        try (MadForger forger = MadForger.open(TestNet.host(MadForger.SUBNET, 1)))
        {
            forger.requests(serverAddress, Integer.parseInt(port), 1);
            assertEquals(1, forger.mraReplies(1, 30), "the server sent its REP to the forged REQ: " + server.lines());
            final long start = System.nanoTime();
            final ToolProcess client = start("client", "rdma_client", "-s", serverAddress, "-p", port, "-b",
                TestNet.host(MadForger.SUBNET, 12));
            final int status = client.await(FORGED_HOLD_BOUND_S, TimeUnit.SECONDS);
            final long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("rdma_client behind a forged REQ + MRA(31): ended " + status + " in " + waited + " ms");
            assertEquals(0, status, "client exit status (-1: still running after " + FORGED_HOLD_BOUND_S +
                " s); its output: " + client.lines());
            assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
            assertTrue(server.lines().stream().anyMatch(l -> l.startsWith("rdma_accept: ETIMEDOUT: the connection " +
                "was not established within 10 s")), server.lines().toString());
            assertEquals(1, forger.disconnects(1, 10), "the server disconnected the forged request");
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldEndMinusOneWhenNobodyListens() throws Exception
    {
        // a server that listened on another port keeps the device up, so the request is refused, not lost
        final ToolProcess server = start("server", "rdma_server", "--debug", "-s", TestNet.host(173), "-p",
            String.valueOf(TestNet.tcpPort(1)));
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        final ToolProcess client = start("client", "rdma_client", "-s", TestNet.host(173), "-p",
            String.valueOf(TestNet.tcpPort(2)), "-b", TestNet.host(174));

        assertEquals(-1 & 0xFF, client.await(60, TimeUnit.SECONDS), "exit status; output: " + client.lines());
        final List<String> lines = client.lines();
        assertEquals("rdma_client: start", lines.getFirst());
        assertTrue(lines.get(1).startsWith("rdma_connect: ECONNREFUSED: "), lines.toString());
        assertEquals("rdma_client: end -1", lines.getLast());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldSayWhatRdmaGetaddrinfoSays() throws Exception
    {
        final ToolProcess client = start("client", "rdma_client", "-s", "no-such-host.invalid", "-p", "7471");

        assertEquals(-2 & 0xFF, client.await(60, TimeUnit.SECONDS), "exit status; output: " + client.lines());
        assertEquals(List.of("rdma_client: start", "rdma_getaddrinfo: Name or service not known",
            "rdma_client: end -2"), client.lines());
    }
}
