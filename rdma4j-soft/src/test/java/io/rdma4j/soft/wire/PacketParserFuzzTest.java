package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PacketParserFuzzTest
{
    private static final List<PcapReader.Datagram> CAPTURED = Captures.allDatagrams();
    private static final int[] UNKNOWN_OPCODES =
        {0x15, 0x18, 0x1F, 0x2C, 0x40, 0x45, 0x60, 0x63, 0x66, 0x80, 0xA0, 0xFF};

    enum Breakage
    {
        TRANSPORT_VERSION, QPN_ZERO, PKEY, UNKNOWN_OPCODE, PAD, TRUNCATE
    }

    private final PacketParser parser = new PacketParser();
    private final PacketInfo info = new PacketInfo();

    @Provide
    Arbitrary<PcapReader.Datagram> captured()
    {
        return Arbitraries.of(CAPTURED);
    }

    @Property(tries = 2000)
    void shouldNeverThrowOnRandomBytes(
        @ForAll @Size(max = 200) final byte[] bytes,
        @ForAll @IntRange(min = -4, max = 8) final int offset,
        @ForAll @IntRange(min = -4, max = 220) final int length,
        @ForAll final int source,
        @ForAll final int ipId)
    {
        info.clear().network(source, 4791, ~source, 4791, ipId % 0x10000);
        final DropCause cause = parser.parse(MemorySegment.ofArray(bytes), offset, length, info);

        if (cause == DropCause.NONE)
        {
            assertTrue(info.ipIdentification() >= 0 && info.ipIdentification() <= 0xFFFF);
            assertTrue(info.payloadLength() >= 0);
            assertTrue(info.payloadOffset() >= offset && info.payloadOffset() + info.payloadLength() <= offset + length,
                "the payload lies inside the packet");
        }
    }

    @Property(tries = 3000)
    void shouldRefuseEveryMutationWhenTheIdentificationIsKnown(
        @ForAll("captured") final PcapReader.Datagram datagram,
        @ForAll @Size(min = 1, max = 4) final List<@IntRange(min = 0, max = 65535) Integer> positions,
        @ForAll @Size(min = 4, max = 4) final byte[] xors)
    {
        final byte[] bytes = datagram.payload().clone();
        for (int i = 0; i < positions.size(); i++)
        {
            bytes[positions.get(i) % bytes.length] ^= xors[i] == 0 ? 1 : xors[i];
        }
        // The ICRC leaves out BTH byte 4 (FECN, BECN, reserved) so that switches may mark congestion.
        final byte[] covered = bytes.clone();
        covered[BthFlyweight.FECN_BECN_OFFSET] = datagram.payload()[BthFlyweight.FECN_BECN_OFFSET];
        final boolean changedCovered = !Arrays.equals(covered, datagram.payload());

        final DropCause known = parse(bytes, bytes.length, datagram, datagram.ipId());
        final DropCause hidden = parse(bytes, bytes.length, datagram, Icrc.UNKNOWN_IP_ID);

        if (changedCovered)
        {
            assertNotEquals(DropCause.NONE, known);
        }
        else
        {
            // only the bits the ICRC leaves out changed: the packet is as good as captured, ICRC or not
            assertEquals(DropCause.NONE, known);
            assertEquals(DropCause.NONE, hidden);
        }
    }

    @Property(tries = 1000)
    void shouldRefuseBrokenHeadersWithTheirCauseEvenWhenTheIcrcIsResealed(
        @ForAll("captured") final PcapReader.Datagram datagram,
        @ForAll final Breakage breakage,
        @ForAll @IntRange(min = 1, max = 255) final int value)
    {
        final byte[] bytes = datagram.payload().clone();
        final MemorySegment packet = MemorySegment.ofArray(bytes);
        final BthFlyweight bth = new BthFlyweight().wrap(packet, 0);
        final Opcode opcode = Opcode.fromWire(bth.opcode());
        int length = bytes.length;
        final DropCause expected;
        switch (breakage)
        {
            case TRANSPORT_VERSION ->
            {
                bth.tver(1 + value % 15);
                expected = DropCause.BAD_TRANSPORT_VERSION;
            }
            case QPN_ZERO ->
            {
                bth.destQp(0);
                expected = DropCause.BAD_QPN;
            }
            case PKEY ->
            {
                bth.pkey((value << 7) & 0x7F80 | (value & 1) << 15);
                expected = DropCause.BAD_PKEY;
            }
            case UNKNOWN_OPCODE ->
            {
                bth.opcode(UNKNOWN_OPCODES[value % UNKNOWN_OPCODES.length]);
                expected = DropCause.UNKNOWN_OPCODE;
            }
            case PAD ->
            {
                final int pad = 1 + value % 3;
                bth.padCnt(pad);
                final int left = length - opcode.headerLength() - Icrc.LENGTH;
                expected = left < pad ? DropCause.BAD_PAD : DropCause.NONE;
            }
            case TRUNCATE ->
            {
                length = value % (opcode.headerLength() + Icrc.LENGTH);
                expected = length < Icrc.MIN_LENGTH ? DropCause.TOO_SHORT : DropCause.HEADER_TRUNCATED;
            }
            default -> throw new IllegalStateException();
        }
        if (length >= Icrc.MIN_LENGTH)
        {
            new TestIcrc().generate(packet, 0, length, datagram.sourceAddress(), datagram.destinationAddress(),
                datagram.sourcePort(), datagram.destinationPort(), datagram.ipId(), datagram.dontFragment());
        }

        assertEquals(expected, parse(bytes, length, datagram, Icrc.UNKNOWN_IP_ID), breakage.name());
        if (expected == DropCause.NONE)
        {
            assertEquals(datagram.ipId(), info.ipIdentification());
        }
    }

    private DropCause parse(final byte[] bytes, final int length, final PcapReader.Datagram d, final int ipId)
    {
        info.clear()
            .network(d.sourceAddress(), d.sourcePort(), d.destinationAddress(), d.destinationPort(), ipId)
            .dontFragment(d.dontFragment());
        final MemorySegment packet = MemorySegment.ofArray(bytes);
        final DropCause cause = parser.parse(packet, 0, length, info);
        if (cause == DropCause.NONE)
        {
            assertTrue(info.payloadOffset() + info.payloadLength() + info.padCnt() + Icrc.LENGTH <= length);
        }
        return cause;
    }
}
