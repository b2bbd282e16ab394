package io.rdma4j.soft;

import io.rdma4j.soft.link.FaultInjector;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AsyncEvent;
import io.rdma4j.verbs.AsyncEventType;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.SharedReceiveQueue;
import io.rdma4j.verbs.SrqAttr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every work completion error the RC/UC transport reports, each provoked on purpose, plus RNR
 * recovery, async events, UC loss and SRQs.
 */
@Timeout(30)
class RcErrorTest
{
    private static final long HALF = RcFixtures.HALF;

    /** The pair every case starts from: rdma-core's ping-pong settings, PSNs 100 and 200. */
    private static final RcConnectSettings SETTINGS = RcConnectSettings.defaults().psns(100, 200);

    private static RcEndpoint[] pair(final Fabric fabric, final RcConnectSettings settings)
    {
        final RcEndpoint a = new RcEndpoint(fabric.open(), QpType.RC, 2 * HALF, 64);
        final RcEndpoint b = new RcEndpoint(fabric.open(), QpType.RC, 2 * HALF, 64);
        settings.connect(a, b);
        return new RcEndpoint[] {a, b};
    }

    private static WorkCompletion one(final RcEndpoint e, final boolean send)
    {
        final List<WorkCompletion> wcs = send ? e.pollSend(1, 10_000) : e.pollRecv(1, 10_000);
        assertEquals(1, wcs.size(), "no completion");
        return wcs.getFirst();
    }

