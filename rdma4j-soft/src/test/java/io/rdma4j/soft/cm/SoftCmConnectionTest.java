package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.UdParam;
import io.rdma4j.soft.cm.mad.CmRep;
import io.rdma4j.soft.cm.mad.CmReq;
import io.rdma4j.cm.RejectReason;
import io.rdma4j.soft.link.FaultInjector;
import io.rdma4j.soft.link.SentDatagram;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.rdma4j.soft.cm.CmTestSupport.awaitPhase;
import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static io.rdma4j.soft.cm.CmTestSupport.madAttribute;
import static io.rdma4j.soft.cm.CmTestSupport.refused;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SPEC "The server flow": connections made through the connection manager (REQ, REP, RTU, REJ,
 * DREQ, DREP and SIDR between the QP1s of two devices), on the in-memory network and over UDP.
 */
@Timeout(60)
class SoftCmConnectionTest
{
    private static final int SERVER = 1;
    private static final int CLIENT = 2;

    /** What one side of a connection needs: a PD, a CQ, a QP on the id and a registered buffer. */
    private static final class Side implements AutoCloseable
    {
        final CmId id;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemorySegment buffer = Arena.ofAuto().allocate(4096, 64);
        final MemoryRegion mr;
        final WorkCompletion[] wcs = WorkCompletion.array(8);

