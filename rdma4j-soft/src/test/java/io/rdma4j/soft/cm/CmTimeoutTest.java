package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.soft.link.FaultInjector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.rdma4j.soft.cm.CmTestSupport.madAttribute;
import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * rdma_cm's retry budget on the fake clock: a request goes 1 + 15 times, one CM response timeout
 * (4.3 s) apart, before the id gives up; a minute of protocol in a fraction of a second.
 */
@Timeout(60)
class CmTimeoutTest
{
    private static final int REQ = 0x0010;
    private static final int DREQ = 0x0015;

    private final FakeCmClock clock = new FakeCmClock();
    private final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, clock, ConnectionManager.DEFAULT_QUEUE_CAPACITY);

    @AfterEach
    void stopTheCm()
    {
        cm.stop();
    }

    @Test
    void shouldReportUnreachableAfterFifteenUnansweredRetries() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final AtomicInteger sent = countAndDrop(fabric, REQ, new AtomicBoolean(true));
            final CmId client = peers.resolvedClient();
            peers.rcQp(client);
            client.connect(null);
            cm.awaitIdle();
            assertEquals(1, sent.get());

            for (int retry = 1; retry <= ConnectionManager.MAX_CM_RETRIES; retry++)
            {
                clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
                cm.awaitIdle();
                assertEquals(1 + retry, sent.get(), "retry " + retry);
                assertNull(peers.clientChannel.getEvent(0, TimeUnit.SECONDS));
            }
            clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
            final CmEvent unreachable = expect(peers.clientChannel, CmEventType.UNREACHABLE);
            assertEquals(ConnectionManager.ETIMEDOUT, unreachable.status());
            unreachable.ack();
            assertEquals(1 + ConnectionManager.MAX_CM_RETRIES, sent.get());
        }
    }

    @Test
    void shouldReportDisconnectedWhenTheDisconnectRequestIsNeverAnswered() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final AtomicBoolean dropping = new AtomicBoolean(false);
            final AtomicInteger sent = countAndDrop(fabric, DREQ, dropping);
            final CmId[] ids = peers.connect();
            dropping.set(true);
            ids[0].disconnect();
            cm.awaitIdle();

            for (int retry = 1; retry <= ConnectionManager.MAX_CM_RETRIES; retry++)
            {
                // each retry waits a response timeout from when it went
                clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
                cm.awaitIdle();
            }
            assertEquals(1 + ConnectionManager.MAX_CM_RETRIES, sent.get());
            assertNull(peers.clientChannel.getEvent(0, TimeUnit.SECONDS), "the last retry is still unanswered");
            clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
            final CmEvent disconnected = expect(peers.clientChannel, CmEventType.DISCONNECTED);
            assertEquals(ConnectionManager.ETIMEDOUT, disconnected.status());
            disconnected.ack();
            assertEquals(1 + ConnectionManager.MAX_CM_RETRIES, sent.get());

            clock.advance(ConnectionManager.TIMEWAIT_NANOS);
            expectAndAck(peers.clientChannel, CmEventType.TIMEWAIT_EXIT);
        }
    }

    /** Count the MADs of one attribute sent, and drop them while {@code dropping}. */
    private static AtomicInteger countAndDrop(final CmFabric fabric, final int attribute, final AtomicBoolean dropping)
    {
        final AtomicInteger sent = new AtomicInteger();
        fabric.network().tap(d ->
        {
            if (madAttribute(d.bytes()) == attribute && dropping.get())
            {
                sent.incrementAndGet();
            }
        });
        fabric.network().faultInjector(new FaultInjector(1).dropProbability(1)
            .filter((datagram, receiver) -> dropping.get() && madAttribute(datagram.bytes()) == attribute));
        return sent;
    }
}
