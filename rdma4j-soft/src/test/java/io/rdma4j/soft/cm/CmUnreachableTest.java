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

import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A connect or a SIDR query to a loopback address where no device runs: the kernel answers the REQ's
 * datagram with ICMP port unreachable, which the Linux socket reads from its error queue, and the id reports
 * UNREACHABLE with ECONNREFUSED at once, instead of ETIMEDOUT after 15 unanswered retries (68.8 s).
 */
@Timeout(30)
class CmUnreachableTest
{
    /** A host of the fabric's subnet on which no test opens a device. */
    private static final int NOBODY = 9;

    private final ConnectionManager cm = ConnectionManager.withSystemClock(CmTesting.SHARED);

    @AfterEach
    void stopTheCm()
    {
        cm.stop();
    }

    @Test
    void shouldReportAConnectToAnAddressWithoutADeviceUnreachableAtOnce() throws Exception
    {
        assertRefused(PortSpace.TCP);
    }

    @Test
    void shouldReportASidrQueryToAnAddressWithoutADeviceUnreachableAtOnce() throws Exception
    {
        assertRefused(PortSpace.UDP);
    }

    private void assertRefused(final PortSpace space) throws Exception
    {
        assumeTrue(TestLinks.SOCKET == UdpLinks.Socket.LINUX, "ICMP errors are read by the Linux socket only");
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.UDP))
        {
            final var device = fabric.device(1);
            final EventChannel channel = SoftEventChannel.create(cm);
            final CmId id = channel.createId("client", space);
            id.resolveAddr(fabric.socketAddress(1, 0), fabric.socketAddress(NOBODY, 7471), 2000);
            expectAndAck(channel, CmEventType.ADDR_RESOLVED);
            id.resolveRoute(2000);
            expectAndAck(channel, CmEventType.ROUTE_RESOLVED);
            final CompletionQueue cq = id.verbs().createCq(16, null, 0);
            id.createQp(null, QpInitAttr.of(space == PortSpace.TCP ? QpType.RC : QpType.UD, cq, new QpCap(8, 8, 1, 1, 0)));
            id.connect(null);

            // the first retry would go 4.3 s after the request: the answer must come before it
            final CmEvent unreachable = expect(channel, CmEventType.UNREACHABLE);
            assertEquals(ConnectionManager.ECONNREFUSED, unreachable.status(), "refused, not timed out");
            unreachable.ack();
            final long icmp = SoftEngine.of(id.verbs()).counters()
                .get(SoftCounter.ICMP_PORT_UNREACHABLE);
            assertTrue(icmp >= 1, "the device counted the ICMP error: " + icmp);
            id.destroyQp();
            cq.close();
            id.close();
            channel.close();
            assertTrue(device.address().isLoopbackAddress());
        }
    }
}
