package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.TestLinks;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;

import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A refused connect (a live device, nobody listening on the port) and an unreachable one (no device on the
 * address) are answered by the first REQ itself, on a connection manager whose clock never moves: no timer of
 * the CM (the REQ's retransmission, a resolution's timeout) can fire, and the client's device sent the one REQ,
 * no second. The 2.1 s refused and 3.6 s unreachable connects were therefore the process's first-use cost
 * (device open, class loading), not a wait.
 */
@Timeout(30)
class CmFirstAnswerTest
{
    /** A host of the fabric's subnet on which no test opens a device. */
    private static final int NOBODY = 9;
    private static final int PORT = 7471;

    private final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, new FakeCmClock(),
        ConnectionManager.DEFAULT_QUEUE_CAPACITY);

    @AfterEach
    void stopTheCm()
    {
        cm.stop();
    }

    @Test
    void shouldRejectAConnectToAPortNobodyListensOnWithTheFirstReq() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY))
        {
            fabric.device(1);
            fabric.device(2);
            // the server's device is live, its CM listening on the port next to the one connected to
            final EventChannel serverChannel = SoftEventChannel.create(cm);
            final CmId listener = serverChannel.createId("listener", PortSpace.TCP);
            listener.bindAddr(fabric.socketAddress(2, PORT + 1));
            listener.listen(1);

            connect(fabric, fabric.socketAddress(2, PORT), CmEventType.REJECTED);

            assertEquals(1, SoftEngine.of(listener.verbs()).counters().get(SoftCounter.CM_REFUSED),
                "the server's CM refused the REQ");
            listener.close();
            serverChannel.close();
        }
    }

    @Test
    void shouldReportAConnectToAnAddressWithoutADeviceUnreachableWithTheFirstReq() throws Exception
    {
        assumeTrue(TestLinks.SOCKET == UdpLinks.Socket.LINUX, "ICMP errors are read by the Linux socket only");
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.UDP))
        {
            fabric.device(1);
            final CmEvent unreachable = connect(fabric, fabric.socketAddress(NOBODY, PORT),
                CmEventType.UNREACHABLE);
            assertEquals(ConnectionManager.ECONNREFUSED, unreachable.status(), "refused, not timed out");
        }
    }

    /** Connect from host 1 and expect the answer; the client's device must have sent exactly the REQ. */
    private CmEvent connect(final CmFabric fabric, final InetSocketAddress to, final CmEventType answer)
        throws Exception
    {
        final EventChannel channel = SoftEventChannel.create(cm);
        final CmId id = channel.createId("client", PortSpace.TCP);
        id.resolveAddr(fabric.socketAddress(1, 0), to, 2000);
        expectAndAck(channel, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(2000);
        expectAndAck(channel, CmEventType.ROUTE_RESOLVED);
        final CompletionQueue cq = id.verbs().createCq(16, null, 0);
        id.createQp(null, QpInitAttr.of(QpType.RC, cq, new QpCap(8, 8, 1, 1, 0)));
        final long before = SoftEngine.of(id.verbs()).counters().get(SoftCounter.SENT_PKTS);

        id.connect(null);

        final CmEvent event = expect(channel, answer);
        event.ack();
        assertEquals(1, SoftEngine.of(id.verbs()).counters().get(SoftCounter.SENT_PKTS) - before,
            "one REQ, no retransmission");
        id.destroyQp();
        cq.close();
        id.close();
        channel.close();
        return event;
    }
}
