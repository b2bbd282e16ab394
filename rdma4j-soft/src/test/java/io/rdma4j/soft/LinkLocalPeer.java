package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.soft.transport.TransportQp;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WrOpcode;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Run by {@link LinkLocalSameHostTest} in a network namespace of its own where fe80::1 and fe80::2 are on v0: two
 * devices of one user on those link-local addresses, an RC and a UC pair between them, and an impostor bound to
 * the peer's address on another port forging a WRITE at the PSN the peer sends next (issue 41, finding 6: such
 * devices had no inbox, so the forgery landed). Prints one line per check; any failure is an exception and a
 * non-zero exit.
 */
public final class LinkLocalPeer
{
    private static final int LENGTH = 64;

    private LinkLocalPeer()
    {
    }

    /**
     * @param args none.
     * @throws Exception on any failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final NetworkInterface v0 = NetworkInterface.getByName("v0");
        final InetAddress a = Inet6Address.getByAddress(null, InetAddress.ofLiteral("fe80::1").getAddress(), v0);
        final InetAddress b = Inet6Address.getByAddress(null, InetAddress.ofLiteral("fe80::2").getAddress(), v0);
        final Path places = Files.createTempDirectory("rdma4j-linklocal");
        final SoftSettings settings = SoftSettings.builder().shmDirectory(places.resolve("inboxes")).stat(false)
            .build();
        final Context victimDevice = SoftDevice.builder("llA", a).settings(settings).build().open();
        final Context peerDevice = SoftDevice.builder("llB", b).settings(settings).build().open();
        try
        {
            check(SoftEngine.of(victimDevice).link() instanceof SameHostLink link && link.inboxPath() != null,
                "fe80::1 has an inbox: " + SoftEngine.of(victimDevice).link());
            System.out.println("inbox " + ((SameHostLink)SoftEngine.of(victimDevice).link()).inboxPath().getFileName());
            for (final QpType type : new QpType[] {QpType.RC, QpType.UC})
            {
                forgedWriteDropped(type, victimDevice, peerDevice);
            }
        }
        finally
        {
            ((SoftDevice)victimDevice.device()).shutdown();
            ((SoftDevice)peerDevice.device()).shutdown();
        }
    }

    private static void forgedWriteDropped(final QpType type, final Context victimDevice, final Context peerDevice)
        throws Exception
    {
        final RcEndpoint victim = new RcEndpoint(victimDevice, type, 1 << 16, 16);
        final RcEndpoint peer = new RcEndpoint(peerDevice, type, 1 << 16, 16);
        RcConnectSettings.defaults().psns(LocalPeerForgeryTest.VICTIM_PSN, LocalPeerForgeryTest.PEER_PSN)
            .connect(victim, peer);
        check(((TransportQp)victim.qp).peerOnSameHostPath(), type + ": the victim reaches fe80::2 by its inbox");
        final long dropsBefore = victim.counter(SoftCounter.DROP_LOCAL_PEER_BY_UDP);
        final byte[] before = RcFixtures.bytes(victim.buffer, 0, LENGTH);
        try (DatagramChannel impostor = DatagramChannel.open())
        {
            LocalPeerForgeryTest.send(impostor, LocalPeerForgeryTest.forged(impostor, type == QpType.RC ?
                Opcode.RC_RDMA_WRITE_ONLY : Opcode.UC_RDMA_WRITE_ONLY, victim, peer).va(victim.mr.address())
                .rkey(victim.mr.rkey()).dmaLength(LENGTH), LENGTH, victim);
        }
        TestVerbs.awaitAtLeast(() -> victim.counter(SoftCounter.DROP_LOCAL_PEER_BY_UDP), dropsBefore + 1);
        check(Arrays.equals(before, RcFixtures.bytes(victim.buffer, 0, LENGTH)), type + ": the forged bytes landed");

        RcFixtures.fill(peer.buffer, 0, LENGTH, 5);
        peer.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .sge(peer.mr, 0, LENGTH).rdma(victim.mr.address(), victim.mr.rkey()));
        check(RcFixtures.one(peer.pollSend(1, 10_000), "write").status() == WcStatus.SUCCESS, "the write completes");
        RcFixtures.sendAndReceive(peer, victim, 1024);
        check(Arrays.equals(RcFixtures.bytes(peer.buffer, 0, LENGTH), RcFixtures.bytes(victim.buffer, 0, LENGTH)),
            type + ": the peer's WRITE was lost");
        check(victim.counter(SoftCounter.SHM_RCVD_PKTS) > 0, type + ": the peer's packets came through the inbox");
        System.out.println(type + " fe80::2 -> fe80::1: the forged WRITE dropped, the peer's placed");
    }

    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new AssertionError(what);
        }
    }
}
