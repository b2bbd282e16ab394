package io.rdma4j.tools.perf;

import io.rdma4j.testing.TestNet;
import io.rdma4j.tools.ToolProcess;
import io.rdma4j.tools.perf.perftest.PerftestDest;
import io.rdma4j.tools.perf.perftest.PerftestVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 41, finding 8: a {@code perf} server tells its QPs (QPN, PSN, rkey, buffer address) only to a client
 * that sent its own first. A plain TCP client that sends garbage, on rdma4j's exchange and on perftest's, gets
 * no QP data, and the server ends with an error naming what was wrong. Issue 43, item 8: a peer that is perftest,
 * on rdma4j's exchange, is known by its first message (its version), and the user is told in one line what to
 * type, on either side.
 */
class PerfExchangeGuardTest
{
    private static final int READ_TIMEOUT_MS = 30_000;

    private final List<ToolProcess> children = new ArrayList<>();

    @AfterEach
    void killLeftovers()
    {
        children.forEach(ToolProcess::destroy);
    }

    private ToolProcess server(final int host, final int port, final List<String> args) throws Exception
    {
        final List<String> s = new ArrayList<>(List.of("perf"));
        s.addAll(args);
        s.addAll(List.of("--address", TestNet.host(host), "-p", String.valueOf(TestNet.tcpPort(port))));
        final ToolProcess sp = ToolProcess.start("server", s, line -> line.contains("waiting for a client"));
        children.add(sp);
        assertTrue(sp.ready().get(60, TimeUnit.SECONDS), "the server never said it was listening");
        return sp;
    }

    private static Socket connect(final int host, final int port) throws IOException
    {
        final Socket socket = new Socket();
        socket.connect(new InetSocketAddress(TestNet.host(host), TestNet.tcpPort(port)), READ_TIMEOUT_MS);
        socket.setSoTimeout(READ_TIMEOUT_MS);
        return socket;
    }

    /** @return every byte that comes until the server closes. */
    private static byte[] rest(final InputStream in) throws IOException
    {
        return in.readAllBytes();
    }

    @Test
    void shouldTellAGarbageClientOnlyWhichTestItRunsOnRdma4jsOwnExchange() throws Exception
    {
        final ToolProcess sp = server(180, 30, List.of("send_lat", "-c", "RC", "-n", "10", "--warmup", "0"));
        try (Socket socket = connect(180, 30))
        {
            socket.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            final String signature = in.readUTF();
            assertTrue(signature.startsWith("send_lat"), signature);
            assertArrayEquals(new byte[0], rest(in), "no QP data follows the server's signature");
        }
        assertEquals(1, sp.await(60, TimeUnit.SECONDS), "server exit status: " + sp.lines());
        assertTrue(sp.lines().stream().anyMatch(l -> l.contains("not this test's signature") &&
            l.contains("nothing of this side's QPs was sent")), sp.lines().toString());
    }

    @Test
    void shouldParseTheClientsQpDataBeforeSendingItsOwnOnPerftestsExchange() throws Exception
    {
        final ToolProcess sp = server(182, 31, List.of("ib_send_lat", "-c", "RC", "-n", "10"));
        try (Socket socket = connect(182, 31))
        {
            final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            // a client that gets through versions, page and cache-line sizes and MTU as perftest would
            out.write(PerftestVersion.encode(PerftestVersion.OURS));
            out.flush();
            in.readFully(new byte[PerftestVersion.BYTES]);
            for (int i = 0; i < 2; i++)
            {
                out.writeInt(4096);
                out.flush();
                in.readFully(new byte[4]);
            }
            out.write(new byte[] {'3', 0});
            out.flush();
            in.readFully(new byte[2]);
            // then, where its QP data belongs, garbage of the right size
            final byte[] garbage = new byte[PerftestDest.GID_BYTES];
            Arrays.fill(garbage, (byte)'x');
            out.write(garbage);
            out.flush();
            assertArrayEquals(new byte[0], rest(in), "the server sent its QP data to a client that sent none");
        }
        assertEquals(1, sp.await(60, TimeUnit.SECONDS), "server exit status: " + sp.lines());
        assertTrue(sp.lines().stream().anyMatch(l -> l.startsWith("perf: the peer's QP data")), sp.lines().toString());
    }

    @Test
    void shouldTellTheUserWhatToTypeWhenAPerftestClientComes() throws Exception
    {
        final ToolProcess sp = server(184, 32, List.of("send_lat", "-c", "RC", "-n", "10", "--warmup", "0"));
        try (Socket socket = connect(184, 32))
        {
            // what ib_send_lat's client writes first: its version, and then it waits for the server's
            socket.getOutputStream().write(PerftestVersion.encode("6.06"));
            socket.getOutputStream().flush();
            final DataInputStream in = new DataInputStream(socket.getInputStream());
            assertTrue(in.readUTF().startsWith("send_lat"));
            assertArrayEquals(new byte[0], rest(in), "no QP data follows the server's signature");
        }
        assertEquals(1, sp.await(60, TimeUnit.SECONDS), "server exit status: " + sp.lines());
        final String expected = "perf: the peer is perftest 6.06, which speaks only perftest's exchange: type " +
            "rdma4j perf ib_send_lat -c RC -n 10 --warmup 0 --address " + TestNet.host(184) + " -p " +
            TestNet.tcpPort(32);
        assertTrue(sp.lines().contains(expected), sp.lines().toString());
    }

    @Test
    void shouldTellTheUserWhatToTypeWhenThePerftestServerAnswers() throws Exception
    {
        try (ServerSocket listener = new ServerSocket())
        {
            listener.bind(new InetSocketAddress(TestNet.host(186), TestNet.tcpPort(33)));
            final ToolProcess cp = ToolProcess.start("client", List.of("perf", "send_lat", "-c", "RC",
                "--exchange", "rdma4j", "--address", TestNet.host(187), "-p", String.valueOf(TestNet.tcpPort(33)),
                TestNet.host(186)), line -> false);
            children.add(cp);
            try (Socket socket = listener.accept())
            {
                // ib_send_lat's server: it reads the client's version field, writes its own, and (the field being
                // no version it knows) gives up
                socket.setSoTimeout(READ_TIMEOUT_MS);
                new DataInputStream(socket.getInputStream()).readFully(new byte[PerftestVersion.BYTES]);
                socket.getOutputStream().write(PerftestVersion.encode("6.06"));
                socket.getOutputStream().flush();
                socket.shutdownOutput();
                rest(socket.getInputStream());
            }
            assertEquals(1, cp.await(60, TimeUnit.SECONDS), "client exit status: " + cp.lines());
            final String expected = "perf: the peer is perftest 6.06, which speaks only perftest's exchange: type " +
                "rdma4j perf ib_send_lat -c RC --address " + TestNet.host(187) + " -p " + TestNet.tcpPort(33) + " " +
                TestNet.host(186);
            assertTrue(cp.lines().contains(expected), cp.lines().toString());
        }
    }
}
