package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static io.rdma4j.soft.RcFixtures.HALF;
import static io.rdma4j.soft.RcFixtures.bytes;
import static io.rdma4j.soft.RcFixtures.fill;
import static io.rdma4j.soft.RcFixtures.one;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * IPv6 over the real UDP path: one device on {@code ::1} (its own port, see {@link Ipv6Loopback}),
 * QP pairs on it, every packet through the kernel's IPv6 loopback and back through the receive
 * checks and the IPv6 ICRC.
 */
@Timeout(60)
class Ipv6LoopbackTest
{
    private static final ValueLayout.OfShort SHORT_BE =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final Gid LOOPBACK = Gid.parse("::1");

    private Context context;

    @BeforeEach
    void open()
    {
        context = Ipv6Loopback.open(0, DeviceLimits.RXE.withEthernetMtu(9000));
    }

    @AfterEach
    void close()
    {
        ((SoftDevice)context.device()).shutdown();
    }

    @Test
    void shouldHaveTheIpv6AddressItselfAsGid()
    {
        final Gid gid = context.queryGid(1, 0);
        assertEquals(LOOPBACK, gid);
        assertFalse(gid.isIpv4Mapped());
    }

    @Test
    void shouldDeliverUdWithTheIpv6HeaderInTheGrhAndReplyThroughIt()
    {
        final UdEndpoint a = new UdEndpoint(context);
        final UdEndpoint b = new UdEndpoint(context);
        b.postRecvs(1);
        a.postRecvs(1);
        a.send(a.ahTo(b.gid()), b.qp.qpNum(), UdEndpoint.QKEY, "over IPv6", 7);

        assertEquals(WcStatus.SUCCESS, one(a.poll(1, 5000), "send").status());
        final WorkCompletion wc = one(b.poll(1, 5000), "receive");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(40 + "over IPv6".length(), wc.byteLen());
        assertEquals(WcFlags.GRH | WcFlags.WITH_IMM, wc.wcFlags());
        assertEquals("over IPv6", b.text(wc));

        // the GRH is the IPv6 header: version 6, payload length = UDP length, next header UDP, both addresses
        final MemorySegment grh = b.buffer.asSlice((wc.wrId() % 1000) * UdEndpoint.SLOT, 40);
        assertEquals(6, (grh.get(ValueLayout.JAVA_BYTE, 0) >>> 4) & 0xF);
        // traffic class and flow label 0, as rxe's senders leave them; a hop limit
        assertEquals(0x6000_0000, grh.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0));
        assertTrue((grh.get(ValueLayout.JAVA_BYTE, 7) & 0xFF) > 0, "hop limit");
        final int udpLength = 8 + 12 + 8 + 4 + "over IPv6".length() + 3 + 4;
        assertEquals(udpLength, grh.get(SHORT_BE, 4));
        assertEquals(17, grh.get(ValueLayout.JAVA_BYTE, 6));
        assertEquals(LOOPBACK, Gid.of(grh.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(LOOPBACK, Gid.of(grh.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE)));

        // ibv_init_ah_from_wc: the reply address comes from the GRH and reaches the sender
        final AhAttr reply = ReplyAddress.of(context, 1, wc, grh);
        assertEquals(LOOPBACK, reply.grh().dgid());
        final AddressHandle back = b.pd.createAh(reply);
        b.send(back, wc.srcQp(), UdEndpoint.QKEY, "reply", 8);
        assertEquals(WcStatus.SUCCESS, one(b.poll(1, 5000), "reply send").status());
        final WorkCompletion replied = one(a.poll(1, 5000), "reply receive");
        assertEquals(WcOpcode.RECV, replied.opcode());
        assertEquals("reply", a.text(replied));
        assertEquals(0, a.counter(SoftCounter.DROP_ICRC));
    }

