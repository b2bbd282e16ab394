package io.rdma4j.rdmacore;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.rdmacore.cm.NativeCmId;
import io.rdma4j.rdmacore.cm.NativeEventChannel;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpAttrMask;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The native connection manager over librdmacm on the first native device (rxe0 in the lab guest), client and
 * server in one process on the device's IPv4 address: RC connect/accept/reject/disconnect with private data,
 * SIDR in the UDP port space, multicast joins with both flags, and librdmacm's errno carried into
 * {@link RdmaException}. Skipped, with the reason, where there is no device.
 */
class NativeCmTest
{
    private static final long WAIT_SECONDS = 20;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private InetAddress address;
    private NativeEventChannel server;
    private NativeEventChannel client;

    @BeforeEach
    void open()
    {
        final NativeDevice device = Rxe.device();
        try (NativeContext context = device.open())
        {
            address = context.queryGid(1, Rxe.ipv4GidIndex(context)).toInet();
        }
        server = NativeEventChannel.create();
        client = NativeEventChannel.create();
    }

    @AfterEach
    void close() throws Exception
    {
        for (final AutoCloseable closeable : toClose.reversed())
        {
            closeable.close();
        }
        // null when the test was skipped for want of a device
        if (server != null)
        {
            server.close();
        }
        if (client != null)
        {
            client.close();
        }
    }

    private <T extends AutoCloseable> T closing(final T closeable)
    {
        toClose.add(closeable);
        return closeable;
    }

    private static CmEvent expect(final EventChannel channel, final CmEventType type) throws InterruptedException
    {
        final CmEvent event = channel.getEvent(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(event, "no event within " + WAIT_SECONDS + " s, expected " + type);
        assertEquals(type, event.type(), () -> "event " + event + " status " + event.status());
        return event;
    }

    private CmId listener(final PortSpace portSpace)
    {
        final CmId listener = closing(server.createId("listener", portSpace));
        listener.bindAddr(new InetSocketAddress(address, 0));
        listener.listen(4);
        return listener;
    }

    private CmId resolved(final CmId listener, final PortSpace portSpace) throws InterruptedException
    {
        final CmId id = closing(client.createId("client", portSpace));
        id.resolveAddr(null, new InetSocketAddress(address, listener.localAddress().getPort()), 2000);
        expect(client, CmEventType.ADDR_RESOLVED).ack();
        id.resolveRoute(2000);
        expect(client, CmEventType.ROUTE_RESOLVED).ack();
        return id;
    }

    private QpInitAttr qpOn(final CmId id, final QpType type)
    {
        final CompletionQueue cq = closing(id.verbs().createCq(16, null, 0));
        return QpInitAttr.of(type, cq, QpCap.of(8, 8));
    }

    private static byte[] text(final String value)
    {
        return value.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void rcConnectionCarriesPrivateDataBothWaysThenASendThenDisconnects() throws Exception
    {
        final CmId listener = listener(PortSpace.TCP);
        final CmId active = resolved(listener, PortSpace.TCP);
        final ProtectionDomain clientPd = closing(active.verbs().allocPd());
        active.createQp(clientPd, qpOn(active, QpType.RC));
        closing(active::destroyQp);
        active.connect(new ConnParam(text("hello"), 1, 1, 0, 7, 7, false, 0));

        final CmEvent request = expect(server, CmEventType.CONNECT_REQUEST);
        assertSame(listener, request.listenId());
        assertArrayEquals(text("hello"), java.util.Arrays.copyOf(request.connParam().privateData(), 5));
        final CmId passive = closing(request.id());
        assertEquals("listener", passive.context(), "a request's id starts with the listener's context");
        request.ack();
        final ProtectionDomain serverPd = closing(passive.verbs().allocPd());
        final QpInitAttr serverAttr = qpOn(passive, QpType.RC);
        passive.createQp(serverPd, serverAttr);
        closing(passive::destroyQp);
        try (Arena arena = Arena.ofShared())
        {
            final MemorySegment received = arena.allocate(64);
            final MemoryRegion recvMr = closing(serverPd.regMr(received, EnumSet.of(AccessFlag.LOCAL_WRITE)));
            passive.qp().postRecv(new RecvWr().wrId(7).sge(recvMr, 0, 64));
            passive.accept(new ConnParam(text("welcome"), 1, 1, 0, 7, 7, false, 0));

            final CmEvent established = expect(client, CmEventType.ESTABLISHED);
            assertSame(active, established.id());
            assertArrayEquals(text("welcome"), java.util.Arrays.copyOf(established.connParam().privateData(), 7));
            established.ack();
            expect(server, CmEventType.ESTABLISHED).ack();

            final MemorySegment message = arena.allocate(64);
            message.setString(0, "over librdmacm", StandardCharsets.US_ASCII);
            final MemoryRegion sendMr = closing(clientPd.regMr(message, EnumSet.of(AccessFlag.LOCAL_WRITE)));
            active.qp().postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(sendMr, 0, 64));
            final WorkCompletion wc = Rxe.pollOne(serverAttr.recvCq(), new WorkCompletion());
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(7, wc.wrId());
            assertEquals("over librdmacm", received.getString(0, StandardCharsets.US_ASCII));
        }

        disconnectBoth(active, passive);
    }

    /** The DREQ reaches the server; its own disconnect answers with the DREP the client waits for. */
    private void disconnectBoth(final CmId active, final CmId passive) throws Exception
    {
        active.disconnect();
        expect(server, CmEventType.DISCONNECTED).ack();
        passive.disconnect();
        expect(client, CmEventType.DISCONNECTED).ack();
    }

    /**
     * A QP of the caller's own, taken through INIT, RTR and RTS by librdmacm's attributes (rdma_init_qp_attr), as
     * rmcast's subscriber and rping -q do: the connection is established and carries a SEND.
     */
    @Test
    void anOwnQpIsConnectedWithInitQpAttrThenCarriesASend() throws Exception
    {
        final CmId listener = listener(PortSpace.TCP);
        final CmId active = resolved(listener, PortSpace.TCP);
        final ProtectionDomain clientPd = closing(active.verbs().allocPd());
        final QueuePair own = closing(clientPd.createQp(qpOn(active, QpType.RC)));
        final QpAttr init = active.initQpAttr(QpState.INIT);
        assertTrue(init.mask().contains(QpAttrMask.STATE) && init.mask().contains(QpAttrMask.PORT), init.toString());
        own.modify(init);
        active.connect(new ConnParam(null, 1, 1, 0, 7, 7, false, own.qpNum()));

        final CmEvent request = expect(server, CmEventType.CONNECT_REQUEST);
        final CmId passive = closing(request.id());
        request.ack();
        final ProtectionDomain serverPd = closing(passive.verbs().allocPd());
        final QpInitAttr serverAttr = qpOn(passive, QpType.RC);
        passive.createQp(serverPd, serverAttr);
        closing(passive::destroyQp);
        try (Arena arena = Arena.ofShared())
        {
            final MemorySegment received = arena.allocate(64);
            final MemoryRegion recvMr = closing(serverPd.regMr(received, EnumSet.of(AccessFlag.LOCAL_WRITE)));
            passive.qp().postRecv(new RecvWr().wrId(5).sge(recvMr, 0, 64));
            passive.accept(new ConnParam(null, 1, 1, 0, 7, 7, false, 0));

            expect(client, CmEventType.CONNECT_RESPONSE).ack();
            final QpAttr rtr = active.initQpAttr(QpState.RTR);
            assertTrue(rtr.mask().containsAll(EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.DEST_QPN,
                QpAttrMask.RQ_PSN)), rtr.mask().toString());
            assertEquals(passive.qp().qpNum(), rtr.destQpNum());
            own.modify(rtr);
            own.modify(active.initQpAttr(QpState.RTS));
            assertEquals(QpState.RTS, own.query().state());
            active.establish();
            expect(server, CmEventType.ESTABLISHED).ack();

            final MemorySegment message = arena.allocate(64);
            message.setString(0, "from an own QP", StandardCharsets.US_ASCII);
            final MemoryRegion sendMr = closing(clientPd.regMr(message, EnumSet.of(AccessFlag.LOCAL_WRITE)));
            own.postSend(new SendWr().wrId(9).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(sendMr, 0, 64));
            final WorkCompletion wc = Rxe.pollOne(serverAttr.recvCq(), new WorkCompletion());
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals("from an own QP", received.getString(0, StandardCharsets.US_ASCII));
        }
        disconnectBoth(active, passive);
    }

