package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.testing.TestNet;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import jdk.net.ExtendedSocketOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The reproduction, on real UDP: a connected QP on 127.0.77.1 whose peer is 127.0.77.2, and
 * a plain socket on 127.0.77.3 that is neither and spoofs nothing, sending well-formed requests with
 * a valid ICRC, the PSN the victim expects and the victim's real rkey. The device drops each as rxe's
 * check_addr does, counts it in {@code drop_addr_mismatch}, and the QP goes on working with its peer.
 */
@Timeout(60)
class ForeignSenderTest
{
    private static final int SUBNET = TestNet.nextSubnet();
    private static final int VICTIM_PSN = 0x123456;
    private static final int PEER_PSN = 0x654321;
    private static final int LENGTH = 64;

    private final InetAddress victimAddress = address(1);
    private final InetAddress peerAddress = address(2);
    private final InetAddress attackerAddress = address(3);
    private Fabric fabric;
    private DatagramChannel attacker;

    @BeforeEach
    void open() throws IOException
    {
        fabric = new Fabric(Fabric.Kind.UDP);
        attacker = DatagramChannel.open();
        attacker.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
        attacker.bind(new InetSocketAddress(attackerAddress, 0));
        attacker.configureBlocking(false);
    }

    @AfterEach
    void close() throws IOException
    {
        attacker.close();
        fabric.close();
    }

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void shouldDropWriteFromAHostThatIsNotThePeer(final QpType type) throws IOException
    {
        final RcEndpoint[] pair = connect(type);
        final RcEndpoint victim = pair[0];
        final RcEndpoint peer = pair[1];
        final byte[] before = RcFixtures.bytes(victim.buffer, 0, LENGTH);

        final PacketInfo spec = forged(writeOnly(type), victim).va(victim.mr.address())
            .rkey(victim.mr.rkey()).dmaLength(LENGTH);
        send(spec, LENGTH);
        awaitAddressDrop(victim, 1);

        assertArrayEquals(before, RcFixtures.bytes(victim.buffer, 0, LENGTH), "the attacker's bytes landed");
        assertEquals(0, victim.counter(SoftCounter.DROP_ICRC), "the forged packet's ICRC was valid");
        assertEquals(1, victim.qp.counters().get("drop_addr_mismatch"));

        // the real peer still writes, with the PSN the forged packet tried to take
        RcFixtures.fill(peer.buffer, 0, LENGTH, 7);
        peer.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .sge(peer.mr, 0, LENGTH).rdma(victim.mr.address(), victim.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, RcFixtures.one(peer.pollSend(1, 10_000), "peer's write").status());
        if (type == QpType.UC)
        {
            // UC has no ACK: a SEND after the write, received, proves the write was placed first
            RcFixtures.sendAndReceive(peer, victim, 1024);
        }
        assertArrayEquals(RcFixtures.bytes(peer.buffer, 0, LENGTH),
            RcFixtures.bytes(victim.buffer, 0, LENGTH));
    }

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void shouldDropSendFromAHostThatIsNotThePeer(final QpType type) throws IOException
    {
        final RcEndpoint[] pair = connect(type);
        final RcEndpoint victim = pair[0];
        final RcEndpoint peer = pair[1];
        victim.qp.postRecv(new RecvWr().wrId(9).sge(victim.mr, 4096, 1024));

        send(forged(sendOnly(type), victim), LENGTH);
        awaitAddressDrop(victim, 1);

        RcFixtures.sendTakesTheWaitingReceive(peer, victim, 9, 4096);
    }

