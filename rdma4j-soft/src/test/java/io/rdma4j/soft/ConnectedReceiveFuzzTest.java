package io.rdma4j.soft;

import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.wire.Icrc;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.soft.wire.TestIcrc;
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
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The RC and UC receive path fuzzed: packets built valid with our builders for an RC and a UC QP in
 * RTS, then with fields and bytes changed, cut short, sent from the peer or from a stranger, half of
 * them with an ICRC recomputed so they pass it and reach the checks behind it. The device runs
 * without a progress thread and the test drives it ({@link SoftEngine#doWork}), so an exception
 * would escape into the property; every datagram must move exactly one receive verdict
 * ({@link SoftCounter#receiveVerdicts}), and afterwards the device still delivers a message.
 * <p>
 * 10^4 tries by default ({@code jqwik.tries.default} in junit-platform.properties); the
 * {@code fuzz} profile runs 10^6.
 */
class ConnectedReceiveFuzzTest
{
    private static final int RC_PSN = 0x000100;
    private static final int UC_PSN = 0xFFFFF0;
    private static final int PEER_QPN = 0x2345;
    private static final int MR_SIZE = 1 << 16;

    private static final Opcode[] CONNECTED_OPCODES = Arrays.stream(Opcode.values())
        .filter(o -> o.has(OpcodeMask.RC) || o.has(OpcodeMask.UC))
        .toArray(Opcode[]::new);

    private static Fabric fabric;
    private static SoftEngine engine;
    private static CompletionQueue cq;
    private static QueuePair rc;
    private static QueuePair uc;
    private static MemoryRegion mr;
    private static InetAddress self;
    private static InetAddress peer;
    private static InetAddress stranger;
    private static final TestIcrc ICRC = new TestIcrc();
    private static final PacketBuilder BUILDER = new PacketBuilder();
    private static final MemorySegment PACKET = Arena.global().allocate(8192);
    private static final WorkCompletion[] WCS = WorkCompletion.array(64);
    private static long tries;

    record Hostile(Opcode opcode, boolean crossed, int psnDelta, int payload, boolean fromPeer, boolean reseal,
        List<Integer> flips, int cut)
    {
    }

    @BeforeContainer
    static void open()
    {
        fabric = new Fabric(Fabric.Kind.MEMORY);
        self = fabric.address(1);
        peer = fabric.address(2);
        stranger = fabric.address(3);
        final Context context = SoftDevice.builder("fuzz", self)
            .link(address -> fabric.network().attach(address))
            .progressThread(false)
            .build().open();
        fabric.adopt(context);
        engine = SoftEngine.of(context);
        final ProtectionDomain pd = context.allocPd();
        cq = context.createCq(4096, null, 0);
        mr = pd.regMr(Arena.ofShared().allocate(MR_SIZE), EnumSet.allOf(AccessFlag.class));
        rc = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(16, 64)));
        uc = pd.createQp(QpInitAttr.of(QpType.UC, cq, QpCap.of(16, 64)));
        connect(rc, RC_PSN);
        connect(uc, UC_PSN);
    }

    @AfterContainer
    static void close()
    {
        fabric.close();
    }

    /** Reset a QP and take it to RTS again towards the (silent) peer, with receives posted. */
    private static void connect(final QueuePair qp, final int rqPsn)
    {
        qp.modify(new QpAttr().state(QpState.RESET));
        final int access = qp.type() == QpType.RC ? RcEndpoint.ALL_REMOTE :
            AccessFlag.REMOTE_WRITE.bit() | AccessFlag.LOCAL_WRITE.bit();
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(access));
        final QpAttr rtr = new QpAttr().state(QpState.RTR).ahAttr(AhAttr.global(Gid.fromInet(peer), 64))
            .pathMtu(Mtu.MTU_1024).destQpNum(PEER_QPN).rqPsn(rqPsn);
        final QpAttr rts = new QpAttr().state(QpState.RTS).sqPsn(0);
        if (qp.type() == QpType.RC)
        {
            rtr.maxDestRdAtomic(4).minRnrTimer(1);
            rts.timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(4);
        }
        qp.modify(rtr);
        qp.modify(rts);
        final RecvWr recv = new RecvWr();
        for (int i = 0; i < 32; i++)
        {
            qp.postRecv(recv.wrId(i).sge(mr, (long)(i % 16) * 2048, 2048));
        }
    }

    @Provide
    Arbitrary<Hostile> hostile()
    {
        return Combinators.combine(
            Arbitraries.of(CONNECTED_OPCODES),
            // mostly to the QP of the opcode's own transport, sometimes to the other one
            Arbitraries.of(false, false, false, false, false, false, false, false, false, true),
            Arbitraries.integers().between(-3, 6),
            Arbitraries.integers().between(0, 1100).withDistribution(RandomDistribution.uniform()),
            Arbitraries.of(true, true, true, false),
            Arbitraries.of(false, true),
            // most packets keep their length and get a few changed bytes, some none: the checks
            // behind the length and ICRC checks see most of them
            Arbitraries.integers().between(0, 0xFFFF).withDistribution(RandomDistribution.uniform()).list()
                .ofMaxSize(3),
            // one packet in ten cut short somewhere in its first 80 bytes
            Arbitraries.integers().between(0, 799).withDistribution(RandomDistribution.uniform())
                .map(v -> v < 720 ? -1 : v - 720))
            .as(Hostile::new);
    }

    @Property
    void shouldCountEveryDatagramOnceAndNeverThrow(@ForAll("hostile") final Hostile h)
    {
        tries++;
        for (final QueuePair qp : new QueuePair[] {rc, uc})
        {
            // a fatal request can legitimately take a QP to ERR: bring it back so fuzzing goes deep
            if (qp.query().state() != QpState.RTS)
            {
                connect(qp, qp == rc ? RC_PSN : UC_PSN);
            }
        }
        final int length = build(h);
        final InetAddress source = h.fromPeer() ? peer : stranger;
        if (h.reseal() && length >= Icrc.MIN_LENGTH)
        {
            ICRC.generate(PACKET, 0, length, Ipv4.toInt(source), Ipv4.toInt(self), 4791, 4791, 0, true);
        }
        final long before = verdicts();
        fabric.network().inject(source, self, PACKET.asSlice(0, length).asByteBuffer());
        engine.doWork();
        assertEquals(before + 1, verdicts(), () -> h + " " + engine.counters().snapshot());
        while (cq.poll(WCS) > 0)
        {
            // completions of fuzzed messages: the transports' business, not this property's
        }
    }

    /** After the fuzzing the device still works: a good SEND from the peer completes a receive. */
    @AfterProperty
    void shouldStillDeliver()
    {
        assertEquals(0, engine.counters().get(SoftCounter.PROGRESS_ERRORS));
        connect(rc, RC_PSN);
        while (cq.poll(WCS) > 0)
        {
            // the flushed receives of the reset
        }
        final PacketInfo spec = new PacketInfo().network(Ipv4.toInt(peer), 4791, Ipv4.toInt(self), 4791, 0)
            .dontFragment(true).opcode(Opcode.RC_SEND_ONLY).destQp(rc.qpNum()).psn(RC_PSN).ackReq(true);
        final int length = BUILDER.build(spec, MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5}), PACKET, 0);
        final long received = engine.counters().get(SoftCounter.RCVD_PKTS);
        fabric.network().inject(peer, self, PACKET.asSlice(0, length).asByteBuffer());
        engine.doWork();
        assertEquals(received + 1, engine.counters().get(SoftCounter.RCVD_PKTS));
        assertEquals(1, cq.poll(WCS));
        assertEquals(WcStatus.SUCCESS, WCS[0].status());
        assertEquals(5, WCS[0].byteLen());
        System.out.println("ConnectedReceiveFuzzTest: " + tries + " tries, " + engine.counters().snapshot());
    }

    private static int build(final Hostile h)
    {
        final Opcode opcode = h.opcode();
        final boolean toUc = opcode.has(OpcodeMask.UC) != h.crossed();
        final QueuePair qp = toUc ? uc : rc;
        final int payload = opcode.has(OpcodeMask.PAYLOAD) ? h.payload() : 0;
        final int psn = (opcode.has(OpcodeMask.REQUEST) ? (toUc ? UC_PSN : RC_PSN) : 0) + h.psnDelta();
        final PacketInfo spec = new PacketInfo()
            .network(Ipv4.toInt(h.fromPeer() ? peer : stranger), 4791, Ipv4.toInt(self), 4791, 0)
            .dontFragment(true)
            .opcode(opcode)
            .destQp(qp.qpNum())
            .psn(psn & 0xFFFFFF)
            .ackReq((h.payload() & 1) == 0)
            .va(mr.address() + (h.payload() & 0x3F))
            .rkey(mr.rkey())
            .dmaLength(payload == 0 ? h.payload() : payload)
            .syndrome(h.psnDelta() < 0 ? 0x60 : 0x1F)
            .msn(h.payload())
            .immediate(h.payload())
            .invalidateRkey(mr.rkey())
            .swapAdd(1)
            .compare(0);
        int length = BUILDER.build(spec, MemorySegment.ofArray(new byte[payload]), PACKET, 0);
        for (final int flip : h.flips())
        {
            // the high bits pick a byte (headers more often than payload), the low ones its new bits
            final int position = (flip >>> 8) % Math.min(length, (flip & 0x80) != 0 ? 48 : length);
            PACKET.set(java.lang.foreign.ValueLayout.JAVA_BYTE, position,
                (byte)(PACKET.get(java.lang.foreign.ValueLayout.JAVA_BYTE, position) ^ (flip | 1)));
        }
        if (h.cut() >= 0 && h.cut() < length)
        {
            length = h.cut();
        }
        return length;
    }

    private static long verdicts()
    {
        long sum = 0;
        for (final SoftCounter counter : SoftCounter.receiveVerdicts())
        {
            sum += engine.counters().get(counter);
        }
        return sum;
    }
}
