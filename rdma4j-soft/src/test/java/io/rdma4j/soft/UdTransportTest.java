package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;

import static io.rdma4j.soft.TestVerbs.awaitAtLeast;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class UdTransportTest
{
    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldDeliverUnicastWithGrhImmediateAndSourceQp(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            b.postRecvs(1);
            final AddressHandle ah = a.ahTo(b.gid());
            a.send(ah, b.qp.qpNum(), UdEndpoint.QKEY, "hello over RoCEv2", 7);

            final List<WorkCompletion> sent = a.poll(1, 5000);
            assertEquals(1, sent.size());
            assertEquals(WcStatus.SUCCESS, sent.getFirst().status());
            assertEquals(WcOpcode.SEND, sent.getFirst().opcode());
            assertEquals(7, sent.getFirst().wrId());

            final List<WorkCompletion> got = b.poll(1, 5000);
            assertEquals(1, got.size());
            final WorkCompletion wc = got.getFirst();
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(WcOpcode.RECV, wc.opcode());
            assertEquals(40 + "hello over RoCEv2".length(), wc.byteLen());
            assertEquals(a.qp.qpNum(), wc.srcQp());
            assertEquals(a.qp.qpNum(), wc.immData());
            assertEquals(WcFlags.GRH | WcFlags.WITH_IMM, wc.wcFlags());
            assertEquals("hello over RoCEv2", b.text(wc));

            // the GRH slot: 20 zero bytes then the IPv4 header with both addresses, as rxe fills it
            final int slot = (int)(wc.wrId() % 1000) * UdEndpoint.SLOT;
            for (int i = 0; i < 20; i++)
            {
                assertEquals(0, b.buffer.get(ValueLayout.JAVA_BYTE, slot + i));
            }
            assertEquals(0x45, b.buffer.get(ValueLayout.JAVA_BYTE, slot + 20));
            assertEquals(17, b.buffer.get(ValueLayout.JAVA_BYTE, slot + 29));
            final var intBe = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            assertEquals(a.gid().ipv4(), b.buffer.get(intBe, slot + 32));
            assertEquals(b.gid().ipv4(), b.buffer.get(intBe, slot + 36));
            // the rest of that header: TOS 0; total length IP + UDP + BTH + DETH + ImmDt + payload and its pad +
            // ICRC; DF set; a TTL; and a checksum that makes the header's 16-bit one's-complement sum 0xFFFF
            final var shortBe = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            assertEquals(0, b.buffer.get(ValueLayout.JAVA_BYTE, slot + 21));
            assertEquals(20 + 8 + 12 + 8 + 4 + "hello over RoCEv2".length() + 3 + 4,
                b.buffer.get(shortBe, slot + 22) & 0xFFFF);
            assertEquals(0x4000, b.buffer.get(shortBe, slot + 26) & 0xFFFF);
            assertTrue((b.buffer.get(ValueLayout.JAVA_BYTE, slot + 28) & 0xFF) > 0, "TTL");
            int sum = 0;
            for (int i = 20; i < 40; i += 2)
            {
                sum += b.buffer.get(shortBe, slot + i) & 0xFFFF;
            }
            sum = (sum & 0xFFFF) + (sum >>> 16);
            sum = (sum & 0xFFFF) + (sum >>> 16);
            assertEquals(0xFFFF, sum, "IPv4 header checksum");
        }
    }

    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldScatterTheGrhAndAMessageAcrossThreeReceiveSges(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            final CompletionQueue cq = b.context.createCq(16, null, 0);
            final QueuePair qp = UdEndpoint.udQp(b.pd, cq, new QpCap(4, 4, 1, 3, 0), UdEndpoint.QKEY);
            // the GRH alone in the first, then the message split over two places apart
            final RecvWr recv = new RecvWr(3).wrId(9);
            recv.sgList().get(0).set(b.mr, 0, 40);
            recv.sgList().get(1).set(b.mr, 1000, 5);
            recv.sgList().get(2).set(b.mr, 3000, 100);
            recv.sgList().numSge(3);
            qp.postRecv(recv);

            a.send(a.ahTo(b.gid()), qp.qpNum(), UdEndpoint.QKEY, "hello over RoCEv2", 1);
            final WorkCompletion wc = TestVerbs.pollFor(cq, 1, 5000).getFirst();
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(9, wc.wrId());
            assertEquals(40 + 17, wc.byteLen());
            assertEquals(0x45, b.buffer.get(ValueLayout.JAVA_BYTE, 20));
            assertEquals("hello", b.text(1000, 5));
            assertEquals(" over RoCEv2", b.text(3000, 12));
        }
    }

    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldDescribeEachQpWithItsNonZeroCountersForTheStatFile(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            b.postRecvs(2);
            final AddressHandle ah = a.ahTo(b.gid());
            a.send(ah, b.qp.qpNum(), UdEndpoint.QKEY, "one", 1);
            a.send(ah, b.qp.qpNum(), UdEndpoint.QKEY, "two", 2);
            assertEquals(2, b.poll(2, 5000).size());

            final String line = SoftEngine.of(b.context).describe().lines()
                .filter(l -> l.startsWith(String.format("qp 0x%06x ", b.qp.qpNum()))).findFirst().orElseThrow();
            // its values, in id order, and none of the counters still at 0
            assertEquals(String.format("qp 0x%06x UD RTS rcvd_pkts 2", b.qp.qpNum()), line);
        }
    }

    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldDropOnQkeyMismatchMissingReceiveAndSmallBufferCountingEach(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open());
            final UdEndpoint b = new UdEndpoint(fabric.open());
            final AddressHandle ah = a.ahTo(b.gid());

            a.send(ah, b.qp.qpNum(), UdEndpoint.QKEY, "no receive posted", 1);
            awaitAtLeast(() -> b.counter(SoftCounter.DROP_NO_RECV_WQE), 1);

            b.postRecv(5, 40 + 4);
            a.send(ah, b.qp.qpNum(), UdEndpoint.QKEY, "too long for 4 bytes", 2);
            awaitAtLeast(() -> b.counter(SoftCounter.DROP_RECV_TOO_SMALL), 1);

            a.send(ah, b.qp.qpNum(), 0x0BAD0BAD, "bad qkey", 3);
            awaitAtLeast(() -> b.counter(SoftCounter.DROP_QKEY_VIOLATION), 1);

            // the small receive stays posted (rxe leaves it) and still takes a message that fits
            a.send(ah, b.qp.qpNum(), UdEndpoint.QKEY, "fits", 4);
            final List<WorkCompletion> got = b.poll(1, 5000);
            assertEquals(1, got.size());
            assertEquals(5, got.getFirst().wrId() / 1000);
            assertEquals("fits", b.text(got.getFirst()));
            assertEquals(0, b.poll(1, 0).size());
        }
    }

    @ParameterizedTest
    @EnumSource(Fabric.Kind.class)
    void shouldCompleteWithoutSendingAMessageAboveThePortMtu(final Fabric.Kind kind)
    {
        try (Fabric fabric = new Fabric(kind))
        {
            final UdEndpoint a = new UdEndpoint(fabric.open(DeviceLimits.RXE.withEthernetMtu(1500)));
            final UdEndpoint b = new UdEndpoint(fabric.open());
            b.postRecvs(2);
            final AddressHandle ah = a.ahTo(b.gid());
            a.send(ah, b.qp.qpNum(), UdEndpoint.QKEY, "x".repeat(1025), 1);
            final List<WorkCompletion> sent = a.poll(1, 5000);
            assertEquals(WcStatus.SUCCESS, sent.getFirst().status());
            assertEquals(1, a.counter(SoftCounter.UD_OVERSIZE_NOT_SENT));
            assertEquals(0, a.counter(SoftCounter.SENT_PKTS));
            a.send(ah, b.qp.qpNum(), UdEndpoint.QKEY, "x".repeat(1024), 2);
            final List<WorkCompletion> got = b.poll(1, 5000);
            assertEquals(1, got.size());
            assertEquals(40 + 1024, got.getFirst().byteLen());
            assertTrue(a.counter(SoftCounter.SENT_PKTS) == 1);
        }
    }
}
