package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttrMask;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;
import static io.rdma4j.soft.cm.CmTestSupport.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rdma_cm features rping needs: TIMEWAIT_EXIT after a disconnect, and connecting a QP the
 * application made itself (rping -q) with initQpAttr and establish.
 */
@Timeout(60)
class CmEstablishTest
{
    private final FakeCmClock clock = new FakeCmClock();
    private final ConnectionManager cm = ConnectionManager.create(CmTesting.SHARED, clock, ConnectionManager.DEFAULT_QUEUE_CAPACITY);

    @AfterEach
    void stopTheCm()
    {
        cm.stop();
    }

    @Test
    void shouldReportTimewaitExitOnBothSidesWhenTheTimewaitEnds() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final CmId[] ids = peers.connect();
            ids[0].disconnect();
            expectAndAck(peers.clientChannel, CmEventType.DISCONNECTED);
            expectAndAck(peers.serverChannel, CmEventType.DISCONNECTED);

            clock.advance(ConnectionManager.TIMEWAIT_NANOS - 1);
            cm.awaitIdle();
            assertNull(peers.clientChannel.getEvent(0, TimeUnit.SECONDS), "still in timewait");
            assertNull(peers.serverChannel.getEvent(0, TimeUnit.SECONDS), "still in timewait");

            clock.advance(1);
            expectAndAck(peers.clientChannel, CmEventType.TIMEWAIT_EXIT);
            expectAndAck(peers.serverChannel, CmEventType.TIMEWAIT_EXIT);
            assertEquals(CmConnection.Phase.CLOSED, CmPeers.connection(ids[0]).phase);
        }
    }

    @Test
    void shouldConnectQpsTheApplicationMadeWithInitQpAttrAndEstablish() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); CmPeers peers = new CmPeers(fabric, cm))
        {
            final CmId client = peers.resolvedClient();
            try (OwnQp clientQp = new OwnQp(client))
            {
                refused(Errno.EINVAL, () -> client.initQpAttr(QpState.RTR));
                refused(Errno.EINVAL, client::establish);
                clientQp.qp.modify(client.initQpAttr(QpState.INIT));
                client.connect(new ConnParam(null, 1, 1, 0, 7, 7, false, clientQp.qp.qpNum()));

                final CmEvent request = expect(peers.serverChannel, CmEventType.CONNECT_REQUEST);
                final CmId server = request.id();
                request.ack();
                try (OwnQp serverQp = new OwnQp(server))
                {
                    serverQp.qp.modify(server.initQpAttr(QpState.INIT));
                    serverQp.qp.modify(server.initQpAttr(QpState.RTR));
                    serverQp.qp.modify(server.initQpAttr(QpState.RTS));
                    serverQp.postRecv();
                    server.accept(new ConnParam(null, 1, 1, 0, 7, 7, false, serverQp.qp.qpNum()));

                    final CmEvent response = expect(peers.clientChannel, CmEventType.CONNECT_RESPONSE);
                    assertEquals(serverQp.qp.qpNum(), response.connParam().qpNum());
                    response.close();
                    final var rtr = client.initQpAttr(QpState.RTR);
                    assertTrue(rtr.mask().containsAll(EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV,
                        QpAttrMask.PATH_MTU, QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN)), rtr.mask().toString());
                    assertEquals(serverQp.qp.qpNum(), rtr.destQpNum());
                    clientQp.qp.modify(rtr);
                    clientQp.qp.modify(client.initQpAttr(QpState.RTS));
                    client.establish();
                    expectAndAck(peers.serverChannel, CmEventType.ESTABLISHED);
                    assertNull(peers.clientChannel.getEvent(0, TimeUnit.SECONDS),
                        "rdma_establish reports nothing on the active side");

                    clientQp.send("own QP");
                    assertEquals(WcStatus.SUCCESS, clientQp.poll().status());
                    final WorkCompletion received = serverQp.poll();
                    assertEquals(WcStatus.SUCCESS, received.status());
                    assertEquals("own QP", serverQp.text(received.byteLen()));

                    client.disconnect();
                    expectAndAck(peers.clientChannel, CmEventType.DISCONNECTED);
                    expectAndAck(peers.serverChannel, CmEventType.DISCONNECTED);
                    server.close();
                }
            }
        }
    }

    /** An RC QP the application makes on the id's device itself, as rping -q does. */
    private static final class OwnQp implements AutoCloseable
    {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemorySegment buffer = Arena.ofAuto().allocate(4096, 64);
        final MemoryRegion mr;
        final WorkCompletion[] wcs = WorkCompletion.array(4);

        OwnQp(final CmId id)
        {
            pd = id.verbs().allocPd();
            cq = id.verbs().createCq(16, null, 0);
            qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, new QpCap(8, 8, 1, 1, 0)));
            mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
        }

        void postRecv()
        {
            qp.postRecv(new RecvWr().wrId(0).sge(mr, 0, 64));
        }

        void send(final String text)
        {
            final byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
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
                    throw new AssertionError("no completion within 10 s");
                }
                Thread.onSpinWait();
            }
            return wcs[0];
        }

        String text(final int length)
        {
            final byte[] bytes = new byte[length];
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, bytes, 0, length);
            return new String(bytes, java.nio.charset.StandardCharsets.US_ASCII);
        }

        @Override
        public void close()
        {
            qp.close();
            mr.close();
            cq.close();
            pd.close();
        }
    }
}
