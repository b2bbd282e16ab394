package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEventException;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.ep.AddrInfo;
import io.rdma4j.cm.ep.Endpoint;
import io.rdma4j.soft.link.FaultInjector;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * librdmacm's synchronous endpoints ({@code io.rdma4j.cm.ep}) on two soft devices: a listener hands out a request
 * with its QP made, each call blocks until its event has come, a message goes there and back, the peer's memory is
 * written and read, and misuse and a refused connect are precise errors.
 */
@Timeout(60)
class EndpointTest
{
    private static final byte[] MESSAGE = "rdma4j endpoint!".getBytes(StandardCharsets.US_ASCII);

    private final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, new FakeCmClock(),
        ConnectionManager.DEFAULT_QUEUE_CAPACITY);
    private final CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY);
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void tearDown()
    {
        cm.stop();
        fabric.close();
        arena.close();
    }

    private static QpInitAttr attr()
    {
        return new QpInitAttr(QpType.RC, null, null, null, new QpCap(4, 4, 1, 1, 16), true);
    }

    private Endpoint listener() throws InterruptedException
    {
        fabric.device(CmPeers.SERVER);
        fabric.device(CmPeers.CLIENT);
        final Endpoint listener = Endpoint.create(SoftEventChannel.create(cm),
            new AddrInfo(true, fabric.socketAddress(CmPeers.SERVER, 0), null, PortSpace.TCP), null, attr());
        listener.listen(0);
        return listener;
    }

    private Endpoint client(final int port) throws InterruptedException
    {
        return Endpoint.create(SoftEventChannel.create(cm), new AddrInfo(false, fabric.socketAddress(CmPeers.CLIENT,
            0), fabric.socketAddress(CmPeers.SERVER, port), PortSpace.TCP), null, attr());
    }

    private static byte[] bytes(final MemorySegment segment)
    {
        return segment.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    @Test
    void shouldEchoAMessageAndDisconnectFromEitherSide() throws Exception
    {
        try (Endpoint listener = listener())
        {
            final int port = listener.localAddress().getPort();
            final MemorySegment serverBuffer = arena.allocate(MESSAGE.length);
            final CompletableFuture<WorkCompletion> served = CompletableFuture.supplyAsync(() ->
            {
                try (Endpoint ep = listener.getRequest(30, TimeUnit.SECONDS))
                {
                    final WorkCompletion wc = new WorkCompletion();
                    try (MemoryRegion mr = ep.regMsgs(serverBuffer))
                    {
                        ep.postRecv(7, serverBuffer, mr);
                        ep.accept(null);
                        assertTrue(ep.getRecvComp(wc, 30, TimeUnit.SECONDS));
                        final WorkCompletion received = new WorkCompletion().copyFrom(wc);
                        ep.postSend(8, serverBuffer, mr, 0);
                        assertTrue(ep.getSendComp(wc, 30, TimeUnit.SECONDS));
                        assertEquals(8, wc.wrId());
                        ep.disconnect();
                        return received;
                    }
                }
                catch (final InterruptedException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            try (Endpoint ep = client(port))
            {
                final MemorySegment send = arena.allocate(MESSAGE.length);
                final MemorySegment recv = arena.allocate(MESSAGE.length);
                send.copyFrom(MemorySegment.ofArray(MESSAGE));
                final WorkCompletion wc = new WorkCompletion();
                try (MemoryRegion recvMr = ep.regMsgs(recv))
                {
                    ep.postRecv(1, recv, recvMr);
                    ep.connect(null);
                    // inline: no region for the message sent
                    ep.postSend(2, send, null, SendFlags.INLINE);
                    ep.getSendComp(wc);
                    assertTrue(wc.isSuccess(), wc.toString());
                    assertEquals(2, wc.wrId());
                    ep.getRecvComp(wc);
                    assertTrue(wc.isSuccess(), wc.toString());
                    assertEquals(WcOpcode.RECV, wc.opcode());
                    assertEquals(1, wc.wrId());
                    assertArrayEquals(MESSAGE, bytes(recv));
                    ep.disconnect();
                }
            }
            final WorkCompletion atServer = served.get(30, TimeUnit.SECONDS);
            assertEquals(7, atServer.wrId());
            assertEquals(MESSAGE.length, atServer.byteLen());
            assertArrayEquals(MESSAGE, bytes(serverBuffer));
        }
    }

    @Test
    void shouldDisconnectAtOnceFromAPeerWhoseAnswerNeverComes() throws Exception
    {
        try (Endpoint listener = listener())
        {
            // the server's DREP is lost, as from a peer whose host has gone: the DREQ would be repeated for a minute
            fabric.network().faultInjector(new FaultInjector(1).dropProbability(1).filter((datagram, receiver) ->
                CmTestSupport.madAttribute(datagram.bytes()) == 0x0016));
            final CompletableFuture<Endpoint> accepted = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    final Endpoint ep = listener.getRequest(30, TimeUnit.SECONDS);
                    ep.accept(null);
                    return ep;
                }
                catch (final InterruptedException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final Endpoint ep = client(listener.localAddress().getPort());
            try
            {
                ep.connect(null);
            }
            catch (final RuntimeException ex)
            {
                ep.close();
                throw ex;
            }
            try (Endpoint server = accepted.get(30, TimeUnit.SECONDS);
                MemoryRegion mr = server.regMsgs(arena.allocate(MESSAGE.length)))
            {
                server.postRecv(5, mr.segment(), mr);
                assertTimeoutPreemptively(Duration.ofSeconds(5), ep::disconnect, "disconnect waited for a DREP");
                assertTimeoutPreemptively(Duration.ofSeconds(5), ep::close, "close waited for a DREP");

                // the server got the DREQ: its QP is in ERR and its receive flushed
                final WorkCompletion wc = new WorkCompletion();
                assertTrue(server.getRecvComp(wc, 10, TimeUnit.SECONDS), "no flushed receive within 10 s");
                assertEquals(5, wc.wrId());
                assertEquals(WcStatus.WR_FLUSH_ERR, wc.status());
            }
            finally
            {
                ep.close();
            }
        }
    }

    @Test
    void shouldWriteAndReadThePeersRegisteredMemory() throws Exception
    {
        try (Endpoint listener = listener())
        {
            final MemorySegment target = arena.allocate(64);
            final CompletableFuture<Endpoint> accepted = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    final Endpoint ep = listener.getRequest(30, TimeUnit.SECONDS);
                    ep.accept(null);
                    return ep;
                }
                catch (final InterruptedException ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            try (Endpoint ep = client(listener.localAddress().getPort()))
            {
                ep.connect(null);
                try (Endpoint server = accepted.get(30, TimeUnit.SECONDS);
                    MemoryRegion written = server.regWrite(target.asSlice(0, 32));
                    MemoryRegion read = server.regRead(target.asSlice(32, 32));
                    MemoryRegion local = ep.regMsgs(arena.allocate(MESSAGE.length)))
                {
                    final WorkCompletion wc = new WorkCompletion();
                    local.segment().copyFrom(MemorySegment.ofArray(MESSAGE));
                    ep.postWrite(1, local.segment(), local, 0, written.address(), written.rkey());
                    ep.getSendComp(wc);
                    assertTrue(wc.isSuccess(), wc.toString());
                    assertArrayEquals(MESSAGE, bytes(target.asSlice(0, MESSAGE.length)));

                    target.asSlice(32, MESSAGE.length).fill((byte) 'r');
                    ep.postRead(2, local.segment(), local, 0, read.address(), read.rkey());
                    ep.getSendComp(wc);
                    assertTrue(wc.isSuccess(), wc.toString());
                    assertEquals(WcOpcode.RDMA_READ, wc.opcode());
                    assertEquals("rrrrrrrrrrrrrrrr", new String(bytes(local.segment()), StandardCharsets.US_ASCII));

                    // rdma_reg_write's region does not let the peer read it
                    ep.postRead(3, local.segment(), local, 0, written.address(), written.rkey());
                    ep.getSendComp(wc);
                    assertEquals(io.rdma4j.verbs.WcStatus.REM_ACCESS_ERR, wc.status());
                }
            }
        }
    }

    @Test
    void shouldRefuseAConnectNobodyListensFor() throws Exception
    {
        try (Endpoint listener = listener(); Endpoint ep = client(listener.localAddress().getPort() + 1))
        {
            final CmEventException refused = assertThrows(CmEventException.class, () -> ep.connect(null));
            assertEquals(Errno.ECONNREFUSED, refused.errno());
            assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, ep::disconnect).errno());
        }
    }

    @Test
    void shouldNameTheMisuse() throws Exception
    {
        try (Endpoint listener = listener())
        {
            assertNull(listener.getRequest(0, TimeUnit.SECONDS));
            assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> listener.connect(null)).errno());
            assertEquals(Errno.EINVAL, assertThrows(RdmaException.class,
                () -> listener.postSend(0, arena.allocate(8), null, SendFlags.INLINE)).errno());
            try (Endpoint ep = client(listener.localAddress().getPort()))
            {
                assertEquals(Errno.EINVAL, assertThrows(RdmaException.class,
                    () -> ep.getRequest(0, TimeUnit.SECONDS)).errno());
                assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, ep::disconnect).errno());
                try (MemoryRegion mr = ep.regMsgs(arena.allocate(16)))
                {
                    final RdmaException outside = assertThrows(RdmaException.class,
                        () -> ep.postRecv(0, arena.allocate(16), mr));
                    assertEquals(Errno.EINVAL, outside.errno());
                    assertTrue(outside.getMessage().contains("outside the memory region"), outside.getMessage());
                }
                ep.close();
                final RdmaException closed = assertThrows(RdmaException.class, () -> ep.listen(0));
                assertEquals(Errno.EINVAL, closed.errno());
            }
            final RdmaException wrongType = assertThrows(RdmaException.class, () -> Endpoint.create(
                SoftEventChannel.create(cm), new AddrInfo(false, null, new InetSocketAddress(
                    fabric.address(CmPeers.SERVER), 1), PortSpace.TCP), null,
                QpInitAttr.of(QpType.UD, null, QpCap.of(1, 1))));
            assertEquals(Errno.EINVAL, wrongType.errno());
        }
    }
}