    @Test
    void shouldSendWriteAndReadOnRcOverIpv6()
    {
        final RcEndpoint a = new RcEndpoint(context, QpType.RC, 2 * HALF, 64);
        final RcEndpoint b = new RcEndpoint(context, QpType.RC, 2 * HALF, 64);
        RcConnectSettings.defaults().mtu(Mtu.MTU_4096).connect(a, b);
        final long remote = b.mr.segment().address();

        b.qp.postRecv(new RecvWr().wrId(9).sge(b.mr, 0, 20_000));
        fill(a.buffer, 0, 20_000, 1);
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(a.mr, 0, 20_000));
        assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "send").status());
        final WorkCompletion recv = one(b.pollRecv(1, 10_000), "recv");
        assertEquals(20_000, recv.byteLen());
        assertArrayEquals(bytes(a.buffer, 0, 20_000), bytes(b.buffer, 0, 20_000));

        fill(a.buffer, 0, 30_000, 2);
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .sge(a.mr, 0, 30_000).rdma(remote + HALF, b.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "write").status());
        assertArrayEquals(bytes(a.buffer, 0, 30_000), bytes(b.buffer, HALF, 30_000));

        fill(b.buffer, 0, 30_000, 3);
        a.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .sge(a.mr, HALF, 30_000).rdma(remote, b.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "read").status());
        assertArrayEquals(bytes(b.buffer, 0, 30_000), bytes(a.buffer, HALF, 30_000));
        assertEquals(0, a.counter(SoftCounter.DROP_ICRC));
        assertEquals(0, a.counter(SoftCounter.DROP_ADDR_MISMATCH));
    }

    @Test
    void shouldSendAndWriteOnUcOverIpv6()
    {
        final RcEndpoint a = new RcEndpoint(context, QpType.UC, 2 * HALF, 64);
        final RcEndpoint b = new RcEndpoint(context, QpType.UC, 2 * HALF, 64);
        RcConnectSettings.defaults().mtu(Mtu.MTU_1024).connect(a, b);

        b.qp.postRecv(new RecvWr().wrId(9).sge(b.mr, 0, 5000));
        fill(a.buffer, 0, 5000, 4);
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(a.mr, 0, 5000));
        assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "send").status());
        assertEquals(5000, one(b.pollRecv(1, 10_000), "recv").byteLen());
        assertArrayEquals(bytes(a.buffer, 0, 5000), bytes(b.buffer, 0, 5000));

        b.qp.postRecv(new RecvWr().wrId(10).sge(b.mr, 0, 0));
        a.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(5)
            .sendFlags(SendFlags.SIGNALED).sge(a.mr, 0, 3000).rdma(b.mr.segment().address() + HALF, b.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "write").status());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, one(b.pollRecv(1, 10_000), "write imm").opcode());
        assertArrayEquals(bytes(a.buffer, 0, 3000), bytes(b.buffer, HALF, 3000));
    }

    @Test
    void shouldDeliverToAttachedQpsOfAnIpv6GroupAndNotBackToABlockingSender()
    {
        final Gid group = Gid.parse("ff0e::77:" + Integer.toHexString(Ipv6Loopback.port(0)));
        final UdEndpoint sender = new UdEndpoint(context, io.rdma4j.verbs.QpCreateFlag.BLOCK_SELF_MCAST_LB);
        final UdEndpoint member = new UdEndpoint(context);
        final UdEndpoint detached = new UdEndpoint(context);
        sender.qp.attachMulticast(group, 0);
        member.qp.attachMulticast(group, 0);
        detached.qp.attachMulticast(group, 0);
        detached.qp.detachMulticast(group, 0);
        sender.postRecvs(1);
        member.postRecvs(1);
        detached.postRecvs(1);

        sender.send(sender.ahTo(group), 0xFFFFFF, UdEndpoint.QKEY, "to the IPv6 group", 4);
        assertEquals(WcStatus.SUCCESS, one(sender.poll(1, 5000), "group send").status());
        final WorkCompletion wc = one(member.poll(1, 5000), "member");
        assertEquals("to the IPv6 group", member.text(wc));
        final MemorySegment grh = member.buffer.asSlice((wc.wrId() % 1000) * UdEndpoint.SLOT, 40);
        assertEquals(group, Gid.of(grh.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE)), "GRH destination");
        assertEquals(LOOPBACK, Gid.of(grh.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE)), "GRH source");
        final RdmaException noReply = assertThrows(RdmaException.class,
            () -> ReplyAddress.of(context, 1, wc, grh), "no GID to reply from a group");
        assertEquals(Errno.EINVAL, noReply.errno());

        // the blocking sender and the detached QP get nothing: their counters show why
        TestVerbs.awaitAtLeast(() -> sender.qp.counters().get("mcast_self_blocked"), 1);
        assertEquals(0, sender.poll(1, 0).size());
        assertEquals(0, detached.poll(1, 0).size());
    }

    @Test
    void shouldRefuseAnIpv4AddressHandleOnAnIpv6Device()
    {
        final UdEndpoint a = new UdEndpoint(context);
        final RdmaException ex = assertThrows(RdmaException.class, () -> a.ahTo(Gid.parse("127.0.0.1")));
        assertEquals(Errno.EINVAL, ex.errno());
        assertTrue(ex.getMessage().contains("IPv4") && ex.getMessage().contains("IPv6"), ex.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void shouldRefuseAnIpv4AddressVectorOnAnIpv6Device(final QpType type)
    {
        final RcEndpoint a = new RcEndpoint(context, type, 4096, 4);
        a.qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(0));
        final QpAttr rtr = new QpAttr().state(QpState.RTR).ahAttr(AhAttr.global(Gid.parse("127.0.0.1"), 64))
            .pathMtu(Mtu.MTU_1024).destQpNum(a.qp.qpNum()).rqPsn(0);
        if (type == QpType.RC)
        {
            rtr.maxDestRdAtomic(1).minRnrTimer(1);
        }
        final RdmaException ex = assertThrows(RdmaException.class, () -> a.qp.modify(rtr));
        assertEquals(Errno.EINVAL, ex.errno());
        assertTrue(ex.getMessage().contains("address vector"), ex.getMessage());
    }
}
