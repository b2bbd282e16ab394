package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rping runs that fail end with rping's "rping client failed"/"rping server failed" line and a
 * non-zero status, whichever step failed. Each end is a JVM of its own; synchronisation is by
 * the lines they print. Addresses 127.44.2.x and ports 1744x are this class's own.
 */
class RpingFailureTest
{
    private static final Predicate<String> LISTENING = line -> line.startsWith("listening on ");
    private static final Predicate<String> CLIENT_PING = line -> line.startsWith("ping data: ");
    /** rping's -1, as a process returning it from main exits. */
    private static final int RPING_FAILED = 255;

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    private ToolProcess start(final String role, final String... args) throws IOException
    {
        final ToolProcess child = ToolProcess.start(role, List.of(args), LISTENING);
        children.add(child);
        return child;
    }

    private ToolProcess listeningServer(final String... args) throws Exception
    {
        final List<String> all = new ArrayList<>(List.of("rping", "-s", "-d"));
        all.addAll(List.of(args));
        final ToolProcess server = start("server", all.toArray(String[]::new));
        assertTrue(server.ready().get(60, TimeUnit.SECONDS), "the server never listened: " + server.lines());
        return server;
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldFailTheClientWhenTheServerGoesAwayMidRun() throws Exception
    {
        final ToolProcess server = listeningServer("-a", TestNet.host(2, 1), "-p", "17441");
        final ToolProcess client = start("client", "rping", "-c", "-v", "-C", "0",
            "-a", TestNet.host(2, 1), "-I", TestNet.host(2, 2), "-p", "17441");
        assertTrue(client.awaitLines(CLIENT_PING, 3, 60, TimeUnit.SECONDS), "pings before: " + client.lines());

        server.terminate();

        assertEquals(RPING_FAILED, client.await(60, TimeUnit.SECONDS), "client status; output: " + client.lines());
        assertTrue(client.lines().contains("rping client failed: -1"), client.lines().toString());
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldFailBothEndsWhenTheServerCannotTakeThePing() throws Exception
    {
        // the server READs the client's whole 100-byte buffer into its own 40 bytes: its READ fails
        final ToolProcess server = listeningServer("-S", "40", "-a", TestNet.host(2, 3), "-p", "17442");
        final ToolProcess client = start("client", "rping", "-c", "-C", "5", "-S", "100",
            "-a", TestNet.host(2, 3), "-I", TestNet.host(2, 4), "-p", "17442");

        assertEquals(RPING_FAILED, client.await(60, TimeUnit.SECONDS), "client status; output: " + client.lines());
        assertTrue(client.lines().contains("rping client failed: -1"), client.lines().toString());
        assertNotEquals(0, server.await(60, TimeUnit.SECONDS), "server status; output: " + server.lines());
        assertTrue(server.lines().stream().anyMatch(l -> l.startsWith("rping server failed: ")),
            server.lines().toString());
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void shouldFailAClientWhoseConnectionIsRejected() throws Exception
    {
        // a device on the address, but nothing listening on the port the client asks for
        listeningServer("-a", TestNet.host(2, 5), "-p", "17443");
        final ToolProcess client = start("client", "rping", "-c", "-C", "1",
            "-a", TestNet.host(2, 5), "-I", TestNet.host(2, 6), "-p", "17444");

        assertEquals(RPING_FAILED, client.await(60, TimeUnit.SECONDS), "client status; output: " + client.lines());
        assertTrue(client.lines().contains("rping client failed: -1"), client.lines().toString());
    }
}
