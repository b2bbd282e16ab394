package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.transport.QpTransport;
import io.rdma4j.soft.transport.Transports;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The work owed at the end of a receive batch (a responder's coalesced ACK) is done for the QPs that owe it,
 * not by visiting every QP: a device with many idle QPs pays nothing for them per batch, and timers run only
 * when one is due. Driven by hand ({@code progressThread(false)}, an injected clock that never moves), so
 * every duty cycle is the test's.
 */
@Timeout(60)
class BatchEndTest
{
    private static final int IDLE_QPS = 8;
    private static final int MESSAGES = 20;

    @Test
    void shouldAcknowledgeAtTheEndOfABatchWithoutVisitingIdleQps()
    {
        final AtomicLong clock = new AtomicLong(1_000_000_000L);
        final Map<Integer, CountingTimers> transports = new HashMap<>();
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = SoftDevice.builder("batch", fabric.address(73))
                .link(address -> fabric.network().attach(address))
                .clock(clock::get)
                .progressThread(false)
                .transports(qp ->
                {
                    final CountingTimers counting = new CountingTimers(Transports.create(qp));
                    transports.put(qp.qpNum(), counting);
                    return counting;
                })
                .build().open();
            fabric.adopt(context);
            final SoftEngine engine = SoftEngine.of(context);
            final RcEndpoint a = new RcEndpoint(context, QpType.RC, 1 << 16, 64);
            final RcEndpoint b = new RcEndpoint(context, QpType.RC, 1 << 16, 64);
            // timeout 0: no retransmission timer, so any visit of the timers would be the batch's doing
            RcConnectSettings.defaults().timeout(0).connect(a, b);
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16, null, 0);
            for (int i = 0; i < IDLE_QPS; i++)
            {
                pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
            }
            final long acksBefore = engine.counters().get(SoftCounter.SENT_ACKS);

            for (int i = 0; i < MESSAGES; i++)
            {
                b.qp.postRecv(new RecvWr().wrId(i).sge(b.mr, 0, 64));
                a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sge(a.mr, 0, 64));
            }
            final WorkCompletion[] wcs = WorkCompletion.array(MESSAGES);
            int sent = 0;
            int received = 0;
            for (int cycle = 0; cycle < 1000 && (sent < MESSAGES || received < MESSAGES); cycle++)
            {
                engine.doWork();
                sent += countSuccesses(a.sendCq, wcs);
                received += countSuccesses(b.recvCq, wcs);
            }

            assertEquals(MESSAGES, received, "every SEND arrived");
            assertEquals(MESSAGES, sent, "and was acknowledged: the ACKs left at the ends of the batches");
            assertTrue(engine.counters().get(SoftCounter.SENT_ACKS) > acksBefore);
            transports.forEach((qpn, timers) ->
                assertEquals(0, timers.visits, "QP 0x" + Integer.toHexString(qpn) + "'s timers ran, none being due"));
        }
    }

    private static int countSuccesses(final CompletionQueue cq, final WorkCompletion[] wcs)
    {
        final int n = cq.poll(wcs);
        for (int i = 0; i < n; i++)
        {
            assertTrue(wcs[i].isSuccess(), wcs[i].toString());
        }
        return n;
    }

    /** A QP's real transport, counting how often the device ran its timers. */
    private static final class CountingTimers extends ForwardingTransport
    {
        private int visits;

        CountingTimers(final QpTransport transport)
        {
            super(transport);
        }

        @Override
        public long onTimer(final long nowNs)
        {
            visits++;
            return super.onTimer(nowNs);
        }
    }
}
