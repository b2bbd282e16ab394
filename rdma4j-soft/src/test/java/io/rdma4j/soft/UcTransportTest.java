package io.rdma4j.soft;

import io.rdma4j.soft.link.FaultInjector;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.link.SentDatagram;
import io.rdma4j.soft.wire.DropCause;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.soft.wire.PacketParser;
import io.rdma4j.verbs.Mtu;
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
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class UcTransportTest
{
    @Test
    void shouldDropOnlyTheMessageThatLostAPacket()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final RcEndpoint[] p = RcFixtures.pair(fabric, QpType.UC, Mtu.MTU_256);
            final RcEndpoint a = p[0];
            final RcEndpoint b = p[1];
            // lose the first SEND_MIDDLE on the wire: message 0 of three
            final AtomicBoolean once = new AtomicBoolean();
            fabric.network().faultInjector(new FaultInjector(3).dropProbability(1.0).filter((d, to) ->
                (d.buffer().get(0) & 0xFF) == 0x21 && once.compareAndSet(false, true)));
            for (int i = 0; i < 3; i++)
            {
                b.qp.postRecv(new RecvWr().wrId(i).sge(b.mr, (long)i * 4096, 4096));
            }
            for (int i = 0; i < 3; i++)
            {
                a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND_WITH_IMM).immData(i)
                    .sendFlags(SendFlags.SIGNALED).sge(a.mr, 0, 1000));
            }
            final List<WorkCompletion> sent = a.pollSend(3, 5000);
            assertEquals(3, sent.size());
            sent.forEach(wc -> assertEquals(WcStatus.SUCCESS, wc.status()));
            final List<WorkCompletion> got = b.pollRecv(3, 1000);
            assertEquals(2, got.size(), "only the damaged message is lost: " + got);
            assertEquals(1, got.get(0).immData());
            assertEquals(2, got.get(1).immData());
            // the receive the lost message had taken serves the next message
            assertEquals(0, got.get(0).wrId());
            assertEquals(1, got.get(1).wrId());
        }
    }

    @Test
    void shouldEmitOnlyPacketsThatParseAndReencodeExactly()
    {
        final ConcurrentLinkedQueue<SentDatagram> seen = new ConcurrentLinkedQueue<>();
        final Set<Opcode> opcodes = EnumSet.noneOf(Opcode.class);
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            fabric.network().tap(seen::add);
            for (final QpType type : new QpType[] {QpType.RC, QpType.UC})
            {
                final RcEndpoint[] p = RcFixtures.pair(fabric, type, Mtu.MTU_256);
                final RcEndpoint a = p[0];
                final RcEndpoint b = p[1];
                final long remote = b.mr.segment().address();
                final List<SendWr> wrs = new ArrayList<>();
                for (final int size : new int[] {10, 600})
                {
                    wrs.add(new SendWr().opcode(WrOpcode.SEND).sge(a.mr, 0, size));
                    wrs.add(new SendWr().opcode(WrOpcode.SEND_WITH_IMM).immData(5).sge(a.mr, 0, size));
                    wrs.add(new SendWr().opcode(WrOpcode.RDMA_WRITE).sge(a.mr, 0, size).rdma(remote, b.mr.rkey()));
                    wrs.add(new SendWr().opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(6).sge(a.mr, 0, size)
                        .rdma(remote, b.mr.rkey()));
                    if (type == QpType.RC)
                    {
                        wrs.add(new SendWr().opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(9).sge(a.mr, 0, size));
                        wrs.add(new SendWr().opcode(WrOpcode.RDMA_READ).sge(a.mr, 0, size * 2)
                            .rdma(remote, b.mr.rkey()));
                    }
                }
                if (type == QpType.RC)
                {
                    wrs.add(new SendWr().opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sge(a.mr, 0, 8).rdma(remote, b.mr.rkey())
                        .atomic(0, 1));
                    wrs.add(new SendWr().opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sge(a.mr, 0, 8)
                        .rdma(remote, b.mr.rkey()).atomic(1, 0));
                }
                for (int i = 0; i < wrs.size(); i++)
                {
                    b.qp.postRecv(new RecvWr().wrId(i).sge(b.mr, RcFixtures.HALF, 4096));
                    a.qp.postSend(wrs.get(i).wrId(i).sendFlags(SendFlags.SIGNALED));
                    final List<WorkCompletion> wc = a.pollSend(1, 5000);
                    assertEquals(1, wc.size());
                    assertEquals(WcStatus.SUCCESS, wc.getFirst().status(), type + " " + wrs.get(i).opcode());
                }
            }
        }
        final PacketParser parser = new PacketParser();
        final PacketBuilder builder = new PacketBuilder();
        for (final SentDatagram d : seen)
        {
            final byte[] bytes = d.bytes();
            final MemorySegment packet = MemorySegment.ofArray(bytes);
            final PacketInfo info = new PacketInfo().network(Ipv4.toInt(d.source()), d.sourcePort(), Ipv4.toInt(d.destination()),
                4791, d.ipIdentification());
            assertEquals(DropCause.NONE, parser.parse(packet, 0, bytes.length, info), "ICRC or header of " + d);
            opcodes.add(info.opcode());
            final byte[] copy = new byte[bytes.length];
            builder.build(info, packet, info.payloadOffset(), info.payloadLength(), MemorySegment.ofArray(copy), 0);
            assertArrayEquals(bytes, copy, "re-encoding " + info.opcode());
        }
        for (final Opcode expected : Opcode.values())
        {
            final boolean emitted = expected.has(io.rdma4j.soft.wire.OpcodeMask.RC | io.rdma4j.soft.wire.OpcodeMask.UC)
                && expected != Opcode.RC_FLUSH && expected != Opcode.RC_ATOMIC_WRITE;
            if (emitted)
            {
                assertTrue(opcodes.contains(expected), expected + " was never sent");
            }
        }
    }
}
