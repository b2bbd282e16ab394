package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.List;

/**
 * The IPv6 checks that need more than one address, run by {@link Ipv6NamespaceTest} in a network namespace
 * of its own where fd77::1 and fd77::3 are on v0 and fd77::2 on v1, the two ends of a veth pair. Two
 * software devices on real UDP: an RC pair between them, a plain socket on the third address forging a
 * write, and an IPv6 group one device joins. Prints one line per check; any failure is an exception and a
 * non-zero exit.
 */
public final class Ipv6NamespacePeer
{
    private static final InetAddress A = InetAddress.ofLiteral("fd77::1");
    private static final InetAddress B = InetAddress.ofLiteral("fd77::2");
    private static final InetAddress STRANGER = InetAddress.ofLiteral("fd77::3");
    private static final Gid GROUP = Gid.parse("ff0e::77:1");
    private static final int LENGTH = 64;

    private Ipv6NamespacePeer()
    {
    }

    /**
     * @param args none.
     * @throws Exception on any failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final Context a = SoftDevice.builder("nsA", A).build().open();
        final Context b = SoftDevice.builder("nsB", B).build().open();
        try
        {
            rcBetweenDevices(a, b);
            foreignWriteDropped(a, b);
            multicastJoinedAtIpLevel(a, b);
        }
        finally
        {
            ((SoftDevice)a.device()).shutdown();
            ((SoftDevice)b.device()).shutdown();
        }
    }

    private static void rcBetweenDevices(final Context a, final Context b)
    {
        final RcEndpoint x = new RcEndpoint(a, QpType.RC, 1 << 20, 16);
        final RcEndpoint y = new RcEndpoint(b, QpType.RC, 1 << 20, 16);
        RcConnectSettings.defaults().mtu(Mtu.MTU_1024).connect(x, y);
        RcFixtures.fill(x.buffer, 0, 100_000, 1);
        x.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .sge(x.mr, 0, 100_000).rdma(y.mr.segment().address(), y.mr.rkey()));
        check(RcFixtures.one(x.pollSend(1, 10_000), "write").status() == WcStatus.SUCCESS, "write completes");
        check(Arrays.equals(RcFixtures.bytes(x.buffer, 0, 100_000), RcFixtures.bytes(y.buffer, 0, 100_000)),
            "written bytes arrive");
        x.qp.postSend(new SendWr().wrId(2).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .sge(x.mr, 200_000, 100_000).rdma(y.mr.segment().address(), y.mr.rkey()));
        check(RcFixtures.one(x.pollSend(1, 10_000), "read").status() == WcStatus.SUCCESS, "read completes");
        check(Arrays.equals(RcFixtures.bytes(y.buffer, 0, 100_000), RcFixtures.bytes(x.buffer, 200_000, 100_000)),
            "read bytes arrive");
        System.out.println("RC fd77::1 <-> fd77::2: WRITE and READ of 100000 bytes");
    }

    private static void foreignWriteDropped(final Context a, final Context b) throws Exception
    {
        final RcEndpoint victim = new RcEndpoint(a, QpType.RC, 1 << 16, 16);
        final RcEndpoint peer = new RcEndpoint(b, QpType.RC, 1 << 16, 16);
        RcConnectSettings.defaults().psns(0x100, 0x200).connect(victim, peer);
        final byte[] before = RcFixtures.bytes(victim.buffer, 0, LENGTH);
        final long dropsBefore = victim.counter(SoftCounter.DROP_ADDR_MISMATCH);
        try (DatagramChannel stranger = DatagramChannel.open(java.net.StandardProtocolFamily.INET6))
        {
            stranger.bind(new InetSocketAddress(STRANGER, 0));
            final int port = ((InetSocketAddress)stranger.getLocalAddress()).getPort();
            final Gid from = Gid.fromInet(STRANGER);
            final Gid to = Gid.fromInet(A);
            final PacketInfo spec = new PacketInfo()
                .networkIpv6(from.high(), from.low(), port, to.high(), to.low(), 4791)
                .opcode(Opcode.RC_RDMA_WRITE_ONLY).destQp(victim.qp.qpNum()).psn(0x200).ackReq(true)
                .va(victim.mr.segment().address()).rkey(victim.mr.rkey()).dmaLength(LENGTH);
            final byte[] payload = new byte[LENGTH];
            Arrays.fill(payload, (byte)0xA5);
            final byte[] bytes = new byte[PacketBuilder.length(Opcode.RC_RDMA_WRITE_ONLY, LENGTH)];
            final int length = new PacketBuilder().build(spec, MemorySegment.ofArray(payload),
                MemorySegment.ofArray(bytes), 0);
            stranger.send(ByteBuffer.wrap(bytes, 0, length), new InetSocketAddress(A, 4791));
        }
        TestVerbs.awaitAtLeast(() -> victim.counter(SoftCounter.DROP_ADDR_MISMATCH), dropsBefore + 1);
        check(Arrays.equals(before, RcFixtures.bytes(victim.buffer, 0, LENGTH)), "the stranger's bytes never land");
        check(victim.counter(SoftCounter.DROP_ICRC) == 0, "the forged packet's ICRC was valid");
        System.out.println("check_addr: a write from fd77::3 counted in drop_addr_mismatch");
    }

    private static void multicastJoinedAtIpLevel(final Context a, final Context b)
    {
        final UdEndpoint sender = new UdEndpoint(a);
        final UdEndpoint member = new UdEndpoint(b);
        member.qp.attachMulticast(GROUP, 0);
        member.joinFabric(GROUP);
        member.postRecvs(1);
        final AddressHandle ah = sender.ahTo(GROUP);
        sender.send(ah, 0xFFFFFF, UdEndpoint.QKEY, "to ff0e::77:1", 3);
        check(RcFixtures.one(sender.poll(1, 5000), "group send").status() == WcStatus.SUCCESS, "group send");
        final List<WorkCompletion> got = member.poll(1, 5000);
        check(got.size() == 1 && "to ff0e::77:1".equals(member.text(got.getFirst())),
            "the member on the other device receives through the IP group: " + got + "; sender " +
            SoftEngine.of(a).counters().snapshot() + ", member " + SoftEngine.of(b).counters()
            .snapshot());
        final MemorySegment grh = member.buffer.asSlice((got.getFirst().wrId() % 1000) * UdEndpoint.SLOT, 40);
        check(GROUP.equals(Gid.of(grh.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE))), "GRH destination is the group");
        check(Gid.fromInet(A).equals(Gid.of(grh.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE))),
            "GRH source is the sender");
        member.qp.detachMulticast(GROUP, 0);
        SoftEngine.of(b).link().leaveGroup(GROUP.toInet());
        System.out.println("multicast: ff0e::77:1 joined on v1 by fd77::2, sent from fd77::1 on v0");
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError(what);
        }
    }
}
