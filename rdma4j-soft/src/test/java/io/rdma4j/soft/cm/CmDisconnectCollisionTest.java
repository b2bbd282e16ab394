package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.soft.link.FaultInjector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.rdma4j.soft.cm.CmTestSupport.awaitPhase;
import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static io.rdma4j.soft.cm.CmTestSupport.madAttribute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Both sides disconnect at once, as a client and a server that are both done do. Linux's CM takes the peer's DREQ
 * as the end of its own and never answers it, so a side that waits for the DREP of its DREQ waits out the whole
 * retry budget (about a minute); the peer's DREQ must end the exchange on the spot. The fake clock never moves
 * until the end, so nothing here is a retry or a timeout.
 */
@Timeout(60)
class CmDisconnectCollisionTest
{
    private static final int DREQ = 0x0015;
    private static final int DREP = 0x0016;

    private final FakeCmClock clock = new FakeCmClock();
    private final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, clock, ConnectionManager.DEFAULT_QUEUE_CAPACITY);

    @AfterEach
    void stopTheCm()
    {
        cm.stop();
    }

    @Test
    void shouldReportDisconnectedAtOnceOnBothSidesWhenTheDisconnectRequestsCrossAndNoneIsAnswered() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final CmId[] ids = peers.connect();
            final AtomicInteger dreqs = new AtomicInteger();
            fabric.network().tap(d ->
            {
                if (madAttribute(d.bytes()) == DREQ)
                {
                    dreqs.incrementAndGet();
                }
            });
            // DREQs held until both are on their way, so they cross; DREPs held for ever, as Linux sends none
            fabric.network().faultInjector(new FaultInjector(1).reorderProbability(1).reorderDepth(1_000).filter(
                (datagram, receiver) -> madAttribute(datagram.bytes()) == DREQ ||
                    madAttribute(datagram.bytes()) == DREP));
            ids[0].disconnect();
            ids[1].disconnect();
            awaitPhase(ids[0], CmConnection.Phase.DREQ_SENT);
            awaitPhase(ids[1], CmConnection.Phase.DREQ_SENT);
            assertEquals(2, fabric.network().releaseHeld(), "the two DREQs");

            final CmEvent client = expect(peers.clientChannel, CmEventType.DISCONNECTED);
            final CmEvent server = expect(peers.serverChannel, CmEventType.DISCONNECTED);
            assertEquals(0, client.status(), "the peer's DREQ, not a timeout");
            assertEquals(0, server.status(), "the peer's DREQ, not a timeout");
            client.ack();
            server.ack();

            // the timewait (shorter than one response timeout) ends both, and neither DREQ is repeated: the retry
            // budget runs out with no more sent and no event but TIMEWAIT_EXIT
            clock.advance(ConnectionManager.TIMEWAIT_NANOS);
            expectAndAck(peers.clientChannel, CmEventType.TIMEWAIT_EXIT);
            expectAndAck(peers.serverChannel, CmEventType.TIMEWAIT_EXIT);
            for (int retry = 0; retry <= ConnectionManager.MAX_CM_RETRIES; retry++)
            {
                clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
                cm.awaitIdle();
            }
            assertEquals(2, dreqs.get(), "one DREQ from each side");
            assertNull(peers.clientChannel.getEvent(0, TimeUnit.SECONDS));
            assertNull(peers.serverChannel.getEvent(0, TimeUnit.SECONDS));
        }
    }
}
