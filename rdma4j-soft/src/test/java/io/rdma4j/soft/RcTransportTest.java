package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.ValueLayout;

import static io.rdma4j.soft.RcFixtures.HALF;
import static io.rdma4j.soft.RcFixtures.MIB;
import static io.rdma4j.soft.RcFixtures.bytes;
import static io.rdma4j.soft.RcFixtures.fill;
import static io.rdma4j.soft.RcFixtures.one;
import static io.rdma4j.soft.RcFixtures.pair;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class RcTransportTest
{
    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldSendEveryBoundarySizeWithPsnWrap(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            for (final QpType type : new QpType[] {QpType.RC, QpType.UC})
            {
                final RcEndpoint[] p = pair(fabric, type, Mtu.MTU_1024);
                final RcEndpoint a = p[0];
                final RcEndpoint b = p[1];
                final int mtu = 1024;
                // UC has no flow control: over UDP a 1 MiB burst overflows the loopback socket buffer
                final int[] sizes = type == QpType.UC && kind == Fabric.Kind.UDP ?
                    new int[] {0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu, 32 * mtu} :
                    new int[] {0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu, MIB};
                for (int i = 0; i < sizes.length; i++)
                {
                    final int size = sizes[i];
                    b.qp.postRecv(new RecvWr().wrId(100 + i).sge(b.mr, HALF, MIB));
                    fill(a.buffer, 0, size, i);
                    a.qp.postSend(new SendWr().wrId(i).opcode(WrOpcode.SEND_WITH_IMM).immData(0x1234 + i)
                        .sendFlags(SendFlags.SIGNALED | SendFlags.SOLICITED).sge(a.mr, 0, size));
                    final WorkCompletion sent = one(a.pollSend(1, 20_000), type + " send " + size);
                    assertEquals(WcStatus.SUCCESS, sent.status(), type + " size " + size);
                    assertEquals(WcOpcode.SEND, sent.opcode());
                    final WorkCompletion got = one(b.pollRecv(1, 20_000), type + " recv " + size);
                    assertEquals(WcStatus.SUCCESS, got.status());
                    assertEquals(WcOpcode.RECV, got.opcode());
                    assertEquals(100 + i, got.wrId());
                    assertEquals(size, got.byteLen(), type + " size " + size);
                    assertEquals(0x1234 + i, got.immData());
                    assertEquals(WcFlags.WITH_IMM, got.wcFlags());
                    assertEquals(b.qp.qpNum(), got.qpNum());
                    assertArrayEquals(bytes(a.buffer, 0, size), bytes(b.buffer, HALF, size), type + " size " + size);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldWriteReadAndRunAtomics(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final RcEndpoint[] p = pair(fabric, QpType.RC, Mtu.MTU_4096);
            final RcEndpoint a = p[0];
            final RcEndpoint b = p[1];
            final long remote = b.mr.segment().address();
            for (final int size : new int[] {0, 1, 4095, 4096, 4097, MIB})
            {
                fill(a.buffer, 0, size, size);
                a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                    .sge(a.mr, 0, size).rdma(remote + HALF, b.mr.rkey()));
                assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 20_000), "write " + size).status());
                assertArrayEquals(bytes(a.buffer, 0, size), bytes(b.buffer, HALF, size), "write " + size);

                fill(b.buffer, 0, size, size + 7);
                a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
                    .sge(a.mr, HALF, size).rdma(remote, b.mr.rkey()));
                final WorkCompletion read = one(a.pollSend(1, 20_000), "read " + size);
                assertEquals(WcStatus.SUCCESS, read.status(), "read " + size);
                assertEquals(WcOpcode.RDMA_READ, read.opcode());
                assertArrayEquals(bytes(b.buffer, 0, size), bytes(a.buffer, HALF, size), "read " + size);
            }

            // WRITE with immediate consumes a receive and reports the written length
            b.qp.postRecv(new RecvWr().wrId(77).sge(b.mr, 0, 0));
            fill(a.buffer, 0, 5000, 99);
            a.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(0xCAFE)
                .sendFlags(SendFlags.SIGNALED).sge(a.mr, 0, 5000).rdma(remote + 8192, b.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "write imm").status());
            final WorkCompletion imm = one(b.pollRecv(1, 10_000), "write imm recv");
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, imm.opcode());
            assertEquals(5000, imm.byteLen());
            assertEquals(0xCAFE, imm.immData());
            assertArrayEquals(bytes(a.buffer, 0, 5000), bytes(b.buffer, 8192, 5000));

            // atomics: 8-byte aligned target, result lands in the local SGE
            b.buffer.set(ValueLayout.JAVA_LONG, 64, 40);
            a.qp.postSend(new SendWr().wrId(4).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 128, 8).rdma(remote + 64, b.mr.rkey()).atomic(2, 0));
            assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "fetch add").status());
            assertEquals(40, a.buffer.get(ValueLayout.JAVA_LONG, 128));
            assertEquals(42, b.buffer.get(ValueLayout.JAVA_LONG, 64));
            a.qp.postSend(new SendWr().wrId(5).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 136, 8).rdma(remote + 64, b.mr.rkey()).atomic(42, 1000));
            final WorkCompletion cas = one(a.pollSend(1, 10_000), "cas");
            assertEquals(WcStatus.SUCCESS, cas.status());
            assertEquals(WcOpcode.COMP_SWAP, cas.opcode());
            assertEquals(42, a.buffer.get(ValueLayout.JAVA_LONG, 136));
            assertEquals(1000, b.buffer.get(ValueLayout.JAVA_LONG, 64));
            a.qp.postSend(new SendWr().wrId(6).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 136, 8).rdma(remote + 64, b.mr.rkey()).atomic(42, 7));
            assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "cas miss").status());
            assertEquals(1000, a.buffer.get(ValueLayout.JAVA_LONG, 136));
            assertEquals(1000, b.buffer.get(ValueLayout.JAVA_LONG, 64));
        }
    }

    @Test
    void shouldCompleteUnsignaledSilentlyAndFenceBehindReads()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final RcEndpoint[] p = pair(fabric, QpType.RC, Mtu.MTU_1024);
            final RcEndpoint a = p[0];
            final RcEndpoint b = p[1];
            final long remote = b.mr.segment().address();
            fill(b.buffer, 0, 10_000, 5);
            // READ, then a fenced WRITE of what was read: the fence makes the WRITE wait for the READ's data
            final SendWr read = new SendWr().wrId(1).opcode(WrOpcode.RDMA_READ).sge(a.mr, 0, 10_000)
                .rdma(remote, b.mr.rkey());
            final SendWr write = new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE)
                .sendFlags(SendFlags.FENCE | SendFlags.SIGNALED).sge(a.mr, 0, 10_000).rdma(remote + HALF, b.mr.rkey());
            read.next(write);
            a.qp.postSend(read);
            final WorkCompletion wc = one(a.pollSend(1, 10_000), "fenced write");
            assertEquals(2, wc.wrId(), "the unsignaled READ made no completion");
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertArrayEquals(bytes(b.buffer, 0, 10_000), bytes(b.buffer, HALF, 10_000));
            assertEquals(0, a.pollSend(1, 50).size());
        }
    }

    @Test
    void shouldKeepSolicitedBitOnTheLastPacket()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            // a long timeout: a cold JVM must not make a retransmission the count below would see
            final RcEndpoint[] p = pair(fabric, QpType.RC, Mtu.MTU_256, 18);
            final RcEndpoint a = p[0];
            final RcEndpoint b = p[1];
            final int[] se = new int[2];
            fabric.network().tap(d ->
            {
                final int opcode = d.buffer().get(0) & 0xFF;
                final boolean seBit = (d.buffer().get(1) & 0x80) != 0;
                if (seBit)
                {
                    se[opcode == 0x02 ? 0 : 1]++;
                }
            });
            b.qp.postRecv(new RecvWr().wrId(1).sge(b.mr, 0, 4096));
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SOLICITED | SendFlags.SIGNALED)
                .sge(a.mr, 0, 1000));
            assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 5000), "send").status());
            one(b.pollRecv(1, 5000), "recv");
            assertEquals(1, se[0], "SE only on SEND_LAST");
            assertEquals(0, se[1]);
            assertTrue(a.counter(SoftCounter.SENT_PKTS) >= 4);
        }
    }
}