    private static AsyncEvent event(final Context context, final AsyncEventType type) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline)
        {
            final AsyncEvent e = context.getAsyncEvent(100, TimeUnit.MILLISECONDS);
            if (e != null && e.type() == type)
            {
                return e;
            }
        }
        return null;
    }

    private static SendWr write(final RcEndpoint a, final long remoteAddr, final int rkey, final int length)
    {
        return new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED).sge(a.mr, 0, length)
            .rdma(remoteAddr, rkey);
    }

    /** The four ways a WRITE can miss what the responder's memory allows. */
    enum BadAccess
    {
        /** An rkey no region has. */
        UNKNOWN_RKEY,
        /** The right rkey, but the range runs past the region's end. */
        PAST_THE_REGION,
        /** A region registered for REMOTE_READ only. */
        NO_REMOTE_WRITE,
        /** A region of another PD than the QP's. */
        OTHER_PD;

        SendWr write(final RcEndpoint requester, final RcEndpoint responder)
        {
            final long remote = responder.mr.segment().address();
            return switch (this)
            {
                case UNKNOWN_RKEY -> RcErrorTest.write(requester, remote, 0x7FFF00, 16);
                case PAST_THE_REGION -> RcErrorTest.write(requester, remote + 2 * HALF - 8, responder.mr.rkey(), 16);
                case NO_REMOTE_WRITE -> RcErrorTest.write(requester, remote, responder.pd.regMr(
                    responder.buffer.asSlice(0, 4096), EnumSet.of(AccessFlag.REMOTE_READ)).rkey(), 16);
                case OTHER_PD -> RcErrorTest.write(requester, remote, responder.context.allocPd().regMr(
                    responder.buffer.asSlice(0, 4096), EnumSet.allOf(AccessFlag.class)).rkey(), 16);
            };
        }
    }

    @ParameterizedTest
    @EnumSource(BadAccess.class)
    void shouldNakBadRkeyRangeAccessAndPdWithRemoteAccessError(final BadAccess access) throws InterruptedException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final RcEndpoint[] q = pair(fabric, SETTINGS);
            q[0].qp.postSend(access.write(q[0], q[1]));
            q[0].qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sge(q[0].mr, 0, 1));
            assertEquals(WcStatus.REM_ACCESS_ERR, one(q[0], true).status());
            final WorkCompletion flushed = one(q[0], true);
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
            assertEquals(2, flushed.wrId());
            assertEquals(QpState.ERR, q[0].qp.query().state());
            assertNotNull(event(q[1].context, AsyncEventType.QP_ACCESS_ERR));
        }
    }

    @Test
    void shouldAllowZeroLengthWriteWithoutRkey()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final RcEndpoint[] p = pair(fabric, SETTINGS);
            p[0].qp.postSend(write(p[0], 0, 0x12345, 0));
            assertEquals(WcStatus.SUCCESS, one(p[0], true).status());
        }
    }

    @Test
    void shouldNakInvalidRequests() throws InterruptedException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            // the responder's QP does not allow remote writes
            final RcEndpoint a = new RcEndpoint(fabric.open(), QpType.RC, 2 * HALF, 64);
            final RcEndpoint b = new RcEndpoint(fabric.open(), QpType.RC, 2 * HALF, 64);
            a.toRts(b, Mtu.MTU_1024, 14, 7, 7, 1, 0, 0);
            b.toRtr(a, Mtu.MTU_1024, 1, 0, AccessFlag.LOCAL_WRITE.bit());
            a.qp.postSend(write(a, b.mr.segment().address(), b.mr.rkey(), 16));
            assertEquals(WcStatus.REM_INV_REQ_ERR, one(a, true).status());
            assertNotNull(event(b.context, AsyncEventType.QP_REQ_ERR));

            // a misaligned atomic
            final RcEndpoint[] p = pair(fabric, SETTINGS);
            p[0].qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                .sge(p[0].mr, 0, 8).rdma(p[1].mr.segment().address() + 4, p[1].mr.rkey()).atomic(1, 0));
            assertEquals(WcStatus.REM_INV_REQ_ERR, one(p[0], true).status());

            // a receive buffer too small: both sides see REM_INV_REQ_ERR, as rxe reports it
            final RcEndpoint[] q = pair(fabric, SETTINGS);
            q[1].qp.postRecv(new RecvWr().wrId(9).sge(q[1].mr, 0, 100));
            q[0].qp.postSend(new SendWr().wrId(4).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(q[0].mr, 0, 3000));
            assertEquals(WcStatus.REM_INV_REQ_ERR, one(q[0], true).status());
            final WorkCompletion recv = one(q[1], false);
            assertEquals(9, recv.wrId());
            assertEquals(WcStatus.REM_INV_REQ_ERR, recv.status());
        }
    }

    @Test
    void shouldExhaustRetriesWhenThePeerIsSilent()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final RcEndpoint[] p = pair(fabric, SETTINGS.timeout(5).retryCount(2));
            fabric.network().faultInjector(new FaultInjector(1).dropProbability(1.0));
            p[0].qp.postSend(write(p[0], p[1].mr.segment().address(), p[1].mr.rkey(), 100));
            p[0].qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sge(p[0].mr, 0, 1));
            assertEquals(WcStatus.RETRY_EXC_ERR, one(p[0], true).status());
            assertEquals(WcStatus.WR_FLUSH_ERR, one(p[0], true).status());
            assertEquals(1, p[0].qp.counters().get("retry_exceeded_err"));
            assertEquals(2, p[0].qp.counters().get("completer_retry_err"), "retry_cnt 2: two retries");
        }
    }

    @Test
    void shouldExhaustRnrRetries()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            // a 4 s ACK timeout: on a loaded machine a 67 ms one fired while the requester waited for a core, and
            // its retransmission drew a fourth RNR NAK; only the RNR timer may drive the retries counted here
            final RcEndpoint[] p = pair(fabric, SETTINGS.rnrRetry(2).timeout(20));
            p[0].qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(p[0].mr, 0, 10));
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, one(p[0], true).status());
            assertEquals(3, p[0].qp.counters().get("rcvd_rnr_err"), "rnr_retry 2: three RNR NAKs");
            assertEquals(3, p[1].qp.counters().get("send_rnr_err"));
        }
    }

    @Test
    void shouldDeliverToAReceiverThatPostsLate()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            // min_rnr_timer 12: 640 µs between tries; rnr_retry 7: forever
            final RcEndpoint[] p = pair(fabric, SETTINGS.minRnrTimer(12));
            final RcEndpoint a = p[0];
            final RcEndpoint b = p[1];
            RcFixtures.fill(a.buffer, 0, 5000, 3);
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 0, 5000));
            TestVerbs.awaitAtLeast(() -> a.qp.counters().get("rcvd_rnr_err"), 2);
            b.qp.postRecv(new RecvWr().wrId(5).sge(b.mr, HALF, 8192));
            assertEquals(WcStatus.SUCCESS, one(a, true).status());
            final WorkCompletion got = one(b, false);
            assertEquals(5000, got.byteLen());
            assertEquals(java.util.Arrays.toString(RcFixtures.bytes(a.buffer, 0, 5000)),
                java.util.Arrays.toString(RcFixtures.bytes(b.buffer, HALF, 5000)));
        }
    }

    @Test
    void shouldReportLocalProtectionErrors()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final RcEndpoint[] p = pair(fabric, SETTINGS);
            p[0].qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(p[0].mr.segment().address(), 10, 0x5555500));
            assertEquals(WcStatus.LOC_PROT_ERR, one(p[0], true).status());

            // a READ into memory without LOCAL_WRITE
            final RcEndpoint[] q = pair(fabric, SETTINGS);
            final MemoryRegion noLocalWrite = q[0].pd.regMr(q[0].buffer.asSlice(0, 4096),
                EnumSet.of(AccessFlag.REMOTE_READ));
            q[0].qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                .sge(noLocalWrite, 0, 64).rdma(q[1].mr.segment().address(), q[1].mr.rkey()));
            assertEquals(WcStatus.LOC_PROT_ERR, one(q[0], true).status());
        }
    }

    @Test
    void shouldFlushBothQueuesAndRaiseEvents() throws InterruptedException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context ca = fabric.open();
            final Context cb = fabric.open();
            final RcEndpoint a = new RcEndpoint(ca, QpType.RC, 2 * HALF, 64);
            final var pdB = cb.allocPd();
            final SharedReceiveQueue srq = pdB.createSrq(new SrqAttr(64, 1, 0));
            final RcEndpoint b1 = new RcEndpoint(cb, pdB, QpType.RC, 2 * HALF, 64, srq);
            final RcEndpoint b2 = new RcEndpoint(cb, pdB, QpType.RC, 2 * HALF, 64, srq);
            final RcEndpoint a2 = new RcEndpoint(ca, QpType.RC, 2 * HALF, 64);
            // b1 stays in RTR: its first packet raises COMM_EST
            a.toRts(b1, Mtu.MTU_1024, 14, 7, 7, 1, 0, 0);
            b1.toRtr(a, Mtu.MTU_1024, 1, 0, RcEndpoint.ALL_REMOTE);
            RcConnectSettings.defaults().connect(a2, b2);
            for (int i = 0; i < 4; i++)
            {
                srq.postRecv(new RecvWr().wrId(i).sge(b1.mr, (long)i * 4096, 4096));
            }
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 0, 100));
            a2.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(a2.mr, 0, 200));
            assertEquals(WcStatus.SUCCESS, one(a, true).status());
            assertEquals(WcStatus.SUCCESS, one(a2, true).status());
            final List<Long> taken = new ArrayList<>();
            taken.add(one(b1, false).wrId());
            taken.add(one(b2, false).wrId());
            assertTrue(taken.containsAll(List.of(0L, 1L)), "both QPs drew from the SRQ: " + taken);
            assertNotNull(event(cb, AsyncEventType.COMM_EST));

            // ERR flushes the send queue and, for an SRQ QP, announces the last WQE
            a.qp.postRecv(new RecvWr().wrId(50).sge(a.mr, 0, 64));
            b2.qp.modify(new QpAttr().state(QpState.ERR));
            final AsyncEvent last = event(cb, AsyncEventType.QP_LAST_WQE_REACHED);
            assertNotNull(last);
            assertEquals(b2.qp, last.qp());
            a.qp.modify(new QpAttr().state(QpState.ERR));
            assertEquals(WcStatus.WR_FLUSH_ERR, one(a, false).status());
            a.qp.postSend(new SendWr().wrId(60).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 0, 1));
            final WorkCompletion flushed = one(a, true);
            assertEquals(60, flushed.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
        }
    }
}
