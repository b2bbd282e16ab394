package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.link.Ipv6;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.soft.transport.TransportQp;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WrOpcode;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hardening issue's loopback impersonation (item 2): two devices of this user on one host, connected, whose
 * traffic goes through each other's owner-only inboxes; another local process binds the peer's address on
 * another port (any local user may: the peer holds only its RoCEv2 port there) and sends, by UDP, requests
 * with a valid ICRC, the PSN the victim expects and its real rkey. rxe's check_addr looks at the source address
 * only, so each passed it before; now each is dropped and counted ({@code drop_local_peer_by_udp}), and the
 * real peer, through the inbox, goes on at the same PSN.
 * <p>
 * Over IPv4 the two QPs are on two devices of 127/8 addresses of their own; over IPv6 on one device on {@code ::1}
 * (the one IPv6 loopback address: a second device could hold it only on another port, which no RoCEv2 peer
 * sends to), which reaches its own QPs through its own inbox, and the impostor binds {@code ::1} on another port.
 */
@Timeout(60)
class LocalPeerForgeryTest
{
    static final int VICTIM_PSN = 0x123456;
    static final int PEER_PSN = 0x654321;
    private static final int LENGTH = 64;

    /** Where the two QPs are. */
    enum Family
    {
        IPV4,
        IPV6
    }

