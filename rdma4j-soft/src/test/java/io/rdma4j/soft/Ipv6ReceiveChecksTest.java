package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.MemoryNetwork;
import io.rdma4j.soft.wire.Icrc;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.soft.wire.TestIcrc;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rxe's receive checks for IPv6 peers, on IPv6 devices in memory (fd77::1, fd77::2) so that a third
 * address can send: a connected QP hears its peer only, at our address (check_addr), and the ICRC
 * is the one over the masked IPv6 header. Each forged packet is well formed, carries the PSN and
 * rkey the victim expects and a valid ICRC for its own addresses, so only the check under test can
 * refuse it.
 */
@Timeout(60)
class Ipv6ReceiveChecksTest
{
    private static final int VICTIM_PSN = 0x100;
    private static final int PEER_PSN = 0x200;
    private static final int LENGTH = 64;
    private static final int BATCH = 200;
    private static final InetAddress VICTIM = InetAddress.ofLiteral("fd77::1");
    private static final InetAddress PEER = InetAddress.ofLiteral("fd77::2");
    private static final InetAddress STRANGER = InetAddress.ofLiteral("fd77::3");

    private final MemoryNetwork network = new MemoryNetwork();
    private final List<Context> contexts = new ArrayList<>();

    @AfterEach
    void close()
    {
        contexts.forEach(c -> SoftEngine.of(c).close());
    }

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "UC"})
    void shouldDropAWriteFromAnIpv6HostThatIsNotThePeer(final QpType type)
    {
        final RcEndpoint[] pair = connect(type);
        final RcEndpoint victim = pair[0];
        final byte[] before = RcFixtures.bytes(victim.buffer, 0, LENGTH);

        inject(STRANGER, VICTIM, write(type, victim, STRANGER, VICTIM));
        TestVerbs.awaitAtLeast(() -> victim.counter(SoftCounter.DROP_ADDR_MISMATCH), 1);

        assertArrayEquals(before, RcFixtures.bytes(victim.buffer, 0, LENGTH), "the stranger's bytes landed");
        assertEquals(0, victim.counter(SoftCounter.DROP_ICRC), "the forged packet's ICRC was valid");
        assertEquals(0, victim.counter(SoftCounter.RCVD_PKTS));
    }

    @Test
    void shouldDropAWriteWhoseIpv6AddressesDifferFromTheIcrcs()
    {
        final RcEndpoint[] pair = connect(QpType.RC);
        final RcEndpoint victim = pair[0];
        final byte[] before = RcFixtures.bytes(victim.buffer, 0, LENGTH);

        // from the real peer, but the ICRC was computed for another source: in transit, the address changed
        inject(PEER, VICTIM, write(QpType.RC, victim, STRANGER, VICTIM));
        TestVerbs.awaitAtLeast(() -> victim.counter(SoftCounter.DROP_ICRC), 1);
        assertArrayEquals(before, RcFixtures.bytes(victim.buffer, 0, LENGTH));
        assertEquals(0, victim.counter(SoftCounter.DROP_ADDR_MISMATCH));
        assertEquals(0, victim.counter(SoftCounter.RCVD_PKTS));
    }

    @Test
    void shouldTakeTheSameWriteFromThePeer()
    {
        final RcEndpoint[] pair = connect(QpType.UC);
        final RcEndpoint victim = pair[0];

        // the positive control of the two tests above: the same forged write, from the peer's address, lands
        inject(PEER, VICTIM, write(QpType.UC, victim, PEER, VICTIM));
        final byte[] expected = new byte[LENGTH];
        Arrays.fill(expected, (byte)0xA5);
        // rcvd_pkts is counted before the transport places the bytes: wait for the bytes themselves
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!Arrays.equals(expected, RcFixtures.bytes(victim.buffer, 0, LENGTH)) && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        assertArrayEquals(expected, RcFixtures.bytes(victim.buffer, 0, LENGTH));
        assertEquals(1, victim.counter(SoftCounter.RCVD_PKTS));
        assertEquals(0, victim.counter(SoftCounter.DROP_ADDR_MISMATCH));
    }

    @Test
    void shouldConnectRcBetweenTwoIpv6Devices()
    {
        final RcEndpoint[] pair = connect(QpType.RC);
        final RcEndpoint victim = pair[0];
        final RcEndpoint peer = pair[1];
        RcFixtures.fill(peer.buffer, 0, 5000, 9);
        peer.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .sge(peer.mr, 0, 5000).rdma(victim.mr.segment().address(), victim.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, RcFixtures.one(peer.pollSend(1, 10_000), "write").status());
        assertArrayEquals(RcFixtures.bytes(peer.buffer, 0, 5000), RcFixtures.bytes(victim.buffer, 0, 5000));
        assertEquals(Gid.fromInet(PEER), peer.context.queryGid(1, 0));
    }

    @Test
    void shouldCountEveryHostileIpv6DatagramOnceWithoutProgressErrors()
    {
        final RcEndpoint[] pair = connect(QpType.RC);
        final RcEndpoint victim = pair[0];
        final SoftEngine engine = victim.engine();
        final long seed = System.nanoTime();
        final java.util.Random random = new java.util.Random(seed);
        final InetAddress[] sources = {PEER, STRANGER, VICTIM, InetAddress.ofLiteral("::ffff:10.0.0.1")};

        // one of each refusal the fuzz must reach, first, while the QP is in RTS: whether a random input moves
        // it to the error state early (a well-formed request from the peer it has to refuse) depends on the seed
        final long probes = verdicts(engine);
        inject(STRANGER, VICTIM, write(QpType.RC, victim, STRANGER, VICTIM));
        final ByteBuffer badIcrc = write(QpType.RC, victim, PEER, VICTIM);
        badIcrc.put(badIcrc.limit() - 1, (byte)~badIcrc.get(badIcrc.limit() - 1));
        inject(PEER, VICTIM, badIcrc);
        awaitVerdicts(engine, probes + 2);

        final TestIcrc icrc = new TestIcrc();
        final long before = verdicts(engine);
        final int count = 2000;
        for (int i = 0; i < count; i++)
        {
            final InetAddress source = sources[random.nextInt(sources.length)];
            final InetAddress destination = VICTIM;
            final ByteBuffer datagram = write(QpType.RC, victim, source, destination);
            final byte[] bytes = Arrays.copyOf(datagram.array(), random.nextInt(4) == 0 ?
                random.nextInt(datagram.limit() + 8) : datagram.limit());
            for (int flips = random.nextInt(4); flips > 0 && bytes.length > 0; flips--)
            {
                bytes[random.nextInt(bytes.length)] = (byte)random.nextInt(256);
            }
            if (bytes.length >= Icrc.MIN_LENGTH && random.nextBoolean())
            {
                // a valid ICRC for what the mutation left, so the checks before it are what refuses
                final Gid from = Gid.fromInet(source);
                final Gid to = Gid.fromInet(destination);
                icrc.generateIpv6(MemorySegment.ofArray(bytes), 0, bytes.length, from.high(), from.low(), to.high(),
                    to.low(), 4791, 4791);
            }
            inject(source, destination, ByteBuffer.wrap(bytes));
            if (i % BATCH == BATCH - 1)
            {
                // within the network's queue: a full queue would drop datagrams before the device saw them
                awaitVerdicts(engine, before + i + 1);
            }
        }
        awaitVerdicts(engine, before + count);
        final String report = "seed " + seed + ": " + engine.counters().snapshot();
        assertEquals(count, verdicts(engine) - before, report);
        assertEquals(0, engine.counters().get(SoftCounter.PROGRESS_ERRORS), report);
        assertTrue(engine.counters().get(SoftCounter.DROP_ADDR_MISMATCH) > 0, report);
        assertTrue(engine.counters().get(SoftCounter.DROP_ICRC) > 0, report);
    }

    private static void awaitVerdicts(final SoftEngine engine, final long target)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (verdicts(engine) < target && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
    }

    private static long verdicts(final SoftEngine engine)
    {
        long total = 0;
        for (final SoftCounter counter : SoftCounter.receiveVerdicts())
        {
            total += engine.counters().get(counter);
        }
        return total;
    }

    @Test
    void shouldRefuseAnIpv6AddressHandleOnAnIpv4Device()
    {
        final Context context = open(InetAddress.ofLiteral("10.77.0.5"));
        final UdEndpoint endpoint = new UdEndpoint(context);
        final RdmaException ex = assertThrows(RdmaException.class, () -> endpoint.ahTo(Gid.fromInet(PEER)));
        assertEquals(Errno.EINVAL, ex.errno());
        assertTrue(ex.getMessage().contains("fd77"), ex.getMessage());
    }

    private RcEndpoint[] connect(final QpType type)
    {
        final RcEndpoint victim = new RcEndpoint(open(VICTIM), type, 1 << 16, 16);
        final RcEndpoint peer = new RcEndpoint(open(PEER), type, 1 << 16, 16);
        RcConnectSettings.defaults().psns(VICTIM_PSN, PEER_PSN).connect(victim, peer);
        return new RcEndpoint[] {victim, peer};
    }

    private Context open(final InetAddress address)
    {
        final Context context = SoftDevice.builder("v6mem" + contexts.size(), address).link(network::attach).build()
            .open();
        contexts.add(context);
        return context;
    }

    /** A WRITE ONLY of LENGTH bytes of 0xA5 to the victim's buffer, its ICRC over the given IPv6 addresses. */
    private static ByteBuffer write(
        final QpType type, final RcEndpoint victim, final InetAddress icrcSource, final InetAddress icrcDestination)
    {
        final Gid source = Gid.fromInet(icrcSource);
        final Gid destination = Gid.fromInet(icrcDestination);
        final Opcode opcode = type == QpType.RC ? Opcode.RC_RDMA_WRITE_ONLY : Opcode.UC_RDMA_WRITE_ONLY;
        final PacketInfo spec = new PacketInfo()
            .networkIpv6(source.high(), source.low(), 4791, destination.high(), destination.low(), 4791)
            .opcode(opcode)
            .destQp(victim.qp.qpNum())
            .psn(PEER_PSN)
            .ackReq(opcode.has(OpcodeMask.RC))
            .va(victim.mr.segment().address())
            .rkey(victim.mr.rkey())
            .dmaLength(LENGTH);
        final byte[] payload = new byte[LENGTH];
        Arrays.fill(payload, (byte)0xA5);
        final byte[] bytes = new byte[PacketBuilder.length(opcode, LENGTH)];
        final int length = new PacketBuilder().build(spec, MemorySegment.ofArray(payload),
            MemorySegment.ofArray(bytes), 0);
        return ByteBuffer.wrap(bytes, 0, length);
    }

    private void inject(final InetAddress source, final InetAddress destination, final ByteBuffer datagram)
    {
        network.inject(source, destination, datagram);
    }
}
