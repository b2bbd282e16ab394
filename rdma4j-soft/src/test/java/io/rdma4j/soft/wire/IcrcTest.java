package io.rdma4j.soft.wire;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IcrcTest
{
    // Worked example 1 of the reference (scapy's RoCE test): UC SEND_ONLY, 18-byte payload and 2 pad bytes.
    private static final byte[] EXAMPLE_1 = HexFormat.of().parseHex(
        "2460ffff000000d300cf1710" + "4630818be28935d90e9a95505401be885e500000" + "00000000");
    private static final int EXAMPLE_1_ADDRESS = 0xC0A8_0007;
    private static final int EXAMPLE_1_ID = 1144;

    // Worked example 2: a CNP a ConnectX-4 Lx sent with UDP source port 0.
    private static final byte[] EXAMPLE_2 = HexFormat.of().parseHex(
        "8100ffff4000011800000000" + "00000000000000000000000000000000" + "00000000");
    private static final int EXAMPLE_2_SOURCE = 0x0A00_1101;
    private static final int EXAMPLE_2_DESTINATION = 0x0A00_1201;
    private static final int EXAMPLE_2_ID = 0x718C;

    private final TestIcrc icrc = new TestIcrc();

    @Test
    void shouldComputeWorkedExampleOne()
    {
        final MemorySegment packet = MemorySegment.ofArray(EXAMPLE_1.clone());
        final int value = icrc.generate(
            packet, 0, EXAMPLE_1.length, EXAMPLE_1_ADDRESS, EXAMPLE_1_ADDRESS, 49152, 4791, EXAMPLE_1_ID, true);

        assertEquals(0xF353F378, value);
        assertArrayEquals(HexFormat.of().parseHex("78f353f3"), packet.asSlice(32, 4).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void shouldMatchReferenceMaskedInputOfExampleOne()
    {
        final CRC32 crc = new CRC32();
        crc.update(HexFormat.of().parseHex(
            "ffffffffffffffff45ff0040047840" + "00ff11ffffc0a80007c0a80007" +
            "c00012b7002cffff2460ffffff0000d300cf1710" +
            "4630818be28935d90e9a95505401be885e500000"));

        assertEquals(0xF353F378L, crc.getValue());
    }

    @Test
    void shouldComputeWorkedExampleTwoWithSourcePortZero()
    {
        final MemorySegment packet = MemorySegment.ofArray(EXAMPLE_2.clone());
        icrc.generate(
            packet, 0, EXAMPLE_2.length, EXAMPLE_2_SOURCE, EXAMPLE_2_DESTINATION, 0, 4791, EXAMPLE_2_ID, true);

        assertArrayEquals(HexFormat.of().parseHex("82fd002a"), packet.asSlice(28, 4).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void shouldRecoverHiddenIdentificationOfWorkedExamples()
    {
        final MemorySegment one = MemorySegment.ofArray(EXAMPLE_1.clone());
        icrc.generate(one, 0, EXAMPLE_1.length, EXAMPLE_1_ADDRESS, EXAMPLE_1_ADDRESS, 49152, 4791, EXAMPLE_1_ID, true);
        final MemorySegment two = MemorySegment.ofArray(EXAMPLE_2.clone());
        two.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 28, 0x82FD_002A);

        assertEquals(EXAMPLE_1_ID, icrc.check(
            one, 0, EXAMPLE_1.length, EXAMPLE_1_ADDRESS, EXAMPLE_1_ADDRESS, 49152, 4791, Icrc.UNKNOWN_IP_ID, true));
        assertEquals(EXAMPLE_2_ID, icrc.check(
            two, 0, EXAMPLE_2.length, EXAMPLE_2_SOURCE, EXAMPLE_2_DESTINATION, 0, 4791, Icrc.UNKNOWN_IP_ID, true));
    }

    @Test
    void shouldVerifyEveryCapturedPacketWithItsRealAndHiddenIdentification()
    {
        final List<PcapReader.Datagram> datagrams = Captures.allDatagrams();
        assertEquals(3282, datagrams.size());
        for (final PcapReader.Datagram d : datagrams)
        {
            final MemorySegment packet = MemorySegment.ofArray(d.payload());
            final int length = d.payload().length;
            assertEquals(d.ipId(), check(packet, length, d, d.ipId()), () -> "real ID, frame " + d.frame());
            assertEquals(d.ipId(), check(packet, length, d, Icrc.UNKNOWN_IP_ID), () -> "hidden ID, frame " + d.frame());
        }
    }

    @Test
    void shouldRejectCapturedPacketsWithOneCorruptedByte()
    {
        final List<PcapReader.Datagram> datagrams = Captures.allDatagrams();
        for (int i = 0; i < datagrams.size(); i += 7)
        {
            final PcapReader.Datagram d = datagrams.get(i);
            final byte[] bytes = d.payload().clone();
            // Byte 4 of the BTH (FECN, BECN, reserved) is masked out of the ICRC on purpose: switches may mark it.
            final int index = 5 + (i * 31) % (bytes.length - 5);
            bytes[index] ^= (byte)(1 << (i % 8));
            final MemorySegment packet = MemorySegment.ofArray(bytes);
            final int finalI = index;

            assertEquals(-1, check(packet, bytes.length, d, d.ipId()), () -> "known ID, byte " + finalI);
            final int hidden = check(packet, bytes.length, d, Icrc.UNKNOWN_IP_ID);
            // With the ID unknown only 16 bits of the CRC protect the packet: a corruption may pass as another ID.
            assertTrue(hidden != d.ipId(), () -> "hidden ID, byte " + finalI);
        }
    }

    @Test
    void shouldRefuseWrongKnownIdentification()
    {
        final PcapReader.Datagram d = Captures.allDatagrams().getFirst();
        final MemorySegment packet = MemorySegment.ofArray(d.payload());

        assertEquals(-1, check(packet, d.payload().length, d, (d.ipId() + 1) & 0xFFFF));
    }

    @Test
    void shouldAgreeBetweenByteBufferAndMemorySegmentInAnyOrderAndPlace()
    {
        final PcapReader.Datagram d = Captures.allDatagrams().get(5);
        final int length = d.payload().length;
        final ByteBuffer heap = ByteBuffer.allocate(length + 10).order(ByteOrder.BIG_ENDIAN);
        heap.put(3, d.payload());
        heap.position(1).limit(length + 7);
        final ByteBuffer direct = ByteBuffer.allocateDirect(length + 3).order(ByteOrder.LITTLE_ENDIAN);
        direct.put(3, d.payload());

        final int expected = Icrc.read(MemorySegment.ofArray(d.payload()), 0, length);
        assertEquals(d.ipId(), icrc.check(heap, 3, length, d.sourceAddress(), d.destinationAddress(),
            d.sourcePort(), d.destinationPort(), Icrc.UNKNOWN_IP_ID, d.dontFragment()));
        assertEquals(1, heap.position());
        assertEquals(length + 7, heap.limit());
        assertEquals(expected, icrc.generate(direct, 3, length, d.sourceAddress(), d.destinationAddress(),
            d.sourcePort(), d.destinationPort(), d.ipId(), d.dontFragment()));
        final byte[] written = new byte[length];
        direct.get(3, written);
        assertArrayEquals(d.payload(), written);
    }

    @Test
    void shouldHashPacketsInNativeAndLargerSegments()
    {
        final PcapReader.Datagram d = Captures.allDatagrams().get(9);
        final int length = d.payload().length;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment memory = arena.allocate(length + 100);
            MemorySegment.copy(d.payload(), 0, memory, ValueLayout.JAVA_BYTE, 37, length);

            assertEquals(d.ipId(), icrc.check(memory, 37, length, d.sourceAddress(), d.destinationAddress(),
                d.sourcePort(), d.destinationPort(), Icrc.UNKNOWN_IP_ID, d.dontFragment()));
        }
        final MemorySegment ints = MemorySegment.ofArray(new int[(length + 3) / 4 + 1]);
        MemorySegment.copy(d.payload(), 0, ints, ValueLayout.JAVA_BYTE, 1, length);
        assertEquals(d.ipId(), icrc.check(ints, 1, length, d.sourceAddress(), d.destinationAddress(),
            d.sourcePort(), d.destinationPort(), Icrc.UNKNOWN_IP_ID, d.dontFragment()));
    }

    @Test
    void shouldRecoverEveryIdentificationBit()
    {
        final byte[] bytes = EXAMPLE_1.clone();
        final MemorySegment packet = MemorySegment.ofArray(bytes);
        for (int bit = 0; bit < 16; bit++)
        {
            final int id = (1 << bit) | 0x0101;
            icrc.generate(packet, 0, bytes.length, 1, 2, 3, 4791, id, false);

            assertEquals(id, icrc.check(packet, 0, bytes.length, 1, 2, 3, 4791, Icrc.UNKNOWN_IP_ID, false));
        }
    }

    /**
     * An unknown identification is tried first as the receive path's guess (a segment's place in its GRO run): a
     * right guess is taken as it is, and from a wrong one the solving still finds the sender's, whatever the two.
     */
    @Test
    void shouldTakeARightGuessOfTheIdentificationAndSolveFromAWrongOne()
    {
        final byte[] bytes = EXAMPLE_1.clone();
        final MemorySegment packet = MemorySegment.ofArray(bytes);
        final Icrc checker = new Icrc();
        final int[] identifications = {0, 1, 2, 7, 15, 63, 0x1234, 0xFFFF};
        for (final int id : identifications)
        {
            icrc.generate(packet, 0, bytes.length, 1, 2, 3, 4791, id, true);
            for (final int guess : identifications)
            {
                final PacketInfo info = new PacketInfo().clear().network(1, 3, 2, 4791, Icrc.UNKNOWN_IP_ID)
                    .dontFragment(true).ipIdentificationGuess(guess);

                assertEquals(id, checker.check(packet, 0, bytes.length, info), "sent " + id + ", guessed " + guess);
            }
            final PacketInfo known = new PacketInfo().clear().network(1, 3, 2, 4791, id ^ 1).dontFragment(true)
                .ipIdentificationGuess(id);
            assertEquals(-1, checker.check(packet, 0, bytes.length, known), "a known identification is not a guess");
        }
    }

    private int check(final MemorySegment packet, final int length, final PcapReader.Datagram d, final int ipId)
    {
        return icrc.check(packet, 0, length, d.sourceAddress(), d.destinationAddress(), d.sourcePort(),
            d.destinationPort(), ipId, d.dontFragment());
    }

    @Test
    void shouldMoveAnIcrcFromIdentificationZeroToAnyOther()
    {
        for (final int ipId : new int[] {1, 2, 3, 0x80, 0x100, 0x1234, 0xFFFF})
        {
            final MemorySegment atZero = MemorySegment.ofArray(EXAMPLE_1.clone());
            final MemorySegment atId = MemorySegment.ofArray(EXAMPLE_1.clone());
            final int zero = icrc.generate(
                atZero, 0, EXAMPLE_1.length, EXAMPLE_1_ADDRESS, EXAMPLE_1_ADDRESS, 49152, 4791, 0, true);
            final int other = icrc.generate(
                atId, 0, EXAMPLE_1.length, EXAMPLE_1_ADDRESS, EXAMPLE_1_ADDRESS, 49152, 4791, ipId, true);
            assertEquals(other, zero ^ Icrc.identificationChange(EXAMPLE_1.length, ipId), "identification " + ipId);
        }
        assertEquals(0, Icrc.identificationChange(EXAMPLE_1.length, 0));
        final int[] changes = new int[5];
        Icrc.identificationChanges(EXAMPLE_1.length, 0xFFFE, 5, changes);
        for (int i = 0; i < 5; i++)
        {
            assertEquals(Icrc.identificationChange(EXAMPLE_1.length, (0xFFFE + i) & 0xFFFF), changes[i], "index " + i);
        }
    }

    @Test
    void shouldComputeTheIcrcOfAPacketHeldInTwoPlacesAsOfTheWholePacket()
    {
        // example 1: 12-byte BTH, 4-byte DETH... as bytes: headers 12, payload 18, pad 2, ICRC 4
        final MemorySegment whole = MemorySegment.ofArray(EXAMPLE_1.clone());
        final int expected = icrc.compute(
            whole, 0, EXAMPLE_1.length, EXAMPLE_1_ADDRESS, EXAMPLE_1_ADDRESS, 49152, 4791, EXAMPLE_1_ID, true);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment head = arena.allocate(12);
            MemorySegment.copy(whole, 0, head, 0, 12);
            final MemorySegment payload = arena.allocate(64);
            MemorySegment.copy(whole, 12, payload, 20, 18);
            final int parts = new Icrc().compute(head, 0, 12, payload, 20, 18, 2, EXAMPLE_1_ADDRESS, EXAMPLE_1_ADDRESS,
                49152, 4791, EXAMPLE_1_ID, true);
            assertEquals(expected, parts);
            assertEquals(0xF353F378, parts);
        }
    }
    @Test
    void shouldHashPacketsEitherSideOfTheOneCallSizeAsTheMaskedInputWrittenOut()
    {
        // a small packet is hashed in one CRC call beside its headers, a larger one in two: both must be the CRC
        // of the masked input, whatever the length (RC ACK, UD SEND of 64 bytes, around the 256-byte switch, MTU)
        final CRC32 reference = new CRC32();
        for (final int rest : new int[] {0, 4, 76, 252, 255, 256, 257, 260, 1000, 4096 + 24})
        {
            final int length = BthFlyweight.LENGTH + rest + Icrc.LENGTH;
            final byte[] bytes = new byte[length];
            for (int i = 0; i < length; i++)
            {
                bytes[i] = (byte)(i * 7 + rest);
            }
            final ByteBuffer masked = ByteBuffer.allocate(8 + 20 + 8 + BthFlyweight.LENGTH + rest);
            masked.putLong(-1L)
                .put((byte)0x45).put((byte)0xFF).putShort((short)(28 + length)).putShort((short)0xBEEF)
                .putShort((short)0x4000).put((byte)0xFF).put((byte)17).putShort((short)0xFFFF)
                .putInt(0x7F00_0001).putInt(0x7F00_0002)
                .putShort((short)0xC001).putShort((short)4791).putShort((short)(8 + length)).putShort((short)0xFFFF)
                .put(bytes, 0, BthFlyweight.LENGTH + rest);
            masked.put(8 + 20 + 8 + BthFlyweight.FECN_BECN_OFFSET, (byte)0xFF);
            reference.reset();
            reference.update(masked.array());

            final MemorySegment packet = MemorySegment.ofArray(bytes);
            assertEquals((int)reference.getValue(),
                icrc.generate(packet, 0, length, 0x7F00_0001, 0x7F00_0002, 0xC001, 4791, 0xBEEF, true), "rest " + rest);
            assertEquals(0xBEEF, icrc.check(packet, 0, length, 0x7F00_0001, 0x7F00_0002, 0xC001, 4791,
                Icrc.UNKNOWN_IP_ID, true), "rest " + rest);
        }
    }
}
