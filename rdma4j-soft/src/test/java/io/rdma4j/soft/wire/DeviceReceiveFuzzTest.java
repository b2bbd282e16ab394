package io.rdma4j.soft.wire;

import io.rdma4j.soft.Fabric;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile datagrams fed to a running device: random bytes, and real rxe packets mutated, many with
 * a valid ICRC recomputed for their new addresses and aimed at a live QP or the multicast QPN so
 * they get past the parser into the transports. The device never stops: every datagram is counted
 * exactly once as received or as a drop by cause, nothing escapes as an error, and a good message
 * sent afterwards is still delivered.
 */
@Timeout(120)
class DeviceReceiveFuzzTest
{
    @ParameterizedTest
    @ValueSource(longs = {1L, 0xC0FFEEL, 20261122L})
    void shouldCountEveryHostileDatagramAndKeepWorking(final long seed) throws Exception
    {
        final Random random = new Random(seed);
        final List<byte[]> corpus = new ArrayList<>();
        for (final var pcap : Captures.pcaps())
        {
            for (final PcapReader.Datagram d : Captures.datagrams(pcap))
            {
                if (d.destinationPort() == 4791)
                {
                    corpus.add(d.payload());
                }
            }
        }
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = fabric.open();
            final SoftEngine engine = SoftEngine.of(context);
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(4096, null, 0);
            final QueuePair qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(16, 1024)));
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(0x11111111));
            qp.modify(new QpAttr().state(QpState.RTR));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
            final MemorySegment buffer = Arena.ofAuto().allocate(2048 * 64);
            final var mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
            final RecvWr recv = new RecvWr();
            for (int i = 0; i < 512; i++)
            {
                qp.postRecv(recv.wrId(i).sge(mr, (long)(i % 64) * 2048, 2048));
            }
            qp.attachMulticast(Gid.parse("239.1.2.3"), 0);
            engine.link().joinGroup(InetAddress.getByName("239.1.2.3"));

            final InetAddress peer = fabric.address(200);
            final InetAddress self = context.queryGid(1, 0).toInet();
            final InetAddress group = InetAddress.getByName("239.1.2.3");
            final TestIcrc icrc = new TestIcrc();
            final int count = 3000;
            for (int i = 0; i < count; i++)
            {
                final boolean toGroup = random.nextInt(8) == 0;
                final byte[] bytes = hostile(random, corpus, qp.qpNum(), toGroup);
                if (bytes.length >= Icrc.MIN_LENGTH && random.nextBoolean())
                {
                    icrc.generate(MemorySegment.ofArray(bytes), 0, bytes.length, Ipv4.toInt(peer),
                        Ipv4.toInt(toGroup ? group : self), 4791, 4791, 0, true);
                }
                fabric.network().inject(peer, toGroup ? group : self, ByteBuffer.wrap(bytes));
            }
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (outcomes(engine) < count && System.nanoTime() < deadline)
            {
                Thread.onSpinWait();
            }
            final String report = "seed " + seed + ": " + engine.counters().snapshot();
            assertEquals(count, outcomes(engine), report);
            assertEquals(0, engine.counters().get(SoftCounter.PROGRESS_ERRORS), report);
            assertTrue(engine.counters().get(SoftCounter.DROP_ICRC) > 0, report);
            assertTrue(engine.counters().get(SoftCounter.RCVD_PKTS) > 0, report);

            // still alive: a well-formed message gets through and completes
            final WorkCompletion[] wcs = WorkCompletion.array(64);
            while (cq.poll(wcs) > 0)
            {
                // drain what the fuzzing delivered
            }
            final PacketInfo spec = new PacketInfo().opcode(Opcode.UD_SEND_ONLY).destQp(qp.qpNum()).psn(1)
                .qkey(0x11111111).srcQp(0x42)
                .network(Ipv4.toInt(peer), 4791, Ipv4.toInt(self), 4791, 0);
            final MemorySegment packet = Arena.ofAuto().allocate(256);
            final int length = new PacketBuilder().build(spec, MemorySegment.ofArray(new byte[] {1, 2, 3, 4}), packet, 0);
            fabric.network().inject(peer, self, packet.asSlice(0, length).asByteBuffer());
            final long until = System.nanoTime() + 10_000_000_000L;
            boolean seen = false;
            while (!seen && System.nanoTime() < until)
            {
                final int n = cq.poll(wcs);
                for (int i = 0; i < n; i++)
                {
                    seen |= wcs[i].srcQp() == 0x42 && wcs[i].isSuccess() && wcs[i].byteLen() == 44;
                }
            }
            assertTrue(seen, report);
        }
    }

    private static long outcomes(final SoftEngine engine)
    {
        long total = 0;
        for (final SoftCounter counter : SoftCounter.receiveVerdicts())
        {
            total += engine.counters().get(counter);
        }
        return total;
    }

    private static byte[] hostile(final Random random, final List<byte[]> corpus, final int qpn, final boolean toGroup)
    {
        if (random.nextInt(4) == 0)
        {
            final byte[] noise = new byte[random.nextInt(120)];
            random.nextBytes(noise);
            return noise;
        }
        byte[] bytes = corpus.get(random.nextInt(corpus.size())).clone();
        if (random.nextInt(3) > 0 && bytes.length >= 12)
        {
            // aim it at the live QP (or the group) so the transport sees it
            final int dest = toGroup ? 0xFFFFFF : qpn;
            bytes[5] = (byte)(dest >>> 16);
            bytes[6] = (byte)(dest >>> 8);
            bytes[7] = (byte)dest;
        }
        final int mutations = random.nextInt(4);
        for (int m = 0; m < mutations; m++)
        {
            switch (random.nextInt(3))
            {
                case 0 -> bytes[random.nextInt(bytes.length)] ^= (byte)(1 << random.nextInt(8));
                case 1 -> bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
                default -> bytes[random.nextInt(Math.min(bytes.length, 40))] = (byte)random.nextInt(256);
            }
            if (bytes.length == 0)
            {
                break;
            }
        }
        return bytes;
    }
}