    @ParameterizedTest
    @CsvSource({"IPV4, RC", "IPV4, UC", "IPV6, RC", "IPV6, UC"})
    void shouldDropAWriteThatClaimsTheSameHostPeerByUdp(final Family family, final QpType type) throws IOException
    {
        try (Devices devices = new Devices(family); DatagramChannel impostor = DatagramChannel.open())
        {
            final RcEndpoint[] pair = devices.connect(type);
            final RcEndpoint victim = pair[0];
            final RcEndpoint peer = pair[1];
            assertTrue(((TransportQp)victim.qp).peerOnSameHostPath(), "the victim reaches its peer by the inbox");
            final byte[] before = RcFixtures.bytes(victim.buffer, 0, LENGTH);

            final PacketInfo forged = forged(impostor, type == QpType.RC ? Opcode.RC_RDMA_WRITE_ONLY :
                Opcode.UC_RDMA_WRITE_ONLY, victim, peer).va(victim.mr.address()).rkey(victim.mr.rkey())
                .dmaLength(LENGTH);
            send(impostor, forged, LENGTH, victim);
            awaitLocalPeerDrop(victim, 1);
            assertArrayEquals(before, RcFixtures.bytes(victim.buffer, 0, LENGTH), "the impostor's bytes landed");

            // the real peer writes at the PSN the forged packet tried to take, through the inbox
            RcFixtures.fill(peer.buffer, 0, LENGTH, 7);
            peer.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(peer.mr, 0, LENGTH).rdma(victim.mr.address(), victim.mr.rkey()));
            if (type == QpType.RC)
            {
                assertEquals(WcStatus.SUCCESS, RcFixtures.one(peer.pollSend(1, 10_000), "peer's write").status());
            }
            // a SEND after the write, received, proves the write was placed first (UC has no ACK)
            RcFixtures.sendAndReceive(peer, victim, 1024);
            assertArrayEquals(RcFixtures.bytes(peer.buffer, 0, LENGTH), RcFixtures.bytes(victim.buffer, 0, LENGTH));
            assertTrue(victim.counter(SoftCounter.SHM_RCVD_PKTS) >= 2, "the peer's packets came through the inbox");
            assertEquals(1, victim.counter(SoftCounter.DROP_LOCAL_PEER_BY_UDP));
        }
    }

    @ParameterizedTest
    @CsvSource({"IPV4, RC", "IPV4, UC", "IPV6, RC", "IPV6, UC"})
    void shouldDropASendThatClaimsTheSameHostPeerByUdp(final Family family, final QpType type) throws IOException
    {
        try (Devices devices = new Devices(family); DatagramChannel impostor = DatagramChannel.open())
        {
            final RcEndpoint[] pair = devices.connect(type);
            final RcEndpoint victim = pair[0];
            final RcEndpoint peer = pair[1];
            victim.qp.postRecv(new RecvWr().wrId(9).sge(victim.mr, 4096, 1024));

            send(impostor, forged(impostor, type == QpType.RC ? Opcode.RC_SEND_ONLY : Opcode.UC_SEND_ONLY, victim,
                peer), LENGTH, victim);
            awaitLocalPeerDrop(victim, 1);

            RcFixtures.sendTakesTheWaitingReceive(peer, victim, 9, 4096);
        }
    }

    /**
     * The responses the issue forged into an RC requester: an ACK that would complete a WRITE its peer never
     * answered, an RNR NAK that would stall a SEND, a READ response that would send the QP to ERR. Each claims
     * the peer by UDP at the requester's next PSN and is dropped before the transport looks at it; the real
     * peer's answer completes the victim's WRITE afterwards.
     */
    @ParameterizedTest
    @CsvSource({"IPV4, RC_ACKNOWLEDGE, 0x1F", "IPV4, RC_ACKNOWLEDGE, 0x3F", "IPV4, RC_RDMA_READ_RESPONSE_ONLY, 0x1F",
        "IPV6, RC_ACKNOWLEDGE, 0x1F", "IPV6, RC_ACKNOWLEDGE, 0x3F", "IPV6, RC_RDMA_READ_RESPONSE_ONLY, 0x1F"})
    void shouldDropAResponseThatClaimsTheSameHostPeerByUdp(final Family family, final Opcode opcode,
        final String syndrome) throws IOException
    {
        try (Devices devices = new Devices(family); DatagramChannel impostor = DatagramChannel.open())
        {
            final RcEndpoint[] pair = devices.connect(QpType.RC);
            final RcEndpoint victim = pair[0];
            final RcEndpoint peer = pair[1];
            final PacketInfo forged = forged(impostor, opcode, victim, peer).psn(VICTIM_PSN)
                .syndrome(Integer.decode(syndrome)).msn(1);
            send(impostor, forged, opcode.has(OpcodeMask.PAYLOAD) ? LENGTH : 0, victim);
            awaitLocalPeerDrop(victim, 1);

            RcFixtures.fill(victim.buffer, 0, LENGTH, 3);
            victim.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(victim.mr, 0, LENGTH).rdma(peer.mr.address(), peer.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, RcFixtures.one(victim.pollSend(1, 10_000), "victim's write").status());
            assertArrayEquals(RcFixtures.bytes(victim.buffer, 0, LENGTH), RcFixtures.bytes(peer.buffer, 0, LENGTH));
            assertEquals(1, victim.counter(SoftCounter.DROP_LOCAL_PEER_BY_UDP));
        }
    }

    /** The victim's and the peer's devices: two on IPv4 loopback addresses, or one on {@code ::1}. */
    private static final class Devices implements AutoCloseable
    {
        private final Fabric fabric;
        private final Context ipv6;

        Devices(final Family family)
        {
            fabric = family == Family.IPV4 ? new Fabric(Fabric.Kind.SHM) : null;
            ipv6 = family == Family.IPV6 ? Ipv6Loopback.openSameHost(2, DeviceLimits.RXE) : null;
        }

        RcEndpoint[] connect(final QpType type)
        {
            final RcEndpoint victim = new RcEndpoint(fabric != null ? fabric.open() : ipv6, type, 1 << 16, 16);
            final RcEndpoint peer = new RcEndpoint(fabric != null ? fabric.open() : ipv6, type, 1 << 16, 16);
            RcConnectSettings.defaults().psns(VICTIM_PSN, PEER_PSN).connect(victim, peer);
            return new RcEndpoint[] {victim, peer};
        }

        @Override
        public void close()
        {
            if (fabric != null)
            {
                fabric.close();
            }
            if (ipv6 != null)
            {
                ((SoftDevice)ipv6.device()).shutdown();
            }
        }
    }

    /** A request as the peer would send it, from the peer's address but the impostor's socket on another port. */
    static PacketInfo forged(final DatagramChannel impostor, final Opcode opcode, final RcEndpoint victim,
        final RcEndpoint peer) throws IOException
    {
        final InetAddress peerAddress = peer.engine().address();
        if (peerAddress instanceof Inet4Address)
        {
            impostor.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
        }
        impostor.bind(new InetSocketAddress(peerAddress, 0));
        final int port = ((InetSocketAddress)impostor.getLocalAddress()).getPort();
        final InetAddress victimAddress = victim.engine().address();
        final int victimPort = victim.engine().link().localPort();
        final PacketInfo spec = new PacketInfo();
        if (peerAddress instanceof Inet6Address)
        {
            spec.networkIpv6(Ipv6.high(peerAddress), Ipv6.low(peerAddress), port, Ipv6.high(victimAddress),
                Ipv6.low(victimAddress), victimPort);
        }
        else
        {
            spec.network(Ipv4.toInt(peerAddress), port, Ipv4.toInt(victimAddress), victimPort, 0).dontFragment(true);
        }
        return spec
            .opcode(opcode)
            .destQp(victim.qp.qpNum())
            .psn(PEER_PSN)
            .ackReq(opcode.has(OpcodeMask.RC));
    }

    static void send(final DatagramChannel impostor, final PacketInfo spec, final int payloadLength,
        final RcEndpoint victim) throws IOException
    {
        final byte[] payload = new byte[payloadLength];
        Arrays.fill(payload, (byte)0xA5);
        final byte[] bytes = new byte[PacketBuilder.length(spec.opcode(), payloadLength)];
        final int length = new PacketBuilder().build(spec, MemorySegment.ofArray(payload),
            MemorySegment.ofArray(bytes), 0);
        impostor.send(ByteBuffer.wrap(bytes, 0, length),
            new InetSocketAddress(victim.engine().address(), victim.engine().link().localPort()));
    }

    static void awaitLocalPeerDrop(final RcEndpoint victim, final long count)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (victim.counter(SoftCounter.DROP_LOCAL_PEER_BY_UDP) < count && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(count, victim.counter(SoftCounter.DROP_LOCAL_PEER_BY_UDP),
            victim.engine().counters().snapshot().toString());
        assertEquals(0, victim.counter(SoftCounter.RCVD_PKTS), "a forged packet was received");
        assertEquals(0, victim.counter(SoftCounter.DROP_ICRC), "the forged packet's ICRC was valid");
        assertEquals(0, victim.counter(SoftCounter.DROP_ADDR_MISMATCH), "it passed check_addr, as before");
    }
}
