package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.ForwardingLink;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.MemoryLink;
import io.rdma4j.soft.link.SentDatagram;
import io.rdma4j.soft.transport.Transports;
import io.rdma4j.soft.verbs.SoftCq;
import io.rdma4j.soft.wire.BthFlyweight;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A large RDMA READ is answered in slices of {@link Transports#RESPONSE_PACKETS_PER_TURN} packets per
 * turn of the responder device's progress loop, so other QPs' packets are handled between slices, and
 * duplicates of the request restart the run in progress instead of each replaying it in full.
 * <p>
 * The responder's link is held shut while the requests are queued on it, so both arrive in one batch
 * whatever the threads' timing; the order of what the responder sends is read from the network's tap,
 * which sees datagrams in send order.
 */
@Timeout(60)
class ReadResponseSliceTest
{
    /** MTU 1024, no ACK timeout (infinite), 7 retries, 7 RNR retries, minimum RNR timer 1. */
    private static final RcConnectSettings SLICE_SETTINGS = RcConnectSettings.defaults().mtu(Mtu.MTU_1024).timeout(0)
        .retryCount(7).rnrRetry(7).minRnrTimer(1);

    private static final int MTU = 1024;
    private static final int BIG = 8 << 20;

    /** Hides arrivals from the device until opened. */
    private static final class Gate extends ForwardingLink
    {
        private volatile boolean open;

        Gate(final Link inner)
        {
            super(inner);
        }

        @Override
        public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
        {
            return open && super.receive(buffer, info);
        }

        int queued()
        {
            return ((MemoryLink)inner).queued();
        }

        void open()
        {
            open = true;
            inner.wakeup();
        }
    }

    /** What the responder device sent, in order: opcode, destination QP and PSN of each packet. */
    private static final class Sent
    {
        final List<int[]> packets = new ArrayList<>();

        synchronized void add(final SentDatagram d)
        {
            final MemorySegment bth = MemorySegment.ofArray(d.bytes());
            packets.add(new int[] {BthFlyweight.opcode(bth, 0), BthFlyweight.destQp(bth, 0), BthFlyweight.psn(bth, 0)});
        }

        synchronized int indexOf(final int opcode, final int destQp)
        {
            for (int i = 0; i < packets.size(); i++)
            {
                if (packets.get(i)[0] == opcode && packets.get(i)[1] == destQp)
                {
                    return i;
                }
            }
            return -1;
        }

        synchronized boolean sentPsn(final int opcode, final int psn)
        {
            for (final int[] p : packets)
            {
                if (p[0] == opcode && p[2] == psn)
                {
                    return true;
                }
            }
            return false;
        }

        synchronized int count(final int opcodeFrom, final int opcodeTo)
        {
            int n = 0;
            for (final int[] p : packets)
            {
                if (p[0] >= opcodeFrom && p[0] <= opcodeTo)
                {
                    n++;
                }
            }
            return n;
        }
    }

    private static Gate[] gateOf(final Fabric fabric)
    {
        final Gate[] gate = new Gate[1];
        fabric.linkWrapper(link ->
        {
            gate[0] = new Gate(link);
            return gate[0];
        });
        return gate;
    }

    private static SendWr read(final RcEndpoint requester, final RcEndpoint responder, final int length)
    {
        return new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .sge(requester.mr, 0, length).rdma(responder.mr.segment().address(), responder.mr.rkey());
    }

    private static WorkCompletion one(final List<WorkCompletion> wcs)
    {
        assertEquals(1, wcs.size(), "no completion");
        assertEquals(WcStatus.SUCCESS, wcs.getFirst().status(), wcs.getFirst().toString());
        return wcs.getFirst();
    }

    @Test
    void shouldHandleAnotherQpsSendBetweenTheSlicesOfALargeRead()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context requesterDevice = fabric.open();
            final Gate[] gate = gateOf(fabric);
            final Context responderDevice = fabric.open();
            fabric.linkWrapper(UnaryOperator.identity());
            final RcEndpoint reader = new RcEndpoint(requesterDevice, QpType.RC, BIG, 16);
            final RcEndpoint sender = new RcEndpoint(requesterDevice, QpType.RC, 65536, 16);
            final RcEndpoint readTarget = new RcEndpoint(responderDevice, QpType.RC, BIG, 16);
            final RcEndpoint receiver = new RcEndpoint(responderDevice, QpType.RC, 65536, 16);
            SLICE_SETTINGS.psns(100, 200).connect(reader, readTarget);
            SLICE_SETTINGS.psns(300, 400).connect(sender, receiver);
            RcFixtures.fill(readTarget.buffer, 0, BIG, 5);

            final InetAddress responderAddress = receiver.engine().link().localAddress();
            final Sent sent = new Sent();
            final AtomicInteger recvPendingAtLast = new AtomicInteger(-1);
            final int lastOpcode = Opcode.RC_RDMA_READ_RESPONSE_LAST.wire();
            fabric.network().tap(d ->
            {
                if (d.source().equals(responderAddress))
                {
                    sent.add(d);
                    if ((d.bytes()[0] & 0xFF) == lastOpcode)
                    {
                        // is the SEND to the other QP completed when the READ's last response leaves?
                        recvPendingAtLast.set(((SoftCq)receiver.recvCq).pending());
                    }
                }
            });

            receiver.qp.postRecv(new RecvWr().wrId(9).sge(receiver.mr, 0, 4096));
            reader.qp.postSend(read(reader, readTarget, BIG));
            sender.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(sender.mr, 0, 16));
            TestVerbs.awaitAtLeast(() -> gate[0].queued(), 2);
            gate[0].open();

            one(sender.pollSend(1, 30_000));
            one(reader.pollSend(1, 30_000));
            assertEquals(1, recvPendingAtLast.get(),
                "the SEND's receive completed before the READ's last response left");
            final int ackToSender = sent.indexOf(Opcode.RC_ACKNOWLEDGE.wire(), sender.qp.qpNum());
            final int last = sent.indexOf(lastOpcode, reader.qp.qpNum());
            assertTrue(ackToSender >= 0 && ackToSender < last, "the SEND's ACK (packet " + ackToSender +
                ") left before the READ's last response (packet " + last + ")");
            assertTrue(ackToSender <= 2 * Transports.RESPONSE_PACKETS_PER_TURN, "the SEND waited for " +
                ackToSender + " READ responses, more than two slices");
            assertTrue(sent.count(Opcode.RC_RDMA_READ_RESPONSE_FIRST.wire(), lastOpcode) >= BIG / MTU,
                "every READ response sent");
            assertArrayEquals(RcFixtures.bytes(readTarget.buffer, BIG - 4096, 4096),
                RcFixtures.bytes(reader.buffer, BIG - 4096, 4096));
        }
    }

    @Test
    void shouldAnswerLaterRequestsOfTheSameQpAfterTheReadsLastResponse()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context requesterDevice = fabric.open();
            final Gate[] gate = gateOf(fabric);
            final Context responderDevice = fabric.open();
            fabric.linkWrapper(UnaryOperator.identity());
            final RcEndpoint reader = new RcEndpoint(requesterDevice, QpType.RC, BIG, 16);
            final RcEndpoint target = new RcEndpoint(responderDevice, QpType.RC, BIG, 16);
            SLICE_SETTINGS.psns(100, 200).connect(reader, target);
            final InetAddress responderAddress = target.engine().link().localAddress();
            final Sent sent = new Sent();
            fabric.network().tap(d ->
            {
                if (d.source().equals(responderAddress))
                {
                    sent.add(d);
                }
            });

            // a READ of several slices (within the requester's 128-PSN window), then a SEND and an atomic
            // pipelined behind it: their ACKs must not overtake the READ's responses, or the requester
            // would take the READ's responses as lost
            target.qp.postRecv(new RecvWr().wrId(9).sge(target.mr, 0, 4096));
            reader.qp.postSend(read(reader, target, 100 * MTU));
            reader.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(reader.mr, BIG / 2, 16));
            reader.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD)
                .sendFlags(SendFlags.SIGNALED).sge(reader.mr, BIG / 2 + 64, 8)
                .rdma(target.mr.segment().address() + BIG / 2, target.mr.rkey()).atomic(5, 0));
            TestVerbs.awaitAtLeast(() -> gate[0].queued(), 3);
            gate[0].open();

            final List<WorkCompletion> wcs = reader.pollSend(3, 30_000);
            assertEquals(3, wcs.size());
            for (final WorkCompletion wc : wcs)
            {
                assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
            }
            final int qpn = reader.qp.qpNum();
            final int last = sent.indexOf(Opcode.RC_RDMA_READ_RESPONSE_LAST.wire(), qpn);
            final int atomicAck = sent.indexOf(Opcode.RC_ATOMIC_ACKNOWLEDGE.wire(), qpn);
            final int ack = sent.indexOf(Opcode.RC_ACKNOWLEDGE.wire(), qpn);
            assertTrue(last >= 0 && atomicAck > last, "atomic ACK " + atomicAck + " after READ LAST " + last);
            assertTrue(ack < 0 || ack > last, "ACK " + ack + " after READ LAST " + last);
            assertEquals(0L, reader.qp.counters().get(SoftCounter.COMPLETER_RETRY_ERR.counterName()),
                "no response taken as lost");
        }
    }

    @Test
    void shouldKeepAtMostMaxDestRdAtomicReadsOwedWhenARequesterSendsMore()
    {
        final int rdAtomic = 2;
        final int reads = 6;
        final int packets = 64;
        final int firstPsn = 1000;
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Gate[] gate = gateOf(fabric);
            final RcEndpoint target = new RcEndpoint(fabric.open(), QpType.RC, packets * MTU, 16);
            fabric.linkWrapper(UnaryOperator.identity());
            final InetAddress responderAddress = target.engine().link().localAddress();
            // a hostile requester that exists only as an address: it ignores max_dest_rd_atomic 2
            final InetAddress peer = fabric.address(251);
            target.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1)
                .accessFlags(RcEndpoint.ALL_REMOTE));
            target.qp.modify(new QpAttr().state(QpState.RTR).ahAttr(AhAttr.global(Gid.fromInet(peer), 64))
                .pathMtu(Mtu.MTU_1024).destQpNum(0x99).rqPsn(firstPsn).maxDestRdAtomic(rdAtomic).minRnrTimer(1));
            target.qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7)
                .maxRdAtomic(1));
            final Sent sent = new Sent();
            fabric.network().tap(d ->
            {
                if (d.source().equals(responderAddress))
                {
                    sent.add(d);
                }
            });
            final PacketBuilder builder = new PacketBuilder();
            for (int i = 0; i < reads; i++)
            {
                final PacketInfo spec = new PacketInfo()
                    .network(Ipv4.toInt(peer), Link.ROCE_V2_PORT, Ipv4.toInt(responderAddress), Link.ROCE_V2_PORT, 0)
                    .opcode(Opcode.RC_RDMA_READ_REQUEST).destQp(target.qp.qpNum()).psn(firstPsn + i * packets)
                    .ackReq(true).va(target.mr.segment().address()).rkey(target.mr.rkey()).dmaLength(packets * MTU);
                final byte[] packet = new byte[PacketBuilder.length(Opcode.RC_RDMA_READ_REQUEST, 0)];
                builder.build(spec, 0, MemorySegment.ofArray(packet), 0);
                fabric.network().inject(peer, responderAddress, ByteBuffer.wrap(packet));
            }
            TestVerbs.awaitAtLeast(() -> gate[0].queued(), reads);
            gate[0].open();

            // the last two READs are answered in full; the older ones gave up their ring entries
            final int last = Opcode.RC_RDMA_READ_RESPONSE_LAST.wire();
            final int lastPsn = firstPsn + reads * packets - 1;
            TestVerbs.awaitAtLeast(() -> sent.sentPsn(last, lastPsn) ? 1 : 0, 1);
            assertTrue(sent.sentPsn(last, lastPsn - packets), "the READ before the last answered in full");
            assertFalse(sent.sentPsn(last, firstPsn + packets - 1), "the first READ's entry was given up");
            final int responses = sent.count(Opcode.RC_RDMA_READ_RESPONSE_FIRST.wire(), last);
            final int bound = rdAtomic * packets + Transports.RESPONSE_PACKETS_PER_TURN;
            assertTrue(responses <= bound, responses + " READ responses for " + reads + " READs of " + packets +
                " packets with max_dest_rd_atomic " + rdAtomic + "; the bound is " + bound);
            assertEquals(QpState.RTS, target.qp.query().state());
        }
    }

    @Test
    void shouldRestartTheRunInProgressForDuplicatesInsteadOfReplayingItForEach()
    {
        final int length = 4 << 20;
        final int packets = length / MTU;
        final int duplicates = 100;
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context requesterDevice = fabric.open();
            final Gate[] gate = gateOf(fabric);
            final Context responderDevice = fabric.open();
            fabric.linkWrapper(UnaryOperator.identity());
            final RcEndpoint reader = new RcEndpoint(requesterDevice, QpType.RC, length, 16);
            final RcEndpoint readTarget = new RcEndpoint(responderDevice, QpType.RC, length, 16);
            // timeout 0: the requester never retries by itself, so every duplicate is one of ours
            SLICE_SETTINGS.psns(100, 200).connect(reader, readTarget);
            RcFixtures.fill(readTarget.buffer, 0, length, 9);

            final InetAddress requesterAddress = reader.engine().link().localAddress();
            final InetAddress responderAddress = readTarget.engine().link().localAddress();
            final Sent sent = new Sent();
            final AtomicReference<SentDatagram> request = new AtomicReference<>();
            fabric.network().tap(d ->
            {
                if (d.source().equals(responderAddress))
                {
                    sent.add(d);
                }
                else if (d.source().equals(requesterAddress) &&
                    (d.bytes()[0] & 0xFF) == Opcode.RC_RDMA_READ_REQUEST.wire())
                {
                    request.set(d);
                }
            });

            reader.qp.postSend(read(reader, readTarget, length));
            TestVerbs.awaitAtLeast(() -> gate[0].queued(), 1);
            assertNotNull(request.get());
            for (int i = 0; i < duplicates; i++)
            {
                fabric.network().inject(request.get());
            }
            TestVerbs.awaitAtLeast(() -> gate[0].queued(), 1 + duplicates);
            gate[0].open();

            one(reader.pollSend(1, 30_000));
            TestVerbs.awaitAtLeast(
                () -> readTarget.qp.counters().get(SoftCounter.DUPLICATE_REQUEST.counterName()), duplicates);
            final int responses = sent.count(Opcode.RC_RDMA_READ_RESPONSE_FIRST.wire(),
                Opcode.RC_RDMA_READ_RESPONSE_ONLY.wire());
            // each duplicate restarts the run at most once; between two restarts at most a slice left
            final int bound = packets + duplicates * Transports.RESPONSE_PACKETS_PER_TURN;
            assertTrue(responses >= packets && responses <= bound, responses + " READ responses for " + packets +
                "-packet READ and " + duplicates + " duplicates; the bound is " + bound);
            assertArrayEquals(RcFixtures.bytes(readTarget.buffer, 0, length),
                RcFixtures.bytes(reader.buffer, 0, length));
        }
    }
}
