package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.link.FaultInjector;
import io.rdma4j.verbs.Gid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.rdma4j.soft.cm.CmPeers.SERVER;
import static io.rdma4j.soft.cm.CmPeers.connection;
import static io.rdma4j.soft.cm.CmTestSupport.awaitPhase;
import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.madAttribute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Issue 41: how long one forged request can hold a listener. An MRA's service timeout is capped, a
 * connection's MRAs are counted, and a request keeps its backlog place until its connection is established,
 * so that half-open connections are bounded in number and in time. On the fake clock: minutes of protocol in
 * a fraction of a second.
 */
@Timeout(60)
class CmDeferralTest
{
    private static final int REP = 0x0013;
    private static final int ATTACKER = 99;

    private final FakeCmClock clock = new FakeCmClock();
    private final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, clock, ConnectionManager.DEFAULT_QUEUE_CAPACITY);

    @AfterEach
    void stopTheCm()
    {
        cm.stop();
    }

    @Test
    void shouldCapTheWaitAForgedMraOfTheReplyAsksFor() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final AtomicInteger reps = countSent(fabric, REP);
            final CmId server = forgedRequest(peers, 0x4000);
            peers.rcQp(server);
            server.accept(null);
            awaitPhase(server, CmConnection.Phase.REP_SENT);
            final CmConnection s = connection(server);
            // the forger asks for 4.096 us x 2^31, 2.4 hours, and answers nothing more
            peers.inject(server, new CmMessage.Mra(s.tid, 0x4000, s.localCommId, CmWire.MRAED_REP, 31),
                peers.ip(ATTACKER));
            awaitPhase(server, CmConnection.Phase.MRA_REP_RCVD);

            clock.advance((4096L << CmConnection.MAX_MRA_SERVICE_TIMEOUT) + ConnectionManager.RESPONSE_TIMEOUT_NANOS);
            cm.awaitIdle();
            assertEquals(2, reps.get(), "the REP goes again after the capped wait, not after 2.4 hours");
            for (int retry = 1; retry <= ConnectionManager.MAX_CM_RETRIES; retry++)
            {
                clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
                cm.awaitIdle();
            }
            final CmEvent unreachable = expect(peers.serverChannel, CmEventType.UNREACHABLE);
            assertEquals(ConnectionManager.ETIMEDOUT, unreachable.status());
            unreachable.ack();
            assertEquals(1 + ConnectionManager.MAX_CM_RETRIES, reps.get());
            assertEquals("0/10", backlog(peers), "the half-open connection gave its backlog place back");
            destroy(peers, server);
        }
    }

    @Test
    void shouldEndAConnectionAttemptThatReceivesMoreMrasThanItsRequestCouldHavePrompted() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            // the REQs go nowhere: only the forged MRAs answer them
            fabric.network().faultInjector(new FaultInjector(1).dropProbability(1)
                .filter((datagram, receiver) -> madAttribute(datagram.bytes()) == 0x0010));
            final CmId client = peers.resolvedClient();
            peers.rcQp(client);
            client.connect(null);
            final CmConnection c = connection(client);
            final Gid serverIp = peers.ip(SERVER);
            for (int i = 0; i < CmConnection.MAX_MRAS; i++)
            {
                peers.inject(client, new CmMessage.Mra(c.tid, 0x5EED, c.localCommId, CmWire.MRAED_REQ, 31), serverIp);
            }
            cm.awaitIdle();
            assertEquals(CmConnection.MAX_MRAS - 1, cm.counter(CmCounter.DROP_REPEATED_MRA));
            assertNull(peers.clientChannel.getEvent(0, TimeUnit.SECONDS), "within the limit the attempt goes on");

            peers.inject(client, new CmMessage.Mra(c.tid, 0x5EED, c.localCommId, CmWire.MRAED_REQ, 31), serverIp);
            final CmEvent unreachable = expect(peers.clientChannel, CmEventType.UNREACHABLE);
            assertEquals(ConnectionManager.ETIMEDOUT, unreachable.status());
            unreachable.ack();
            cm.awaitIdle();
            assertEquals(1, cm.counter(CmCounter.MRA_LIMIT));
            assertEquals(CmConnection.Phase.CLOSED, c.phase);
        }
    }

    /**
     * The passive side's count: a forger that MRAs the server's REP again and again (each asking for 2.4 hours)
     * gets one deferral, and past {@link CmConnection#MAX_MRAS} the half-open connection ends and gives its
     * backlog place back, as the active side's attempt does.
     */
    @Test
    void shouldEndAHalfOpenConnectionWhoseReplyReceivesMoreMrasThanItCouldHavePrompted() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final CmId server = forgedRequest(peers, 0x4100);
            peers.rcQp(server);
            server.accept(null);
            awaitPhase(server, CmConnection.Phase.REP_SENT);
            final CmConnection s = connection(server);
            for (int i = 0; i < CmConnection.MAX_MRAS; i++)
            {
                peers.inject(server, new CmMessage.Mra(s.tid, 0x4100, s.localCommId, CmWire.MRAED_REP, 31),
                    peers.ip(ATTACKER));
            }
            cm.awaitIdle();
            assertEquals(CmConnection.MAX_MRAS - 1, cm.counter(CmCounter.DROP_REPEATED_MRA));
            assertEquals(CmConnection.Phase.MRA_REP_RCVD, s.phase);
            assertNull(peers.serverChannel.getEvent(0, TimeUnit.SECONDS), "within the limit the REP waits on");
            assertEquals("1/10", backlog(peers));

            peers.inject(server, new CmMessage.Mra(s.tid, 0x4100, s.localCommId, CmWire.MRAED_REP, 31),
                peers.ip(ATTACKER));
            final CmEvent unreachable = expect(peers.serverChannel, CmEventType.UNREACHABLE);
            assertEquals(ConnectionManager.ETIMEDOUT, unreachable.status());
            unreachable.ack();
            cm.awaitIdle();
            assertEquals(1, cm.counter(CmCounter.MRA_LIMIT));
            assertEquals(CmConnection.Phase.CLOSED, s.phase);
            assertEquals("0/10", backlog(peers), "the half-open connection gave its backlog place back");
            destroy(peers, server);
        }
    }

    @Test
    void shouldHoldBacklogPlacesUntilEstablishedAndDropRequestsPastThemUntilTheHalfOpenOnesTimeOut()
        throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final List<CmId> halfOpen = new ArrayList<>();
            for (int i = 0; i < 10; i++)
            {
                final CmId id = forgedRequest(peers, 0x6000 + i);
                peers.rcQp(id);
                id.accept(null);
                awaitPhase(id, CmConnection.Phase.REP_SENT);
                halfOpen.add(id);
            }
            assertEquals("10/10", backlog(peers), "accepted but never established: each still holds its place");

            // a request past the backlog is dropped unanswered, not reported
            peers.inject(peers.listener, forgedReq(peers, 0x7000), peers.ip(ATTACKER));
            cm.awaitIdle();
            assertEquals(1, cm.counter(CmCounter.DROP_BACKLOG_FULL));
            assertNull(peers.serverChannel.getEvent(0, TimeUnit.SECONDS));

            // the REPs are given up on in bounded time, and the places with them
            for (int retry = 0; retry <= ConnectionManager.MAX_CM_RETRIES; retry++)
            {
                clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
                cm.awaitIdle();
            }
            for (int i = 0; i < halfOpen.size(); i++)
            {
                final CmEvent unreachable = expect(peers.serverChannel, CmEventType.UNREACHABLE);
                unreachable.ack();
            }
            assertEquals("0/10", backlog(peers));
            final CmId[] ids = peers.connect();
            assertEquals(CmConnection.Phase.ESTABLISHED, connection(ids[1]).phase);
            assertEquals("0/10", backlog(peers), "an established connection holds no place");
            halfOpen.forEach(id -> destroy(peers, id));
        }
    }

    /** @return the server's id of a REQ from the attacker's address, which nobody will ever complete. */
    private static CmId forgedRequest(final CmPeers peers, final int commId) throws InterruptedException
    {
        peers.inject(peers.listener, forgedReq(peers, commId), peers.ip(ATTACKER));
        final CmEvent request = expect(peers.serverChannel, CmEventType.CONNECT_REQUEST);
        request.ack();
        return request.id();
    }

    /** Destroy a request's id, with the QP and CQ {@link CmPeers#rcQp} gave it. */
    private static void destroy(final CmPeers peers, final CmId id)
    {
        peers.close(id);
        id.close();
    }

    private static CmMessage.Req forgedReq(final CmPeers peers, final int commId)
    {
        final long serviceId = CmWire.serviceId(PortSpace.TCP, peers.listener.localAddress().getPort());
        return CmMessage.Req.builder().tid(commId).localCommId(commId).serviceId(serviceId).qpn(0x100 + commId)
            .transportType(0).pathMtu(3).startingPsn(commId).srcIp(peers.ip(ATTACKER)).dstIp(peers.ip(SERVER))
            .srcPort(40000).hopLimit(64).build();
    }

    private static String backlog(final CmPeers peers)
    {
        return ((SoftCmId)peers.listener).backlogForTest();
    }

    private static AtomicInteger countSent(final CmFabric fabric, final int attribute)
    {
        final AtomicInteger sent = new AtomicInteger();
        fabric.network().tap(d ->
        {
            if (madAttribute(d.bytes()) == attribute)
            {
                sent.incrementAndGet();
            }
        });
        return sent;
    }
}
