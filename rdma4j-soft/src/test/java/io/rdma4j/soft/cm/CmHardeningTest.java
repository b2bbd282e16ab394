package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RejectReason;
import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.FaultInjector;
import io.rdma4j.verbs.Gid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.rdma4j.soft.cm.CmPeers.CLIENT;
import static io.rdma4j.soft.cm.CmPeers.SERVER;
import static io.rdma4j.soft.cm.CmPeers.connection;
import static io.rdma4j.soft.cm.CmTestSupport.awaitPhase;
import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static io.rdma4j.soft.cm.CmTestSupport.madAttribute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue "Hardening": the connection manager against a third party that can send MADs to port 4791
 * and has seen our communication id (it is in every MAD we send), and against a flood.
 */
@Timeout(60)
class CmHardeningTest
{
    private final FakeCmClock clock = new FakeCmClock();
    private final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, clock, ConnectionManager.DEFAULT_QUEUE_CAPACITY);

    @AfterEach
    void stopTheCm()
    {
        cm.stop();
    }

    @Test
    void shouldDropForgedDisconnectsAndRejectionsThatKnowOnlyOurCommId() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final CmId[] ids = peers.connect();
            final CmId client = ids[0];
            final CmConnection c = connection(client);
            final int ours = c.localCommId;
            final int theirs = c.remoteCommId;
            final Gid serverIp = peers.ip(SERVER);
            final long tid = 0x1234L;

            // from the server's address, naming our comm id, but with a wrong peer comm id or QPN
            peers.inject(client, new CmMessage.Dreq(tid, theirs + 1, ours, c.localQpn), serverIp);
            peers.inject(client, new CmMessage.Dreq(tid, theirs, ours, c.localQpn ^ 1), serverIp);
            peers.inject(client, new CmMessage.Rej(tid, theirs ^ 0x100, ours, CmWire.REJECTED_OTHER,
                RejectReason.CONSUMER_DEFINED.code(), null), serverIp);
            // right in every field but sent from another address
            peers.inject(client, new CmMessage.Dreq(tid, theirs, ours, c.localQpn), peers.ip(77));
            cm.awaitIdle();

            assertEquals(2, cm.counter(CmCounter.DROP_WRONG_REMOTE_COMM_ID));
            assertEquals(1, cm.counter(CmCounter.DROP_WRONG_QPN));
            assertEquals(1, cm.counter(CmCounter.DROP_WRONG_SOURCE));
            assertEquals(CmConnection.Phase.ESTABLISHED, c.phase);
            assertNull(peers.clientChannel.getEvent(0, TimeUnit.SECONDS), "no event: the connection is intact");

            // the real disconnect still works
            client.disconnect();
            expectAndAck(peers.clientChannel, CmEventType.DISCONNECTED);
            expectAndAck(peers.serverChannel, CmEventType.DISCONNECTED);
        }
    }

    @Test
    void shouldDropAForgedReadyToUseWhileTheReplyIsOnItsWay() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final AtomicBoolean holdReplies = new AtomicBoolean(true);
            fabric.network().faultInjector(new FaultInjector(1).dropProbability(1).filter((datagram, receiver) ->
                holdReplies.get() && madAttribute(datagram.bytes()) == 0x0013));
            final CmId client = peers.resolvedClient();
            final CmId server = peers.request(client);
            peers.rcQp(server);
            server.accept(null);
            awaitPhase(server, CmConnection.Phase.REP_SENT);
            final CmConnection s = connection(server);

            // an RTU naming the server's comm id, from the client's address, with a wrong client comm id
            peers.inject(server, new CmMessage.Rtu(s.tid, s.remoteCommId + 1, s.localCommId), peers.ip(CLIENT));
            cm.awaitIdle();
            assertEquals(1, cm.counter(CmCounter.DROP_WRONG_REMOTE_COMM_ID));
            assertEquals(CmConnection.Phase.REP_SENT, s.phase, "not established by a forged RTU");
            assertNull(peers.serverChannel.getEvent(0, TimeUnit.SECONDS));

            holdReplies.set(false);
            clock.advance(ConnectionManager.RESPONSE_TIMEOUT_NANOS);
            expectAndAck(peers.clientChannel, CmEventType.ESTABLISHED);
            expectAndAck(peers.serverChannel, CmEventType.ESTABLISHED);
        }
    }

    @Test
    void shouldNotDrawCommIdsFromAPlainCounter() throws Exception
    {
        try (EventChannel channel = SoftEventChannel.create(cm))
        {
            final SoftCmId id = (SoftCmId)channel.createId(null, PortSpace.TCP);
            final Set<Integer> seen = new HashSet<>();
            int previous = cm.newCommId(id);
            int consecutive = 0;
            for (int i = 0; i < 64; i++)
            {
                final int next = cm.newCommId(id);
                assertTrue(seen.add(next), "comm ids are unique");
                assertNotEquals(0, next);
                consecutive += next - previous == 1 ? 1 : 0;
                previous = next;
            }
            assertTrue(consecutive < 2, consecutive + " of 64 comm ids follow their predecessor");
            id.close();
        }
    }

    @Test
    void shouldHonourOneMraPerMessage() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final AtomicInteger reqs = new AtomicInteger();
            fabric.network().tap(d ->
            {
                if (madAttribute(d.bytes()) == 0x0010)
                {
                    reqs.incrementAndGet();
                }
            });
            // the REQs go to a server that answers nothing: only our MRAs speak for it
            fabric.network().faultInjector(new FaultInjector(1).dropProbability(1)
                .filter((datagram, receiver) -> madAttribute(datagram.bytes()) == 0x0010));
            final CmId client = peers.resolvedClient();
            peers.rcQp(client);
            client.connect(null);
            final CmConnection c = connection(client);
            final Gid serverIp = peers.ip(SERVER);
            final long service = 4096L << CmWire.MRA_SERVICE_TIMEOUT;

            peers.inject(client, new CmMessage.Mra(c.tid, 0x5EED, c.localCommId, CmWire.MRAED_REQ,
                CmWire.MRA_SERVICE_TIMEOUT), serverIp);
            awaitPhase(client, CmConnection.Phase.MRA_REQ_RCVD);
            // most of the service time later, the peer asks again, and again: no more time is given
            clock.advance(service - ConnectionManager.RESPONSE_TIMEOUT_NANOS);
            for (int i = 0; i < 3; i++)
            {
                peers.inject(client, new CmMessage.Mra(c.tid, 0x5EED, c.localCommId, CmWire.MRAED_REQ,
                    CmWire.MRA_SERVICE_TIMEOUT), serverIp);
            }
            cm.awaitIdle();
            assertEquals(3, cm.counter(CmCounter.DROP_REPEATED_MRA));
            assertEquals(1, reqs.get());

            clock.advance(2 * ConnectionManager.RESPONSE_TIMEOUT_NANOS);
            cm.awaitIdle();
            assertEquals(2, reqs.get(), "the REQ goes again one MRA's wait after the first MRA");
        }
    }

    @Test
    void shouldSurviveAFloodOfRequestsWithBoundedMemoryAndServeALegitimateConnectAfterwards() throws Exception
    {
        final ConnectionManager small = ConnectionManager.create(CmTesting.SHARED, CmClock.system(), 256);
        try (AutoCloseable stop = small::stop; CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY);
            CmPeers peers = new CmPeers(fabric, small))
        {
            final int flood = 100_000;
            final Gid serverIp = peers.ip(SERVER);
            final Gid attackerIp = peers.ip(99);
            final long serviceId = CmWire.serviceId(PortSpace.TCP, peers.listener.localAddress().getPort());
            // the CM thread is kept busy on the listener's lock while the flood arrives
            final SoftEventChannel serverChannel = (SoftEventChannel)peers.serverChannel;
            serverChannel.lock.lock();
            try
            {
                for (int i = 0; i < flood; i++)
                {
                    final CmMessage.Req req = CmMessage.Req.builder().tid(i).localCommId(0x10000 + i)
                        .serviceId(serviceId).qpn(0x100 + (i & 0xFFFF)).transportType(0).pathMtu(1024)
                        .startingPsn(i).srcIp(attackerIp).dstIp(serverIp).srcPort(40000).hopLimit(64).build();
                    small.receive(CmPeers.engine(peers.listener), CmWire.encode(req), attackerIp, 4791);
                }
            }
            finally
            {
                serverChannel.lock.unlock();
            }
            small.awaitIdle();

            assertTrue(small.queueHighWater() <= small.queueCapacity(),
                "the queue held " + small.queueHighWater() + " MADs, more than its " + small.queueCapacity());
            final long dropped = small.counter(CmCounter.DROP_QUEUE_FULL);
            assertTrue(dropped >= flood - small.queueCapacity() - 1, dropped + " dropped");
            long counted = 0;
            for (final CmCounter counter : CmCounter.values())
            {
                counted += small.counter(counter);
            }
            assertEquals(flood, counted, "every MAD ends in one counter");
            assertEquals(0, small.counter(CmCounter.TASK_FAILED));
            // and in the device's, which its stat file and MBean publish: each MAD once, on the device it came to
            final Counters device = CmPeers.engine(peers.listener).counters();
            long onDevice = 0;
            for (final CmCounter counter : CmCounter.values())
            {
                onDevice += device.get(counter.counter());
            }
            assertEquals(flood, onDevice, "every MAD ends in one of its device's cm counters");
            assertEquals(dropped, device.get(SoftCounter.CM_DROP_QUEUE_FULL));

            // the server turns away what filled its backlog, then serves a real client
            CmEvent event;
            int requests = 0;
            while ((event = peers.serverChannel.getEvent(0, TimeUnit.SECONDS)) != null)
            {
                assertEquals(CmEventType.CONNECT_REQUEST, event.type());
                event.id().reject(null);
                event.ack();
                event.id().close();
                requests++;
            }
            assertEquals(10, requests, "the backlog held ten");
            final CmId[] ids = peers.connect();
            assertEquals(CmConnection.Phase.ESTABLISHED, connection(ids[0]).phase);
        }
    }

    /** The MAD attribute of a QP1 datagram (BTH 12 + DETH 8 bytes, then the MAD), or -1. */
}
