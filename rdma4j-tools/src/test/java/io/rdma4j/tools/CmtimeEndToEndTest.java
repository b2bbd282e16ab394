package io.rdma4j.tools;

import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * cmtime between processes (issue 43, item 9): three RC connections set up and torn down together after a warm-up,
 * both sides printing rdma-core's table with a figure for every step rdma4j takes.
 */
class CmtimeEndToEndTest
{
    private static final List<String> STEPS = List.of("full connect", "create id", "bind addr", "resolve addr",
        "resolve route", "create qp", "init qp attr", "init qp", "rtr qp attr", "rtr qp", "rts qp attr", "rts qp",
        "cm connect", "establish", "disconnect", "destroy id", "destroy qp");

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldTimeEachStepOfThreeConnections() throws Exception
    {
        final String port = String.valueOf(TestNet.tcpPort(0));
        final ToolProcess server = ToolProcess.start("server", List.of("cmtime", "-b", TestNet.host(181), "-p", port,
            "-c", "3"), line -> false);
        children.add(server);
        final ToolProcess client = ToolProcess.start("client", List.of("cmtime", "-s", TestNet.host(181), "-b",
            TestNet.host(182), "-p", port, "-c", "3"), line -> false);
        children.add(client);

        assertEquals(0, client.await(180, TimeUnit.SECONDS), "client exit status; its output: " + client.lines());
        assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
        final List<String> lines = client.lines();
        assertEquals("Client warmup", lines.get(0), lines.toString());
        assertEquals("Connect (3) QPs test", lines.get(1));
        assertEquals("qp_conn                 3", lines.get(2));
        for (int i = 0; i < STEPS.size(); i++)
        {
            assertTrue(lines.get(5 + i).startsWith(String.format("%-13s  ", STEPS.get(i))), lines.get(5 + i));
        }
        for (final String step : List.of("full connect", "create id", "bind addr", "resolve addr", "resolve route",
            "create qp", "cm connect", "disconnect", "destroy id", "destroy qp"))
        {
            final long[] row = row(lines, step);
            assertTrue(row[1] > 0, step + " has no total: " + lines);
            assertTrue(row[5] <= row[4], step + ": min over max");
        }
        final long[] connect = row(lines, "cm connect");
        assertEquals(connect[3] / 3, connect[2], "us/conn is the connections' sum over 3");
        assertEquals("Accept (3) QPs test", server.lines().get(1), server.lines().toString());
        assertTrue(row(server.lines(), "cm connect")[1] > 0, server.lines().toString());
    }

    /**
     * --no-oob: rdma-core 44's form (Debian 12's cmtime): no TCP meeting, so the server's port takes no TCP
     * connection and neither side runs a warm-up; the server accepts -c connections, prints its table and exits.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void shouldTimeTwoConnectionsWithoutTheOutOfBandConnection() throws Exception
    {
        final String port = String.valueOf(TestNet.tcpPort(0));
        final ToolProcess server = ToolProcess.start("server", List.of("cmtime", "--no-oob", "-b", TestNet.host(183),
            "-p", port, "-c", "2"), line -> line.startsWith("Accept (2) QPs test"));
        children.add(server);
        // with no TCP meeting the client needs the CM's listen first, which the server's first line follows
        assertTrue(server.ready().get(120, TimeUnit.SECONDS), "server never listened: " + server.lines());
        final ToolProcess client = ToolProcess.start("client", List.of("cmtime", "--no-oob", "-s", TestNet.host(183),
            "-b", TestNet.host(184), "-p", port, "-c", "2"), line -> false);
        children.add(client);

        assertEquals(0, client.await(180, TimeUnit.SECONDS), "client exit status; its output: " + client.lines());
        assertEquals(0, server.await(60, TimeUnit.SECONDS), "server exit status; its output: " + server.lines());
        final List<String> lines = client.lines();
        assertEquals("Connect (2) QPs test", lines.get(0), lines.toString());
        assertEquals("qp_conn                 2", lines.get(1));
        assertTrue(row(lines, "cm connect")[1] > 0, lines.toString());
        assertTrue(row(lines, "disconnect")[1] > 0, lines.toString());
        assertEquals("Accept (2) QPs test", server.lines().get(0), server.lines().toString());
        assertTrue(row(server.lines(), "cm connect")[1] > 0, server.lines().toString());
    }

    /** The six figures of a step's row. */
    private static long[] row(final List<String> lines, final String step)
    {
        final String line = lines.stream().filter(l -> l.startsWith(String.format("%-13s  ", step))).reduce(
            (first, second) -> second).orElseThrow();
        final String[] fields = line.substring(15).trim().split("\\s+");
        final long[] figures = new long[6];
        for (int i = 0; i < 6; i++)
        {
            figures[i] = Long.parseLong(fields[i]);
        }
        return figures;
    }
}
