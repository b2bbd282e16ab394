package io.rdma4j.rdmacore;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
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

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * UD on the first native device: a send between two QPs through an address handle, with immediate data and
 * the GRH in front of the payload, and a send to a multicast group the receiving QP is attached to.
 */
class NativeUdTest
{
    private static final int QKEY = 0x11111111;
    private static final int GRH = ReplyAddress.GRH_BYTES;

    private NativeContext context;
    private Arena arena;
    private NativePd pd;
    private NativeCq cq;
    private NativeQp sender;
    private NativeQp receiver;
    private MemoryRegion mr;
    private MemorySegment buffer;
    private int gidIndex;
    private Gid gid;

    @BeforeEach
    void open()
    {
        context = Rxe.device().open();
        arena = Arena.ofShared();
        pd = context.allocPd();
        cq = context.createCq(64, null, 0);
        sender = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(16, 16)));
        receiver = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(16, 16)));
        Rxe.udToRts(sender, QKEY);
        Rxe.udToRts(receiver, QKEY);
        buffer = arena.allocate(8192, 64);
        mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
        gidIndex = Rxe.ipv4GidIndex(context);
        gid = context.queryGid(1, gidIndex);
    }

    @AfterEach
    void close()
    {
        if (context == null)
        {
            // skipped: no device, nothing was opened
            return;
        }
        sender.close();
        receiver.close();
        mr.close();
        cq.close();
        pd.close();
        context.close();
        arena.close();
    }

    @Test
    void aSendWithImmediateArrivesBehindItsGrh()
    {
        receiver.postRecv(new RecvWr().wrId(7).sge(mr, 4096, GRH + 256));
        final MemorySegment payload = buffer.asSlice(0, 100);
        for (int i = 0; i < 100; i++)
        {
            payload.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 3));
        }
        final NativeAh ah = pd.createAh(Rxe.route(gid, gidIndex));
        sender.postSend(new SendWr().wrId(42).opcode(WrOpcode.SEND_WITH_IMM).immData(0x12345678)
            .sendFlags(SendFlags.SIGNALED).sge(mr, 0, 100).ud(ah, receiver.qpNum(), QKEY));

        final WorkCompletion first = Rxe.pollOne(cq, new WorkCompletion());
        final WorkCompletion second = Rxe.pollOne(cq, new WorkCompletion());
        final WorkCompletion send = first.opcode() == WcOpcode.SEND ? first : second;
        final WorkCompletion recv = first.opcode() == WcOpcode.SEND ? second : first;

        assertEquals(WcStatus.SUCCESS, send.status(), send.toString());
        assertEquals(42, send.wrId());
        assertEquals(WcStatus.SUCCESS, recv.status(), recv.toString());
        assertEquals(WcOpcode.RECV, recv.opcode());
        assertEquals(7, recv.wrId());
        assertEquals(GRH + 100, recv.byteLen());
        assertEquals(0x12345678, recv.immData());
        assertEquals(WcFlags.GRH | WcFlags.WITH_IMM, recv.wcFlags() & (WcFlags.GRH | WcFlags.WITH_IMM));
        assertEquals(sender.qpNum(), recv.srcQp());
        assertEquals(receiver.qpNum(), recv.qpNum());
        assertEquals(-1, MemorySegment.mismatch(payload, 0, 100, buffer, 4096 + GRH, 4096 + GRH + 100), "payload differs");

        // the GRH says where to reply: back to our own GID
        final NativeAh reply = (NativeAh)pd.createAhFromWc(recv, buffer.asSlice(4096, GRH), 1);
        assertEquals(gid, reply.attr().grh().dgid());
        reply.close();
        ah.close();
    }

    @Test
    void aSendToAnAttachedGroupReachesTheMember() throws IOException
    {
        final Gid group = Gid.parse("239.77.0.11");
        receiver.attachMulticast(group, 0);
        // rxe delivers a group's datagrams when the host is a member of the IP group on the interface, which
        // librdmacm's join arranges; without librdmacm here, a socket joins it
        final NetworkInterface nic = NetworkInterface.getByInetAddress(gid.toInet());
        assertNotNull(nic, "no interface has " + gid.toInet());
        try (DatagramChannel member = DatagramChannel.open(StandardProtocolFamily.INET)
            .setOption(StandardSocketOptions.SO_REUSEADDR, true).bind(new InetSocketAddress(4792)))
        {
            final MembershipKey key = member.join(group.toInet(), nic);
            receiver.postRecv(new RecvWr().wrId(9).sge(mr, 4096, GRH + 256));
            buffer.set(ValueLayout.JAVA_LONG, 0, 0x0102030405060708L);
            final NativeAh ah = pd.createAh(Rxe.route(group, gidIndex));
            sender.postSend(new SendWr().wrId(43).sendFlags(SendFlags.SIGNALED).sge(mr, 0, 8)
                .ud(ah, 0xFFFFFF, QKEY));

            WorkCompletion recv = Rxe.pollOne(cq, new WorkCompletion());
            if (recv.opcode() == WcOpcode.SEND)
            {
                assertEquals(WcStatus.SUCCESS, recv.status(), recv.toString());
                recv = Rxe.pollOne(cq, new WorkCompletion());
            }
            assertEquals(WcStatus.SUCCESS, recv.status(), recv.toString());
            assertEquals(9, recv.wrId());
            assertEquals(GRH + 8, recv.byteLen());
            assertEquals(sender.qpNum(), recv.srcQp());
            assertEquals(0x0102030405060708L, buffer.get(ValueLayout.JAVA_LONG, 4096 + GRH));
            key.drop();
            ah.close();
        }
        receiver.detachMulticast(group, 0);
    }
}
