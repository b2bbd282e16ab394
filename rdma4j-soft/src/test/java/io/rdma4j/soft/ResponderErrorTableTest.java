package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.SentDatagram;
import io.rdma4j.soft.wire.AethFlyweight;
import io.rdma4j.soft.wire.BthFlyweight;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The responder's answer to each error cause, pinned per cause from the wire: hand-made request
 * packets go to a QP whose peer does not exist, and the test reads what the QP sends back (the
 * NAK's syndrome), the status of the receive WQE, the QP's state and the counter of the cause.
 * <p>
 * RC: each cause has its NAK; the fatal ones complete a receive WQE the message held with their
 * status and move the QP to ERR. UC: nothing is sent, the QP stays in RTS, the message is dropped
 * and a receive WQE it took stays for the next message, which a probe (a WRITE with immediate)
 * shows by completing on it.
 */
@Timeout(30)
class ResponderErrorTableTest
{
    private static final int PSN = 100;
    private static final int PEER_QPN = 0x99;
    private static final int MTU = 1024;
    private static final int BAD_RKEY = 0x7FFF00;
    private static final int PROBE_IMM = 0xABC;
    private static final int ALL_REMOTE = RcEndpoint.ALL_REMOTE;
    private static final int NO_REMOTE = AccessFlag.LOCAL_WRITE.bit();

    /** What a case does to the responder, after the receives are posted. */
    @FunctionalInterface
    interface Scenario
    {
        void run(Harness h);
    }

    /**
     * One cause on one transport and what it must cost; built with {@link #rc} or {@link #uc}.
     *
     * @param cause      the responder's error state this provokes.
     * @param type       RC or UC.
     * @param access     the QP's access flags.
     * @param rdAtomic   max_dest_rd_atomic.
     * @param recvs      true to post receives 1 (of {@code recvLength} bytes) and 2 first.
     * @param recvLength bytes of receive 1.
     * @param scenario   the packets.
     * @param syndrome   RC: the NAK's AETH syndrome.
     * @param recvStatus RC: the status receive 1 completes with, or null for none.
     * @param state      RC: the QP's state afterwards.
     * @param ucWrIds    UC: the receives that complete, in order, the probe's last.
     * @param counter    a QP counter the cause leaves at 1, or null.
     */
    record Case(String cause, QpType type, int access, int rdAtomic, boolean recvs, int recvLength, Scenario scenario,
        int syndrome, WcStatus recvStatus, QpState state, List<Long> ucWrIds, SoftCounter counter)
    {
        @Override
        public String toString()
        {
            return cause + " on " + type;
        }
    }

    /** Builds a {@link Case}: defaults are every remote access, receives 1 and 2 posted, 16 resources. */
    static final class CaseBuilder
    {
        private final String cause;
        private final QpType type;
        private final Scenario scenario;
        private int access = ALL_REMOTE;
        private int rdAtomic = 16;
        private boolean recvs = true;
        private int recvLength = 4096;
        private int syndrome = -1;
        private WcStatus recvStatus;
        private QpState state = QpState.RTS;
        private List<Long> ucWrIds = List.of(1L);
        private SoftCounter counter;

        CaseBuilder(final String cause, final QpType type, final Scenario scenario)
        {
            this.cause = cause;
            this.type = type;
            this.scenario = scenario;
        }

        /** RC: the NAK sent, and the QP left in RTS with no receive completed. */
        CaseBuilder naks(final int syndrome)
        {
            this.syndrome = syndrome;
            return this;
        }

        /** RC: the NAK sent, receive 1 completed with {@code status} and the QP moved to ERR. */
        CaseBuilder fails(final int syndrome, final WcStatus status)
        {
            this.syndrome = syndrome;
            this.recvStatus = status;
            this.state = QpState.ERR;
            return this;
        }

        /** UC: the receives that complete, the probe's last. */
        CaseBuilder completes(final Long... wrIds)
        {
            this.ucWrIds = List.of(wrIds);
            return this;
        }

        CaseBuilder access(final int access)
        {
            this.access = access;
            return this;
        }

        CaseBuilder rdAtomic(final int rdAtomic)
        {
            this.rdAtomic = rdAtomic;
            return this;
        }

        /** The scenario posts the receives itself. */
        CaseBuilder noRecvs()
        {
            this.recvs = false;
            return this;
        }

        CaseBuilder recvLength(final int recvLength)
        {
            this.recvLength = recvLength;
            return this;
        }

        CaseBuilder counts(final SoftCounter counter)
        {
            this.counter = counter;
            return this;
        }

        Case build()
        {
            return new Case(cause, type, access, type == QpType.UC ? 0 : rdAtomic, recvs, recvLength, scenario,
                syndrome, recvStatus, state, ucWrIds, counter);
        }
    }

    private static CaseBuilder rc(final String cause, final Scenario scenario)
    {
        return new CaseBuilder(cause, QpType.RC, scenario);
    }

    private static CaseBuilder uc(final String cause, final Scenario scenario)
    {
        return new CaseBuilder(cause, QpType.UC, scenario);
    }

    static Stream<Case> cases()
    {
        final Scenario psnAhead = h -> h.inject("SEND_ONLY", PSN + 5, 10, s -> { });
        final Scenario noRecv = h ->
        {
            h.inject("SEND_ONLY", PSN, 10, s -> { });
            if (h.uc)
            {
                TestVerbs.awaitAtLeast(() -> h.qpCounter(SoftCounter.DROP_NO_RECV_WQE), 1);
                h.postRecv(1, h.r.mr, 4096);
            }
        };
        final Scenario firstTwice = h ->
        {
            h.inject("SEND_FIRST", PSN, MTU, s -> { });
            h.inject("SEND_FIRST", PSN + 1, MTU, s -> { });
        };
        final Scenario flush = h -> h.inject("FLUSH", PSN, 0, s -> s.va(h.va()).rkey(h.r.mr.rkey()).dmaLength(0)
            .feth(1));
        final Scenario write16 = h -> h.inject("RDMA_WRITE_ONLY", PSN, 16,
            s -> s.va(h.va()).rkey(h.r.mr.rkey()).dmaLength(16));
        final Scenario read16 = h -> h.inject("RDMA_READ_REQUEST", PSN, 0,
            s -> s.va(h.va()).rkey(h.r.mr.rkey()).dmaLength(16));
        final Scenario shortFirst = h -> h.inject("SEND_FIRST", PSN, 100, s -> { });
        // a hostile WRITE or READ claiming more than the 2^31 bytes a message may have is refused at once
        final Scenario hugeWrite = h -> h.inject("RDMA_WRITE_FIRST", PSN, MTU,
            s -> s.va(h.va()).rkey(h.r.mr.rkey()).dmaLength((1L << 31) + 1));
        final Scenario hugeRead = h -> h.inject("RDMA_READ_REQUEST", PSN, 0,
            s -> s.va(h.va()).rkey(h.r.mr.rkey()).dmaLength((1L << 31) + 1));
        final Scenario send100 = h -> h.inject("SEND_ONLY", PSN, 100, s -> { });
        final Scenario writeShort = h -> h.inject("RDMA_WRITE_ONLY", PSN, 50,
            s -> s.va(h.va()).rkey(h.r.mr.rkey()).dmaLength(100));
        final Scenario writeBadRkey = h -> h.inject("RDMA_WRITE_ONLY", PSN, 16,
            s -> s.va(h.va()).rkey(BAD_RKEY).dmaLength(16));
        final Scenario readBadRkey = h -> h.inject("RDMA_READ_REQUEST", PSN, 0,
            s -> s.va(h.va()).rkey(BAD_RKEY).dmaLength(16));
        final Scenario atomicMisaligned = h -> h.inject("FETCH_ADD", PSN, 0,
            s -> s.va(h.va() + 4).rkey(h.r.mr.rkey()).swapAdd(1));
        final Scenario atomicBadRkey = h -> h.inject("FETCH_ADD", PSN, 0,
            s -> s.va(h.va()).rkey(BAD_RKEY).swapAdd(1));
        final Scenario lkeyGone = h ->
        {
            // receive 1 points into a region deregistered after posting: the SEND cannot be placed
            final MemoryRegion gone = h.r.pd.regMr(h.r.buffer.asSlice(8192, 4096), EnumSet.allOf(AccessFlag.class));
            h.postRecv(1, gone, 4096);
            h.postRecv(2, h.r.mr, 4096);
            gone.close();
            h.inject("SEND_ONLY", PSN, 10, s -> { });
        };
        final int psnNak = AethFlyweight.NAK_PSN_SEQUENCE_ERROR;
        final int invalid = AethFlyweight.NAK_INVALID_REQUEST;
        final int access = AethFlyweight.NAK_REMOTE_ACCESS_ERROR;
        final int operational = AethFlyweight.NAK_REMOTE_OPERATIONAL_ERROR;
        final WcStatus inv = WcStatus.REM_INV_REQ_ERR;
        final WcStatus flushed = WcStatus.WR_FLUSH_ERR;
        return Stream.of(
            rc("ERR_PSN_SEQUENCE", psnAhead).naks(psnNak).counts(SoftCounter.OUT_OF_SEQ_REQUEST),
            uc("ERR_PSN_SEQUENCE", psnAhead).completes(1L, 2L).counts(SoftCounter.OUT_OF_SEQ_REQUEST),
            rc("ERR_RNR", noRecv).noRecvs().naks(AethFlyweight.TYPE_RNR_NAK | 1).counts(SoftCounter.SEND_RNR_ERR),
            uc("ERR_RNR", noRecv).noRecvs().counts(SoftCounter.DROP_NO_RECV_WQE),
            rc("ERR_OPCODE_SEQUENCE", firstTwice).fails(invalid, inv).counts(SoftCounter.SENT_NAKS),
            uc("ERR_OPCODE_SEQUENCE", firstTwice),
            rc("ERR_OPCODE_UNSUPPORTED", flush).fails(invalid, flushed).counts(SoftCounter.SENT_NAKS),
            rc("ERR_OPERATION_NOT_ALLOWED", write16).access(NO_REMOTE).fails(invalid, flushed),
            uc("ERR_OPERATION_NOT_ALLOWED", write16).access(NO_REMOTE),
            rc("ERR_NO_RD_ATOMIC_RESOURCES", read16).rdAtomic(0).fails(invalid, flushed),
            rc("ERR_PACKET_LENGTH", shortFirst).fails(invalid, inv),
            uc("ERR_PACKET_LENGTH", shortFirst),
            rc("ERR_PACKET_LENGTH (WRITE of 2 GiB + 1)", hugeWrite).fails(invalid, flushed),
            uc("ERR_PACKET_LENGTH (WRITE of 2 GiB + 1)", hugeWrite),
            rc("ERR_PACKET_LENGTH (READ of 2 GiB + 1)", hugeRead).fails(invalid, flushed),
            rc("ERR_RECV_TOO_SMALL", send100).recvLength(16).fails(invalid, inv)
                .counts(SoftCounter.DROP_RECV_TOO_SMALL),
            uc("ERR_RECV_TOO_SMALL", send100).recvLength(16).counts(SoftCounter.DROP_RECV_TOO_SMALL),
            rc("ERR_WRITE_LENGTH", writeShort).fails(invalid, flushed),
            uc("ERR_WRITE_LENGTH", writeShort),
            rc("ERR_WRITE_RKEY", writeBadRkey).fails(access, flushed),
            uc("ERR_WRITE_RKEY", writeBadRkey),
            rc("ERR_READ_RKEY", readBadRkey).fails(access, flushed),
            rc("ERR_ATOMIC_MISALIGNED", atomicMisaligned).fails(invalid, flushed),
            rc("ERR_ATOMIC_RKEY", atomicBadRkey).fails(access, flushed),
            rc("ERR_RECV_SCATTER", lkeyGone).noRecvs().fails(operational, WcStatus.LOC_PROT_ERR),
            uc("ERR_RECV_SCATTER", lkeyGone).noRecvs()).map(CaseBuilder::build);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void shouldAnswerEachCauseAsPinned(final Case c)
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY);
            CapturedLog log = new CapturedLog("io.rdma4j.soft.transport.Responder"))
        {
            final Harness h = new Harness(fabric, c);
            if (c.recvs)
            {
                h.postRecv(1, h.r.mr, c.recvLength);
                h.postRecv(2, h.r.mr, 4096);
            }
            c.scenario.run(h);
            if (c.type == QpType.RC)
            {
                TestVerbs.awaitAtLeast(h::sentCount, 1);
                final MemorySegment nak = MemorySegment.ofArray(h.sent().getFirst());
                assertEquals(Opcode.RC_ACKNOWLEDGE.wire(), BthFlyweight.opcode(nak, 0), "the answer is an ACK packet");
                assertEquals(c.syndrome, nak.get(ValueLayout.JAVA_BYTE, BthFlyweight.LENGTH +
                    AethFlyweight.SYNDROME_OFFSET) & 0xFF, "AETH syndrome");
                if (c.state == QpState.ERR)
                {
                    final List<WorkCompletion> wcs = h.r.pollRecv(2, 10_000);
                    assertEquals(2, wcs.size(), "both receives complete once the QP is in ERR");
                    assertEquals(1, wcs.getFirst().wrId());
                    assertEquals(c.recvStatus, wcs.getFirst().status());
                    assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(1).status());
                    assertEquals(QpState.ERR, h.r.qp.query().state());
                    // the requester learns the NAK's class only: the responder's log says which cause
                    final List<LogRecord> warnings = log.records();
                    assertEquals(1, warnings.size(), "one warning");
                    assertEquals(Level.WARNING, warnings.getFirst().getLevel());
                    final String message = warnings.getFirst().getMessage();
                    assertTrue(message.contains("[" + c.cause.split(" ")[0] + "]"), message);
                    assertTrue(message.contains(String.format("RC QP 0x%06x", h.r.qp.qpNum())), message);
                }
                else
                {
                    assertEquals(QpState.RTS, h.r.qp.query().state());
                    assertEquals(0, h.r.recvCq.poll(WorkCompletion.array(4)), "no receive completes");
                    assertEquals(List.of(), log.records(), "a NAK the QP survives is not logged");
                }
                assertEquals(1, h.sentCount(), "one NAK, nothing else");
            }
            else
            {
                // a WRITE with immediate needs no buffer of the receive WQE; without REMOTE_WRITE, a SEND
                final boolean write = (c.access & AccessFlag.REMOTE_WRITE.bit()) != 0;
                h.inject(write ? "RDMA_WRITE_ONLY_WITH_IMMEDIATE" : "SEND_ONLY_WITH_IMMEDIATE", h.nextPsn, 8,
                    s -> s.va(h.va() + 32768).rkey(h.r.mr.rkey()).dmaLength(write ? 8 : 0).immediate(PROBE_IMM));
                final List<WorkCompletion> wcs = h.r.pollRecv(c.ucWrIds.size(), 10_000);
                final List<Long> wrIds = new ArrayList<>();
                for (final WorkCompletion wc : wcs)
                {
                    assertEquals(WcStatus.SUCCESS, wc.status(), wc.toString());
                    wrIds.add(wc.wrId());
                }
                assertEquals(c.ucWrIds, wrIds, "the receives that complete");
                assertEquals(write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV, wcs.getLast().opcode(),
                    "the probe completes last");
                assertEquals(PROBE_IMM, wcs.getLast().immData());
                assertEquals(QpState.RTS, h.r.qp.query().state());
                assertEquals(0, h.sentCount(), "UC answers nothing");
            }
            if (c.counter != null)
            {
                assertEquals(1L, h.qpCounter(c.counter), c.counter.counterName());
            }
        }
    }

    /** A responder QP connected to a peer that exists only as an address the test sends from. */
    static final class Harness
    {
        final RcEndpoint r;
        final boolean uc;
        private final Fabric fabric;
        private final InetAddress rAddress;
        private final InetAddress peerAddress;
        private final List<byte[]> sent = new ArrayList<>();
        int nextPsn;

        Harness(final Fabric fabric, final Case c)
        {
            this.fabric = fabric;
            this.uc = c.type == QpType.UC;
            this.r = new RcEndpoint(fabric.open(), c.type, 65536, 16);
            this.rAddress = r.engine().link().localAddress();
            this.peerAddress = fabric.address(250);
            fabric.network().tap(d -> record(d));
            r.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(c.access));
            final QpAttr rtr = new QpAttr().state(QpState.RTR).ahAttr(AhAttr.global(Gid.fromInet(peerAddress), 64))
                .pathMtu(Mtu.MTU_1024).destQpNum(PEER_QPN).rqPsn(PSN);
            final QpAttr rts = new QpAttr().state(QpState.RTS).sqPsn(0);
            if (!uc)
            {
                rtr.maxDestRdAtomic(c.rdAtomic).minRnrTimer(1);
                rts.timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
            }
            r.qp.modify(rtr);
            r.qp.modify(rts);
        }

        private void record(final SentDatagram d)
        {
            if (d.source().equals(rAddress))
            {
                synchronized (sent)
                {
                    sent.add(d.bytes());
                }
            }
        }

        long sentCount()
        {
            synchronized (sent)
            {
                return sent.size();
            }
        }

        List<byte[]> sent()
        {
            synchronized (sent)
            {
                return List.copyOf(sent);
            }
        }

        long va()
        {
            return r.buffer.address();
        }

        long qpCounter(final SoftCounter counter)
        {
            return r.qp.counters().getOrDefault(counter.counterName(), 0L);
        }

        void postRecv(final long wrId, final MemoryRegion mr, final int length)
        {
            r.qp.postRecv(new RecvWr().wrId(wrId).sge(mr, 0, length));
        }

        /**
         * Send the responder a request from the peer's address.
         *
         * @param name    the opcode without its RC_/UC_ prefix.
         * @param psn     its PSN.
         * @param payload payload bytes.
         * @param fields  sets the extension headers.
         */
        void inject(final String name, final int psn, final int payload, final Consumer<PacketInfo> fields)
        {
            final Opcode opcode = Opcode.valueOf((uc ? "UC_" : "RC_") + name);
            final PacketInfo spec = new PacketInfo()
                .network(Ipv4.toInt(peerAddress), Link.ROCE_V2_PORT, Ipv4.toInt(rAddress), Link.ROCE_V2_PORT, 0)
                .opcode(opcode)
                .destQp(r.qp.qpNum())
                .psn(psn)
                .ackReq(!uc && opcode.has(OpcodeMask.END));
            fields.accept(spec);
            nextPsn = psn + 1;
            final byte[] packet = new byte[PacketBuilder.length(opcode, payload)];
            new PacketBuilder().build(spec, MemorySegment.ofArray(new byte[payload]), MemorySegment.ofArray(packet), 0);
            fabric.network().inject(peerAddress, rAddress, ByteBuffer.wrap(packet));
        }
    }
}
