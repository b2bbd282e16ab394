package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A device without a progress thread, driven through {@link SoftEngine#doWork} with a clock the
 * test owns: RC's retransmit timer fires when, and only when, the test moves time past it.
 */
@Timeout(60)
class ManualProgressTest
{
    /** IBTA: 4.096 us << timeout; 14 gives about 67 ms. */
    private static final int TIMEOUT = 14;
    private static final long TIMEOUT_NS = 4096L << TIMEOUT;
    private static final int RETRY_CNT = 3;

    @Test
    void shouldRetransmitOnlyWhenTheClockPassesTheTimeout()
    {
        final AtomicLong clock = new AtomicLong(TimeUnit.SECONDS.toNanos(5));
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = SoftDevice.builder("manual", fabric.address(70))
                .link(address -> fabric.network().attach(address))
                .clock(clock::get)
                .progressThread(false)
                .build().open();
            fabric.adopt(context);
            final SoftEngine engine = SoftEngine.of(context);
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16, null, 0);
            final QueuePair qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
            final MemoryRegion mr = pd.regMr(Arena.ofAuto().allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE));
            // a peer address where nobody answers
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(0));
            qp.modify(new QpAttr().state(QpState.RTR).ahAttr(AhAttr.global(Gid.fromInet(fabric.address(71)), 64))
                .pathMtu(Mtu.MTU_1024).destQpNum(0x4242).rqPsn(0).maxDestRdAtomic(1).minRnrTimer(1));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0).timeout(TIMEOUT).retryCnt(RETRY_CNT).rnrRetry(7)
                .maxRdAtomic(1));

            qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(mr, 0, 100));
            engine.doWork();
            final long sent = engine.counters().get(SoftCounter.SENT_PKTS);
            assertTrue(sent >= 1, "the SEND went out");

            final WorkCompletion[] wcs = WorkCompletion.array(4);
            clock.addAndGet(TIMEOUT_NS / 2);
            engine.doWork();
            assertEquals(0, engine.counters().get(SoftCounter.RETRANSMITTED_PKTS), "retransmitted before the timeout");
            assertEquals(0, cq.poll(wcs));

            clock.addAndGet(TIMEOUT_NS);
            engine.doWork();
            assertEquals(1, engine.counters().get(SoftCounter.RETRANSMITTED_PKTS));
            assertEquals(sent + 1, engine.counters().get(SoftCounter.SENT_PKTS));

            int steps = 1;
            int polled = 0;
            while (polled == 0 && steps <= RETRY_CNT + 1)
            {
                clock.addAndGet(TIMEOUT_NS + 1);
                engine.doWork();
                steps++;
                polled = cq.poll(wcs);
            }
            assertEquals(1, polled, "no completion after " + steps + " timeouts");
            assertEquals(5, wcs[0].wrId());
            assertEquals(WcStatus.RETRY_EXC_ERR, wcs[0].status());
            assertEquals(RETRY_CNT, engine.counters().get(SoftCounter.RETRANSMITTED_PKTS));
        }
    }
}