    @Test
    void shouldDropReadFromAHostThatIsNotThePeer() throws IOException
    {
        final RcEndpoint[] pair = connect(QpType.RC);
        final RcEndpoint victim = pair[0];
        final RcEndpoint peer = pair[1];
        RcFixtures.fill(victim.buffer, 0, LENGTH, 3);
        final long sentBefore = victim.counter(SoftCounter.SENT_PKTS);

        send(forged(Opcode.RC_RDMA_READ_REQUEST, victim).va(victim.mr.address()).rkey(victim.mr.rkey())
            .dmaLength(LENGTH), 0);
        awaitAddressDrop(victim, 1);

        assertEquals(sentBefore, victim.counter(SoftCounter.SENT_PKTS), "the victim answered the forged READ");
        assertNull(attacker.receive(ByteBuffer.allocate(2048)));

        // the peer's READ still gets the victim's bytes
        peer.qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .sge(peer.mr, 0, LENGTH).rdma(victim.mr.address(), victim.mr.rkey()));
        final WorkCompletion wc = RcFixtures.one(peer.pollSend(1, 10_000), "peer's read");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals(WcOpcode.RDMA_READ, wc.opcode());
        assertArrayEquals(RcFixtures.bytes(victim.buffer, 0, LENGTH),
            RcFixtures.bytes(peer.buffer, 0, LENGTH));
    }

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void shouldDropEveryPsnGuessAndStayUsable(final QpType type) throws IOException
    {
        final RcEndpoint[] pair = connect(type);
        final RcEndpoint victim = pair[0];
        final RcEndpoint peer = pair[1];
        final byte[] before = RcFixtures.bytes(victim.buffer, 0, LENGTH);
        for (int i = 0; i < 32; i++)
        {
            send(forged(writeOnly(type), victim).psn((PEER_PSN + i * 0x9E37) & 0xFFFFFF)
                .va(victim.mr.address()).rkey(victim.mr.rkey()).dmaLength(LENGTH), LENGTH);
        }
        awaitAddressDrop(victim, 32);
        assertArrayEquals(before, RcFixtures.bytes(victim.buffer, 0, LENGTH));
        RcFixtures.sendAndReceive(peer, victim, 2048);
    }

    @Test
    void shouldCountAReadResponseNoRequestAskedFor() throws IOException
    {
        final RcEndpoint[] pair = connect(QpType.RC);
        final RcEndpoint victim = pair[0];
        // from the peer's own address (any port passes check_addr), to a QP with no READ outstanding
        try (DatagramChannel fromPeer = DatagramChannel.open())
        {
            fromPeer.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            fromPeer.bind(new InetSocketAddress(peerAddress, 0));
            final int port = ((InetSocketAddress)fromPeer.getLocalAddress()).getPort();
            final PacketInfo response = new PacketInfo()
                .network(Ipv4.toInt(peerAddress), port, Ipv4.toInt(victimAddress), 4791, 0)
                .dontFragment(true)
                .opcode(Opcode.RC_RDMA_READ_RESPONSE_ONLY)
                .destQp(victim.qp.qpNum())
                .psn(VICTIM_PSN)
                .syndrome(0)
                .msn(1);
            fromPeer.send(build(response, LENGTH), new InetSocketAddress(victimAddress, 4791));
        }
        awaitCounter(victim::counter, SoftCounter.DROP_UNEXPECTED_RESPONSE, 1);
        assertEquals(1, victim.counter(SoftCounter.RCVD_PKTS), "it passed the device's checks");
        assertEquals(io.rdma4j.verbs.QpState.RTS, victim.qp.query().state(), "and changed nothing");
    }

    @Test
    void shouldDropAUdPayloadLargerThanTheMtu() throws IOException
    {
        final UdEndpoint victim = new UdEndpoint(open(victimAddress));
        victim.postRecvs(2);
        final int port = ((InetSocketAddress)attacker.getLocalAddress()).getPort();
        final PacketInfo huge = new PacketInfo()
            .network(Ipv4.toInt(attackerAddress), port, Ipv4.toInt(victimAddress), 4791, 0)
            .dontFragment(true)
            .opcode(Opcode.UD_SEND_ONLY)
            .destQp(victim.qp.qpNum())
            .psn(1)
            .qkey(UdEndpoint.QKEY)
            .srcQp(0x42);
        attacker.send(build(huge, 65_000), new InetSocketAddress(victimAddress, 4791));
        awaitCounter(victim::counter, SoftCounter.DROP_UD_OVER_MTU, 1);
        assertEquals(0, victim.counter(SoftCounter.RCVD_PKTS), "not received");
        assertEquals(0, victim.cq.poll(WorkCompletion.array(1)), "and no receive completed");
    }

    private static ByteBuffer build(final PacketInfo spec, final int payloadLength)
    {
        final byte[] payload = new byte[payloadLength];
        Arrays.fill(payload, (byte)0xA5);
        final byte[] bytes = new byte[PacketBuilder.length(spec.opcode(), payloadLength)];
        final int length = new PacketBuilder().build(spec, MemorySegment.ofArray(payload), MemorySegment.ofArray(bytes),
            0);
        return ByteBuffer.wrap(bytes, 0, length);
    }

    private static void awaitCounter(final java.util.function.ToLongFunction<SoftCounter> counters,
        final SoftCounter counter, final long count)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (counters.applyAsLong(counter) < count && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(count, counters.applyAsLong(counter), counter.counterName());
    }

    private RcEndpoint[] connect(final QpType type)
    {
        final RcEndpoint victim = new RcEndpoint(open(victimAddress), type, 1 << 16, 16);
        final RcEndpoint peer = new RcEndpoint(open(peerAddress), type, 1 << 16, 16);
        RcConnectSettings.defaults().psns(VICTIM_PSN, PEER_PSN).connect(victim, peer);
        return new RcEndpoint[] {victim, peer};
    }

    private io.rdma4j.verbs.Context open(final InetAddress address)
    {
        // UDP only, as the devices: a datagram's source address is then the one the kernel saw
        final io.rdma4j.verbs.Context context = SoftDevice.builder("foreign" + address.getAddress()[3], address)
            .sameHost(false).build().open();
        fabric.adopt(context);
        return context;
    }

    /** A request as the peer would send it, but from the attacker's socket. */
    private PacketInfo forged(final Opcode opcode, final RcEndpoint victim) throws IOException
    {
        final int port = ((InetSocketAddress)attacker.getLocalAddress()).getPort();
        return new PacketInfo()
            .network(Ipv4.toInt(attackerAddress), port, Ipv4.toInt(victimAddress), 4791, 0)
            .dontFragment(true)
            .opcode(opcode)
            .destQp(victim.qp.qpNum())
            .psn(PEER_PSN)
            .ackReq(opcode.has(io.rdma4j.soft.wire.OpcodeMask.RC));
    }

    private void send(final PacketInfo spec, final int payloadLength) throws IOException
    {
        attacker.send(build(spec, payloadLength), new InetSocketAddress(victimAddress, 4791));
    }

    private static void awaitAddressDrop(final RcEndpoint victim, final long count)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (victim.counter(SoftCounter.DROP_ADDR_MISMATCH) < count && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertEquals(count, victim.counter(SoftCounter.DROP_ADDR_MISMATCH), victim.engine().counters().snapshot()
            .toString());
        assertEquals(0, victim.counter(SoftCounter.RCVD_PKTS), "a forged packet was received");
    }

    private static Opcode writeOnly(final QpType type)
    {
        return type == QpType.RC ? Opcode.RC_RDMA_WRITE_ONLY : Opcode.UC_RDMA_WRITE_ONLY;
    }

    private static Opcode sendOnly(final QpType type)
    {
        return type == QpType.RC ? Opcode.RC_SEND_ONLY : Opcode.UC_SEND_ONLY;
    }

    private static InetAddress address(final int host)
    {
        return TestNet.address(SUBNET, host);
    }
}
