package io.rdma4j.soft;

import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A request/response pair whose send queues hold one WR, as a user who sizes queues to the traffic writes it:
 * each side posts its next SEND as soon as it has the peer's, and polls its own send completions only now and
 * then. The peer's ACK of our last SEND must reach us before the peer's next message does, as rxe's does
 * (it acknowledges before the application can answer): a coalesced ACK that left after the answer made the
 * next post fail with ENOMEM ("send queue is full").
 */
@Timeout(120)
class SmallSendQueueTest
{
    private static final int ROUNDS = 3000;
    private static final int LENGTH = 64;

    @ParameterizedTest
    @EnumSource(value = Fabric.Kind.class, names = {"MEMORY", "UDP", "SHM"})
    void shouldNeverFillASendQueueOfOneInARequestResponseLoop(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final RcEndpoint client = new RcEndpoint(fabric.open(), io.rdma4j.verbs.QpType.RC, 1 << 16, 1);
            final RcEndpoint server = new RcEndpoint(fabric.open(), io.rdma4j.verbs.QpType.RC, 1 << 16, 1);
            RcConnectSettings.defaults().connect(client, server);
            final SendWr request = new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(client.mr, 0, LENGTH);
            final SendWr reply = new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(server.mr, 0, LENGTH);
            final RecvWr clientRecv = new RecvWr().wrId(3).sge(client.mr, 4096, LENGTH);
            final RecvWr serverRecv = new RecvWr().wrId(4).sge(server.mr, 4096, LENGTH);
            final WorkCompletion[] wcs = WorkCompletion.array(64);
            server.qp.postRecv(serverRecv);
            for (int round = 0; round < ROUNDS; round++)
            {
                client.qp.postRecv(clientRecv);
                client.qp.postSend(request);
                awaitRecv(server, wcs);
                server.qp.postRecv(serverRecv);
                server.qp.postSend(reply);
                awaitRecv(client, wcs);
                // the send completions are reaped late, as an application polling a shared CQ would
                drainSends(client, wcs);
                drainSends(server, wcs);
            }
        }
    }

    private static void awaitRecv(final RcEndpoint endpoint, final WorkCompletion[] wcs)
    {
        int n;
        while ((n = endpoint.recvCq.poll(wcs, 1)) == 0)
        {
            Thread.onSpinWait();
        }
        assertEquals(1, n);
        assertEquals(WcStatus.SUCCESS, wcs[0].status());
    }

    private static void drainSends(final RcEndpoint endpoint, final WorkCompletion[] wcs)
    {
        final int n = endpoint.sendCq.poll(wcs);
        for (int i = 0; i < n; i++)
        {
            assertEquals(WcStatus.SUCCESS, wcs[i].status());
        }
    }
}
