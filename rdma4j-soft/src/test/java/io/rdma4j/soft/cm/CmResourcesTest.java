package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.Resources;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.util.EnumSet;

import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client's whole tree (event channel, id, PD, memory and its region, completion channel, CQ, the id's QP),
 * added to {@link Resources} parents first, the order in which closing them one by one fails with EBUSY, and
 * released by one try-with-resources whose body fails mid-flow: the body's error is what the caller sees, with
 * nothing suppressed, because every close succeeded; and the channel and the device are free again.
 */
@Timeout(60)
class CmResourcesTest
{
    private final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, new FakeCmClock(), ConnectionManager.DEFAULT_QUEUE_CAPACITY);

    @AfterEach
    void stopTheCm()
    {
        cm.stop();
    }

    @Test
    void shouldReleaseAConnectedClientsTreeInOneTryWithResources() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final CmId[] server = new CmId[1];
            final CompletionQueue[] serverCq = new CompletionQueue[1];
            final IllegalStateException failure = assertThrows(IllegalStateException.class, () ->
            {
                try (Resources resources = new Resources())
                {
                    final EventChannel channel = resources.add(SoftEventChannel.create(cm));
                    final CmId id = resources.add(channel.createId("client", PortSpace.TCP));
                    id.resolveAddr(fabric.socketAddress(CmPeers.CLIENT, 0),
                        fabric.socketAddress(CmPeers.SERVER, peers.listener.localAddress().getPort()), 2000);
                    expectAndAck(channel, CmEventType.ADDR_RESOLVED);
                    id.resolveRoute(2000);
                    expectAndAck(channel, CmEventType.ROUTE_RESOLVED);
                    final ProtectionDomain pd = resources.add(id.verbs().allocPd());
                    final Arena memory = resources.add(Arena.ofShared());
                    final MemoryRegion mr = resources.add(pd.regMr(memory.allocate(4096),
                        EnumSet.of(AccessFlag.LOCAL_WRITE)));
                    final CompletionChannel events = resources.add(id.verbs().createCompChannel());
                    final CompletionQueue cq = resources.add(id.verbs().createCq(16, events, 0));
                    id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
                    id.connect(null);
                    final CmEvent request = expect(peers.serverChannel, CmEventType.CONNECT_REQUEST);
                    request.ack();
                    server[0] = request.id();
                    serverCq[0] = server[0].verbs().createCq(16, null, 0);
                    server[0].createQp(null, QpInitAttr.of(QpType.RC, serverCq[0], QpCap.of(4, 4)));
                    server[0].accept(null);
                    expectAndAck(channel, CmEventType.ESTABLISHED);
                    assertTrue(mr.lkey() != 0);
                    // closing the channel alone now is libibverbs' EBUSY: an id lives on it
                    final RdmaException busy = assertThrows(RdmaException.class, channel::close);
                    assertEquals(io.rdma4j.verbs.Errno.EBUSY, busy.errno());
                    throw new IllegalStateException("the application's own error, mid-flow");
                }
            });
            assertEquals("the application's own error, mid-flow", failure.getMessage());
            assertEquals(0, failure.getSuppressed().length, "every close succeeded: " +
                java.util.Arrays.toString(failure.getSuppressed()));
            expectAndAck(peers.serverChannel, CmEventType.ESTABLISHED);
            // the client's id went with a DREQ, as rdma_destroy_id sends one
            expectAndAck(peers.serverChannel, CmEventType.DISCONNECTED);
            server[0].destroyQp();
            serverCq[0].close();
            server[0].close();
        }
    }
}