    @Test
    void aRejectReachesTheClientWithItsReasonAndPrivateData() throws Exception
    {
        final CmId listener = listener(PortSpace.TCP);
        final CmId active = resolved(listener, PortSpace.TCP);
        active.createQp(null, qpOn(active, QpType.RC));
        closing(active::destroyQp);
        active.connect(null);
        final CmEvent request = expect(server, CmEventType.CONNECT_REQUEST);
        final CmId passive = request.id();
        request.ack();
        passive.reject(text("busy"));
        passive.close();

        final CmEvent rejected = expect(client, CmEventType.REJECTED);
        assertEquals(28, rejected.status(), "IB CM reason 28: consumer defined");
        assertArrayEquals(text("busy"), java.util.Arrays.copyOf(rejected.connParam().privateData(), 4));
        rejected.ack();
    }

    @Test
    void sidrInTheUdpPortSpaceGivesTheClientTheServersQpnAndQkey() throws Exception
    {
        final CmId listener = listener(PortSpace.UDP);
        final CmId active = resolved(listener, PortSpace.UDP);
        active.createQp(null, qpOn(active, QpType.UD));
        closing(active::destroyQp);
        active.connect(new ConnParam(text("sidr"), 0, 0, 0, 0, 0, false, 0));

        final CmEvent request = expect(server, CmEventType.CONNECT_REQUEST);
        assertNull(request.connParam());
        assertArrayEquals(text("sidr"), java.util.Arrays.copyOf(request.udParam().privateData(), 4));
        final CmId passive = closing(request.id());
        request.ack();
        passive.createQp(null, qpOn(passive, QpType.UD));
        closing(passive::destroyQp);
        passive.accept(null);

        final CmEvent established = expect(client, CmEventType.ESTABLISHED);
        assertEquals(passive.qp().qpNum(), established.udParam().qpNum());
        assertEquals(RdmaCm.UDP_QKEY, established.udParam().qkey());
        assertNotNull(established.udParam().ahAttr().grh(), "RoCE needs the GRH to reach the server");
        established.ack();
    }

