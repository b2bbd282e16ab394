package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.Gid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The TCP handshake against peers that behave byte for byte as rdma-core's tools do.
 */
class DestExchangePingPongTest
{
    private static final PingPongDest CLIENT = new PingPongDest(0, 0x11, 0x0abcde, Gid.parse("::ffff:127.0.0.2"));
    private static final PingPongDest SERVER = new PingPongDest(0, 0x12, 0x054321, Gid.parse("::ffff:127.0.0.1"));

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldSendOurAddressFirstThenDoneToAnRdmaCoreServer() throws Exception
    {
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<byte[]> seen = CompletableFuture.supplyAsync(() -> rdmaCoreServer(fake));
            final List<PingPongDest> remote =
                DestExchange.client("127.0.0.1", fake.getLocalPort(), List.of(CLIENT));
            assertEquals(List.of(SERVER), remote);
            final byte[] got = seen.get(10, TimeUnit.SECONDS);
            assertArrayEquals(CLIENT.toWire(), Arrays.copyOf(got, 52));
            assertArrayEquals("done\0".getBytes(StandardCharsets.US_ASCII), Arrays.copyOfRange(got, 52, got.length));
        }
    }

    private static byte[] rdmaCoreServer(final ServerSocket fake)
    {
        try (Socket s = fake.accept())
        {
            final InputStream in = s.getInputStream();
            final byte[] msg = in.readNBytes(52);
            s.getOutputStream().write(SERVER.toWire());
            final byte[] done = in.readAllBytes();
            final byte[] all = Arrays.copyOf(msg, msg.length + done.length);
            System.arraycopy(done, 0, all, msg.length, done.length);
            return all;
        }
        catch (final Exception ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldConnectBeforeAnsweringAnRdmaCoreClient() throws Exception
    {
        final ServerSocket listener = DestExchange.listen(0);
        final int port = listener.getLocalPort();
        final AtomicReference<List<PingPongDest>> connectedTo = new AtomicReference<>();
        final CompletableFuture<List<PingPongDest>> server = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return DestExchange.server(listener, List.of(SERVER), connectedTo::set);
            }
            catch (final PingPongException ex)
            {
                throw new IllegalStateException(ex);
            }
        });
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port))
        {
            final OutputStream out = s.getOutputStream();
            out.write(CLIENT.toWire());
            final byte[] answer = s.getInputStream().readNBytes(52);
            // By the time the answer comes, the server has connected its QP to us.
            assertEquals(List.of(CLIENT), connectedTo.get());
            assertEquals(SERVER, PingPongDest.fromWire(answer, answer.length));
            out.write("done\0".getBytes(StandardCharsets.US_ASCII));
        }
        assertEquals(List.of(CLIENT), server.get(10, TimeUnit.SECONDS));
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldExchange256MessagesEachWayForSrq() throws Exception
    {
        final List<PingPongDest> mine = new ArrayList<>();
        final List<PingPongDest> theirs = new ArrayList<>();
        for (int i = 0; i < SrqQps.MAX_QP; i++)
        {
            mine.add(i < 4 ? new PingPongDest(0, 0x20 + i, i, CLIENT.gid()) : PingPongDest.EMPTY);
            theirs.add(i < 4 ? new PingPongDest(0, 0x40 + i, i, SERVER.gid()) : PingPongDest.EMPTY);
        }
        final ServerSocket listener = DestExchange.listen(0);
        final CompletableFuture<List<PingPongDest>> server = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return DestExchange.server(listener, theirs, r -> { });
            }
            catch (final PingPongException ex)
            {
                throw new IllegalStateException(ex);
            }
        });
        assertEquals(theirs, DestExchange.client("127.0.0.1", listener.getLocalPort(), mine));
        assertEquals(mine, server.get(10, TimeUnit.SECONDS));
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldSayCouldNotConnectWhenNoServerListens() throws Exception
    {
        final int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = closed.getLocalPort();
        }
        final PingPongException ex = assertThrows(PingPongException.class,
            () -> DestExchange.client("127.0.0.1", port, List.of(CLIENT)));
        assertEquals("Couldn't connect to 127.0.0.1:" + port, ex.getMessage());
    }
}