        Side(final CmId id, final QpType type)
        {
            this.id = id;
            pd = id.verbs().allocPd();
            cq = id.verbs().createCq(16, null, 0);
            qp = id.createQp(pd, QpInitAttr.of(type, cq, new QpCap(8, 8, 1, 1, 0)));
            mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
                AccessFlag.REMOTE_READ));
        }

        void postRecv(final long offset, final int length)
        {
            qp.postRecv(new RecvWr().wrId(offset).sge(mr, offset, length));
        }

        void send(final String text)
        {
            final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(bytes, 0, buffer, ValueLayout.JAVA_BYTE, 2048, bytes.length);
            qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(mr, 2048, bytes.length));
        }

        WorkCompletion poll()
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cq.poll(wcs, 1) == 0)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("no completion within 10 s on " + id);
                }
                Thread.onSpinWait();
            }
            return wcs[0];
        }

        String text(final long offset, final int length)
        {
            final byte[] bytes = new byte[length];
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset, bytes, 0, length);
            return new String(bytes, StandardCharsets.US_ASCII);
        }

        @Override
        public void close()
        {
            id.destroyQp();
            mr.close();
            cq.close();
            pd.close();
        }
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static String prefix(final byte[] data, final int length)
    {
        return new String(data, 0, length, StandardCharsets.US_ASCII);
    }

    /** rdma_resolve_addr and rdma_resolve_route from the client's address to the server's. */
    private static CmId resolvedId(final EventChannel channel, final CmFabric fabric, final InetSocketAddress server,
        final PortSpace space) throws InterruptedException
    {
        final CmId id = channel.createId("client", space);
        id.resolveAddr(fabric.socketAddress(CLIENT, 0), server, 2000);
        expectAndAck(channel, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(2000);
        expectAndAck(channel, CmEventType.ROUTE_RESOLVED);
        return id;
    }

    private static CmId listener(final EventChannel channel, final CmFabric fabric, final PortSpace space)
    {
        final CmId listener = channel.createId("listener", space);
        listener.bindAddr(fabric.socketAddress(SERVER, 0));
        listener.listen(10);
        return listener;
    }

    /**
     * An RC connection request as the server sees it: the listener, the client's id and side (one
     * 64-byte receive posted) and the new id the CONNECT_REQUEST carried, acknowledged.
     */
    private record Request(CmId listener, CmId clientId, Side client, CmId serverId)
    {
    }

    /** A connection both sides saw ESTABLISHED on; the server side has a 64-byte receive posted. */
    private record Connection(Request request, Side server) implements AutoCloseable
    {
        CmId clientId()
        {
            return request.clientId();
        }

        Side client()
        {
            return request.client();
        }

        CmId serverId()
        {
            return request.serverId();
        }

        @Override
        public void close()
        {
            request.client().close();
            server.close();
            request.clientId().close();
            request.serverId().close();
            request.listener().close();
        }
    }

    private static Request requestRc(final CmFabric fabric, final EventChannel serverChannel,
        final EventChannel clientChannel) throws InterruptedException
    {
        final CmId listener = listener(serverChannel, fabric, PortSpace.TCP);
        final CmId clientId = resolvedId(clientChannel, fabric,
            fabric.socketAddress(SERVER, listener.localAddress().getPort()), PortSpace.TCP);
        final Side client = new Side(clientId, QpType.RC);
        client.postRecv(0, 64);
        clientId.connect(null);
        final CmEvent request = expect(serverChannel, CmEventType.CONNECT_REQUEST);
        request.ack();
        return new Request(listener, clientId, client, request.id());
    }

    private static Connection accept(final Request request, final EventChannel serverChannel,
        final EventChannel clientChannel) throws InterruptedException
    {
        final Side server = new Side(request.serverId(), QpType.RC);
        server.postRecv(0, 64);
        request.serverId().accept(null);
        expectAndAck(clientChannel, CmEventType.ESTABLISHED);
        expectAndAck(serverChannel, CmEventType.ESTABLISHED);
        return new Connection(request, server);
    }

    @ParameterizedTest
    @EnumSource(CmFabric.Kind.class)
    void shouldConnectExchangeAndDisconnectAsTheTutorialServerDoes(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind);
            EventChannel serverChannel = CmTesting.channel();
            EventChannel clientChannel = CmTesting.channel())
        {
            fabric.device(SERVER);
            fabric.device(CLIENT);
            final CmId listener = listener(serverChannel, fabric, PortSpace.TCP);
            final int port = listener.localAddress().getPort();
            assertNotEquals(0, port, "port 0 picks a free port, read back after bind");

            final CmId clientId = resolvedId(clientChannel, fabric, fabric.socketAddress(SERVER, port),
                PortSpace.TCP);
            final Side client = new Side(clientId, QpType.RC);
            client.postRecv(0, 1024);
            clientId.connect(new ConnParam(bytes("hello"), 1, 1, 0, 7, 7, false, 0));
            assertEquals(QpState.INIT, client.qp.query().state(), "connect leaves the QP alone until the REP");

            final CmEvent request = expect(serverChannel, CmEventType.CONNECT_REQUEST);
            assertSame(listener, request.listenId());
            final CmId serverId = request.id();
            assertEquals("listener", serverId.context(), "a new id inherits the listener's context");
            assertEquals(fabric.address(CLIENT), serverId.peerAddress().getAddress());
            assertEquals(clientId.localAddress().getPort(), serverId.peerAddress().getPort());
            final ConnParam asked = request.connParam();
            assertEquals(CmWire.REQ_USER_DATA, asked.privateData().length, "rdma_cm reports the whole 56 bytes");
            assertEquals("hello", prefix(asked.privateData(), 5));
            assertEquals(client.qp.qpNum(), asked.qpNum());
            assertEquals(1, asked.responderResources());
            assertEquals(1, asked.initiatorDepth());
            request.ack();

            final Side server = new Side(serverId, QpType.RC);
            server.postRecv(0, 1024);
            serverId.accept(new ConnParam(bytes("welcome"), 1, 1, 0, 7, 7, false, 0));
            assertEquals(QpState.RTS, server.qp.query().state(), "accept takes the QP to RTS");

            final CmEvent established = expect(clientChannel, CmEventType.ESTABLISHED);
            assertEquals("welcome", prefix(established.connParam().privateData(), 7));
            assertEquals(server.qp.qpNum(), established.connParam().qpNum());
            established.ack();
            expectAndAck(serverChannel, CmEventType.ESTABLISHED);
            assertEquals(QpState.RTS, client.qp.query().state());
            assertEquals(server.qp.qpNum(), client.qp.query().destQpNum());
            assertEquals(client.qp.qpNum(), server.qp.query().destQpNum());

            client.send("ping over a CM connection");
            assertEquals(WcStatus.SUCCESS, client.poll().status());
            final WorkCompletion received = server.poll();
            assertEquals(WcOpcode.RECV, received.opcode());
            assertEquals("ping over a CM connection", server.text(0, received.byteLen()));
            server.send("pong");
            assertEquals(WcStatus.SUCCESS, server.poll().status());
            assertEquals("pong", client.text(0, client.poll().byteLen()));

            clientId.disconnect();
            assertEquals(QpState.ERR, client.qp.query().state(), "disconnect moves the QP to ERR");
            expectAndAck(serverChannel, CmEventType.DISCONNECTED);
            expectAndAck(clientChannel, CmEventType.DISCONNECTED);
            assertEquals(QpState.ERR, server.qp.query().state());
            serverId.disconnect();

            client.close();
            server.close();
            clientId.close();
            serverId.close();
            listener.close();
        }
    }

    @ParameterizedTest
    @EnumSource(CmFabric.Kind.class)
    void shouldReportTheDisconnectOfTheServerToTheClient(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind);
            EventChannel serverChannel = CmTesting.channel();
            EventChannel clientChannel = CmTesting.channel())
        {
            fabric.device(SERVER);
            fabric.device(CLIENT);
            try (Connection connection = accept(requestRc(fabric, serverChannel, clientChannel), serverChannel,
                clientChannel))
            {
                connection.serverId().disconnect();
                expectAndAck(clientChannel, CmEventType.DISCONNECTED);
                expectAndAck(serverChannel, CmEventType.DISCONNECTED);
                assertEquals(WcStatus.WR_FLUSH_ERR, connection.client().poll().status(),
                    "the client's receive is flushed");
                connection.clientId().disconnect();
                refused(Errno.EINVAL, () -> connection.serverId().accept(null));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CmFabric.Kind.class)
    void shouldReportARejectionWithItsReasonAndPrivateData(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind);
            EventChannel serverChannel = CmTesting.channel();
            EventChannel clientChannel = CmTesting.channel())
        {
            fabric.device(SERVER);
            fabric.device(CLIENT);
            final Request request = requestRc(fabric, serverChannel, clientChannel);
            final CmId listener = request.listener();
            final Side client = request.client();
            request.serverId().reject(bytes("go away"));

            final CmEvent rejected = expect(clientChannel, CmEventType.REJECTED);
            assertEquals(RejectReason.CONSUMER_DEFINED.code(), rejected.status(),
                "rdma_reject's reason: consumer defined");
            assertEquals("go away", prefix(rejected.connParam().privateData(), 7));
            rejected.ack();
            assertEquals(QpState.ERR, client.qp.query().state());

            // nobody listens on the next port: the peer's CM rejects with "invalid service ID"
            final CmId lost = resolvedId(clientChannel, fabric,
                fabric.socketAddress(SERVER, listener.localAddress().getPort() + 1), PortSpace.TCP);
            final Side other = new Side(lost, QpType.RC);
            lost.connect(null);
            final CmEvent noListener = expect(clientChannel, CmEventType.REJECTED);
            assertEquals(RejectReason.INVALID_SERVICE_ID.code(), noListener.status());
            noListener.ack();

            other.close();
            lost.close();
            client.close();
            request.clientId().close();
            request.serverId().close();
            listener.close();
        }
    }

    @ParameterizedTest
    @EnumSource(CmFabric.Kind.class)
    void shouldResolveAUdServiceThroughSidr(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind);
            EventChannel serverChannel = CmTesting.channel();
            EventChannel clientChannel = CmTesting.channel())
        {
            fabric.device(SERVER);
            fabric.device(CLIENT);
            final CmId listener = listener(serverChannel, fabric, PortSpace.UDP);
            final CmId clientId = resolvedId(clientChannel, fabric,
                fabric.socketAddress(SERVER, listener.localAddress().getPort()), PortSpace.UDP);
            final Side client = new Side(clientId, QpType.UD);
            clientId.connect(new ConnParam(bytes("udaddy"), 0, 0, 0, 0, 0, false, 0));

            final CmEvent request = expect(serverChannel, CmEventType.CONNECT_REQUEST);
            final CmId serverId = request.id();
            assertEquals("udaddy", prefix(request.udParam().privateData(), 6));
            request.ack();
            final Side server = new Side(serverId, QpType.UD);
            server.postRecv(0, 1024);
            serverId.accept(null);

            final CmEvent established = expect(clientChannel, CmEventType.ESTABLISHED);
            final UdParam ud = established.udParam();
            assertEquals(server.qp.qpNum(), ud.qpNum());
            assertEquals(RdmaCm.UDP_QKEY, ud.qkey());
            assertEquals(Gid.fromInet(fabric.address(SERVER)), ud.ahAttr().grh().dgid());
            established.ack();

            final AddressHandle ah = client.pd.createAh(ud.ahAttr());
            final byte[] text = bytes("datagram");
            MemorySegment.copy(text, 0, client.buffer, ValueLayout.JAVA_BYTE, 2048, text.length);
            client.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(client.mr, 2048, text.length).ud(ah, ud.qpNum(), ud.qkey()));
            assertEquals(WcStatus.SUCCESS, client.poll().status());
            final WorkCompletion got = server.poll();
            assertEquals(40 + text.length, got.byteLen());
            assertEquals("datagram", server.text(40, text.length));
            assertEquals(client.qp.qpNum(), got.srcQp());

            ah.close();
            client.close();
            server.close();
            clientId.close();
            serverId.close();
            listener.close();
        }
    }

    @ParameterizedTest
    @EnumSource(CmFabric.Kind.class)
    void shouldRefuseConnectionVerbsInTheWrongState(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind); EventChannel channel = CmTesting.channel())
        {
            fabric.device(SERVER);
            final CmId id = channel.createId(null, PortSpace.TCP);
            assertTrue(refused(Errno.EINVAL, () -> id.connect(null)).getMessage().contains("IDLE"));
            refused(Errno.EINVAL, () -> id.accept(null));
            refused(Errno.EINVAL, () -> id.reject(null));
            refused(Errno.EINVAL, () -> id.disconnect());
            id.bindAddr(fabric.socketAddress(SERVER, 0));
            id.listen(4);
            refused(Errno.EINVAL, () -> id.listen(4));
            final CmId resolved = channel.createId(null, PortSpace.TCP);
            resolved.resolveAddr(fabric.socketAddress(SERVER, 0), fabric.socketAddress(SERVER, 7174), 2000);
            expectAndAck(channel, CmEventType.ADDR_RESOLVED);
            resolved.resolveRoute(2000);
            expectAndAck(channel, CmEventType.ROUTE_RESOLVED);
            assertTrue(refused(Errno.EINVAL, () -> resolved.connect(null)).getMessage().contains("no QP"));
            final byte[] tooLong = new byte[CmWire.REQ_USER_DATA + 1];
            final Side side = new Side(resolved, QpType.RC);
            final String message = refused(Errno.EINVAL,
                () -> resolved.connect(new ConnParam(tooLong, 1, 1, 0, 7, 7, false, 0))).getMessage();
            assertTrue(message.contains("57 bytes") && message.contains("56"), message);
            side.close();
            resolved.close();
            id.close();
        }
    }

    @ParameterizedTest
    @EnumSource(CmFabric.Kind.class)
    void shouldRejectRequestsNobodySawWhenTheListenerIsDestroyed(final CmFabric.Kind kind) throws Exception
    {
        try (CmFabric fabric = new CmFabric(kind);
            EventChannel serverChannel = CmTesting.channel();
            EventChannel clientChannel = CmTesting.channel())
        {
            fabric.device(SERVER);
            fabric.device(CLIENT);
            final CmId listener = listener(serverChannel, fabric, PortSpace.TCP);
            final CmId clientId = resolvedId(clientChannel, fabric,
                fabric.socketAddress(SERVER, listener.localAddress().getPort()), PortSpace.TCP);
            final Side client = new Side(clientId, QpType.RC);
            clientId.connect(null);
            awaitQueuedEvent(serverChannel);

            listener.close();
            final CmEvent rejected = expect(clientChannel, CmEventType.REJECTED);
            assertEquals(RejectReason.CONSUMER_DEFINED.code(), rejected.status());
            rejected.ack();

            client.close();
            clientId.close();
        }
        // closing serverChannel above would have thrown EBUSY had the unseen request's id stayed
    }

    @Test
    void shouldAskForTimeWithAnMraAndWaitWhenAskedForIt() throws Exception
    {
        final FakeCmClock clock = new FakeCmClock();
        final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, clock, ConnectionManager.DEFAULT_QUEUE_CAPACITY);
        try (AutoCloseable stop = cm::stop; CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY);
            EventChannel serverChannel = SoftEventChannel.create(cm);
            EventChannel clientChannel = SoftEventChannel.create(cm))
        {
            final AtomicInteger reqs = new AtomicInteger();
            final AtomicInteger mras = new AtomicInteger();
            fabric.network().tap(d ->
            {
                final int attribute = madAttribute(d.bytes());
                if (attribute == 0x0010)
                {
                    reqs.incrementAndGet();
                }
                else if (attribute == 0x0011)
                {
                    mras.incrementAndGet();
                }
            });
            fabric.device(SERVER);
            fabric.device(CLIENT);
            final Request request = requestRc(fabric, serverChannel, clientChannel);
            assertEquals(1, reqs.get());

            // the application sits on the request: after the response timeout the REQ goes again and gets an MRA
            clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
            awaitPhase(request.clientId(), CmConnection.Phase.MRA_REQ_RCVD);
            assertEquals(2, reqs.get());
            assertEquals(1, mras.get());

            // the client now waits the MRA's service time (about 69 s) instead of the next 4.3 s
            final long serviceNanos = 4096L << CmWire.MRA_SERVICE_TIMEOUT;
            clock.advance(serviceNanos);
            cm.awaitIdle();
            assertEquals(2, reqs.get(), "a REQ was sent again before the MRA's service time and a response timeout");
            clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
            cm.awaitIdle();
            assertEquals(3, reqs.get(), "the REQ goes again once the MRA's wait is over");

            accept(request, serverChannel, clientChannel).close();
        }
    }

    /** Wait until the channel has an event queued, without taking it. */
    private static void awaitQueuedEvent(final EventChannel channel)
    {
        final SoftEventChannel soft = (SoftEventChannel)channel;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (soft.queued() == 0)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("no event queued within 10 s");
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void shouldConnectWhenTheReplyAndTheReadyToUseAreLost() throws Exception
    {
        final FakeCmClock clock = new FakeCmClock();
        final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, clock, ConnectionManager.DEFAULT_QUEUE_CAPACITY);
        try (AutoCloseable stop = cm::stop; CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY);
            EventChannel serverChannel = SoftEventChannel.create(cm);
            EventChannel clientChannel = SoftEventChannel.create(cm))
        {
            fabric.device(SERVER);
            fabric.device(CLIENT);
            // lose the first REP and the first RTU: the REQ is sent again and answered from the REP
            // already sent, the REP is sent again and answered with the RTU already sent
            final Set<Integer> lost = ConcurrentHashMap.newKeySet();
            fabric.network().faultInjector(new FaultInjector(1).dropProbability(1).filter((datagram, receiver) ->
            {
                final int attribute = madAttribute(datagram.bytes());
                return (attribute == 0x0013 || attribute == 0x0014) && lost.add(attribute);
            }));
            final Request request = requestRc(fabric, serverChannel, clientChannel);
            final Side server = new Side(request.serverId(), QpType.RC);
            server.postRecv(0, 64);
            request.serverId().accept(null);
            awaitPhase(request.serverId(), CmConnection.Phase.REP_SENT);
            cm.awaitIdle();
            assertEquals(Set.of(0x0013), lost, "the first REP is lost");
            assertEquals(CmConnection.Phase.REQ_SENT, ((SoftCmId)request.clientId()).connectionPhase());

            // one response timeout: the client's REQ and the server's REP go again
            clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
            expectAndAck(clientChannel, CmEventType.ESTABLISHED);
            expectAndAck(serverChannel, CmEventType.ESTABLISHED);
            try (Connection connection = new Connection(request, server))
            {
                assertEquals(Set.of(0x0013, 0x0014), lost);
                assertEquals(2, fabric.network().faultInjector().dropped());
                assertEquals(null, serverChannel.getEvent(0, TimeUnit.SECONDS), "one request, one connection");

                connection.client().send("after recovery");
                assertEquals("after recovery", connection.server().text(0, connection.server().poll().byteLen()));
            }
        }
    }

    @Test
    void shouldSendFromThePeersStartingPsnAsRxeDoes() throws Exception
    {
        // rping.pcap: the active side's first SEND carries the REP's starting PSN, the passive
        // side's first packet the REQ's
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY);
            EventChannel serverChannel = CmTesting.channel();
            EventChannel clientChannel = CmTesting.channel())
        {
            final List<SentDatagram> wire = new CopyOnWriteArrayList<>();
            fabric.network().tap(wire::add);
            fabric.device(SERVER);
            fabric.device(CLIENT);
            final Connection connection = accept(requestRc(fabric, serverChannel, clientChannel), serverChannel,
                clientChannel);
            final Side client = connection.client();
            final Side server = connection.server();
            client.send("a");
            server.poll();
            client.poll();
            server.send("b");
            client.poll();
            server.poll();

            int reqPsn = -1;
            int repPsn = -1;
            int clientSendPsn = -1;
            int serverSendPsn = -1;
            for (final SentDatagram d : wire)
            {
                final byte[] bytes = d.bytes();
                final int attribute = madAttribute(bytes);
                if (attribute == 0x0010)
                {
                    reqPsn = new CmReq().wrap(MemorySegment.ofArray(bytes), 20).startingPsn();
                }
                else if (attribute == 0x0013)
                {
                    repPsn = new CmRep().wrap(MemorySegment.ofArray(bytes), 20).startingPsn();
                }
                else if (bytes[0] == 0x04 && clientSendPsn < 0 && d.source().equals(fabric.address(CLIENT)))
                {
                    clientSendPsn = psn(bytes);
                }
                else if (bytes[0] == 0x04 && serverSendPsn < 0 && d.source().equals(fabric.address(SERVER)))
                {
                    serverSendPsn = psn(bytes);
                }
            }
            assertEquals(repPsn, clientSendPsn, "the active side sends from the REP's starting PSN");
            assertEquals(reqPsn, serverSendPsn, "the passive side sends from the REQ's starting PSN");
            connection.close();
        }
    }

    private static int psn(final byte[] bth)
    {
        return ((bth[9] & 0xFF) << 16) | ((bth[10] & 0xFF) << 8) | (bth[11] & 0xFF);
    }

    /** The MAD attribute of a QP1 datagram (BTH 12 + DETH 8 bytes, then the MAD), or -1. */
}