    @Test
    void joinsWithBothFlagsReturnTheirContextAndGroupThenLeave() throws Exception
    {
        final InetSocketAddress full = new InetSocketAddress(InetAddress.getByName("239.77.9.1"), 0);
        final InetSocketAddress sendOnly = new InetSocketAddress(InetAddress.getByName("239.77.9.2"), 0);
        final CmId id = closing(client.createId(null, PortSpace.UDP));
        id.bindAddr(new InetSocketAddress(address, 0));
        id.createQp(null, qpOn(id, QpType.UD));
        closing(id::destroyQp);

        id.joinMulticast(full, JoinFlags.FULLMEMBER, "full");
        final CmEvent joined = expect(client, CmEventType.MULTICAST_JOIN);
        assertEquals("full", joined.joinContext());
        assertEquals(full, joined.multicastAddress());
        assertEquals(RdmaCm.MULTICAST_QPN, joined.udParam().qpNum());
        joined.ack();
        id.joinMulticast(sendOnly, JoinFlags.SENDONLY_FULLMEMBER, "send-only");
        final CmEvent second = expect(client, CmEventType.MULTICAST_JOIN);
        assertEquals("send-only", second.joinContext());
        assertEquals(sendOnly, second.multicastAddress());
        second.ack();

        final RdmaException again = assertThrows(RdmaException.class,
            () -> id.joinMulticast(full, JoinFlags.FULLMEMBER, null));
        assertEquals(Errno.EADDRINUSE, again.errno());
        id.leaveMulticast(full);
        id.leaveMulticast(sendOnly);
        final RdmaException notJoined = assertThrows(RdmaException.class, () -> id.leaveMulticast(full));
        assertEquals(Errno.EADDRNOTAVAIL, notJoined.errno());
    }

    /**
     * librdmacm attaches a full member's QP to the group, and the kernel refuses to destroy an attached QP
     * (EBUSY), which {@code rdma_destroy_qp} ignores: the QP then outlived destroyQp and its CQ and PD could not be
     * destroyed (rmcast's subscriber on rxe). destroyQp detaches first, as the soft device does, and the join
     * itself remains until left.
     */
    @Test
    void destroyingAJoinedQpDetachesItSoItsCqAndPdGoAndTheJoinRemains() throws Exception
    {
        final InetSocketAddress group = new InetSocketAddress(InetAddress.getByName("239.77.9.3"), 0);
        final CmId id = closing(client.createId(null, PortSpace.UDP));
        id.bindAddr(new InetSocketAddress(address, 0));
        final ProtectionDomain pd = id.verbs().allocPd();
        final CompletionQueue cq = id.verbs().createCq(16, null, 0);
        id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(8, 8)));
        id.joinMulticast(group, JoinFlags.FULLMEMBER, "group");
        expect(client, CmEventType.MULTICAST_JOIN).ack();

        id.destroyQp();
        cq.close();
        pd.close();
        id.leaveMulticast(group);
        final RdmaException left = assertThrows(RdmaException.class, () -> id.leaveMulticast(group));
        assertEquals(Errno.EADDRNOTAVAIL, left.errno());
    }

    @Test
    void librdmacmsErrnoAndTheEventRulesReachTheCaller() throws Exception
    {
        final CmId id = client.createId(null, PortSpace.TCP);
        assertInstanceOf(NativeCmId.class, id);
        // 192.0.2.1 (TEST-NET-1) is on no interface of the guest
        final RdmaException bind = assertThrows(RdmaException.class,
            () -> id.bindAddr(new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 0)));
        assertEquals(Errno.EADDRNOTAVAIL, bind.errno(), bind.getMessage());

        assertNull(client.getEvent(10, TimeUnit.MILLISECONDS), "a quiet channel has no event");
        final RdmaException busy = assertThrows(RdmaException.class, client::close);
        assertEquals(Errno.EBUSY, busy.errno());

        id.resolveAddr(null, new InetSocketAddress(address, 1), 2000);
        final CmEvent resolved = expect(client, CmEventType.ADDR_RESOLVED);
        resolved.ack();
        final RdmaException twice = assertThrows(RdmaException.class, resolved::ack);
        assertEquals(Errno.EINVAL, twice.errno());
        assertEquals(address, id.peerAddress().getAddress());
        assertNotNull(id.verbs());
        assertSame(id.verbs(), id.verbs(), "one context wrapper per librdmacm context");
        id.close();
        final RdmaException destroyed = assertThrows(RdmaException.class, () -> id.listen(1));
        assertEquals(Errno.EINVAL, destroyed.errno());
    }
}
