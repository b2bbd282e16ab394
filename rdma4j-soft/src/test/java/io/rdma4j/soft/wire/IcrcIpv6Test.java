package io.rdma4j.soft.wire;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ICRC over IPv6: the masked pseudo-header written out byte by byte, as RoCEv2 (Annex A17) and
 * rxe_icrc.c define it, against what {@link Icrc} hashes.
 */
class IcrcIpv6Test
{
    // UD SEND_ONLY to QP 0x12 with Q_Key 0x11111111 from QP 0x34, 4 payload bytes, 0 pad, ICRC slot zeroed.
    private static final byte[] PACKET = HexFormat.of().parseHex(
        "64c0ffff000000120000002a" + "1111111100000034" + "cafebabe" + "00000000");
    private static final String SOURCE = "fd770000000000000000000000000011";
    private static final String DESTINATION = "fd770000000000000000000000000001";
    private static final long SOURCE_HIGH = 0xfd77_0000_0000_0000L;
    private static final long SOURCE_LOW = 0x11L;
    private static final long DESTINATION_HIGH = 0xfd77_0000_0000_0000L;
    private static final long DESTINATION_LOW = 0x1L;

    private final TestIcrc icrc = new TestIcrc();

    @Test
    void shouldHashTheMaskedIpv6PseudoHeader()
    {
        // UDP length = 8 + 28 = 36 = 0x24, the IPv6 payload length the same
        final CRC32 crc = new CRC32();
        crc.update(HexFormat.of().parseHex(
            "ffffffffffffffff" +                          // the masked LRH
            "6fffffff" + "0024" + "11" + "ff" +           // version 6; class, flow label, hop limit all ones
            SOURCE + DESTINATION +
            "c000" + "12b7" + "0024" + "ffff" +           // ports 49152 -> 4791, length, checksum masked
            "64c0ffff" + "ff000012" + "0000002a" +         // BTH, its FECN/BECN/reserved byte masked
            "1111111100000034" + "cafebabe"));

        final int value = icrc.computeIpv6(MemorySegment.ofArray(PACKET.clone()), 0, PACKET.length,
            SOURCE_HIGH, SOURCE_LOW, DESTINATION_HIGH, DESTINATION_LOW, 49152, 4791);

        assertEquals((int)crc.getValue(), value);
    }

    @Test
    void shouldCheckWhatItGeneratedAndNothingWithOtherAddresses()
    {
        final MemorySegment packet = MemorySegment.ofArray(PACKET.clone());
        icrc.generateIpv6(packet, 0, PACKET.length, SOURCE_HIGH, SOURCE_LOW, DESTINATION_HIGH, DESTINATION_LOW,
            49152, 4791);

        assertTrue(icrc.checkIpv6(packet, 0, PACKET.length, SOURCE_HIGH, SOURCE_LOW, DESTINATION_HIGH,
            DESTINATION_LOW, 49152, 4791));
        assertFalse(icrc.checkIpv6(packet, 0, PACKET.length, SOURCE_HIGH, SOURCE_LOW + 1, DESTINATION_HIGH,
            DESTINATION_LOW, 49152, 4791), "another source");
        assertFalse(icrc.checkIpv6(packet, 0, PACKET.length, SOURCE_HIGH, SOURCE_LOW, DESTINATION_HIGH ^ 1L << 63,
            DESTINATION_LOW, 49152, 4791), "another destination");
        assertFalse(icrc.checkIpv6(packet, 0, PACKET.length, SOURCE_HIGH, SOURCE_LOW, DESTINATION_HIGH,
            DESTINATION_LOW, 49153, 4791), "another source port");
        assertFalse(icrc.checkIpv6(packet, 0, 3, SOURCE_HIGH, SOURCE_LOW, DESTINATION_HIGH, DESTINATION_LOW,
            49152, 4791), "too short");
    }

    @Test
    void shouldDifferFromTheIpv4IcrcOfTheMappedAddresses()
    {
        // an IPv6 peer and an IPv4 peer with "the same" address (::ffff:a.b.c.d) cover different headers
        final MemorySegment packet = MemorySegment.ofArray(PACKET.clone());
        final int v6 = icrc.computeIpv6(packet, 0, PACKET.length, 0, 0xFFFF_0A4D_0001L, 0, 0xFFFF_0A4D_0002L,
            49152, 4791);
        final int v4 = icrc.compute(packet, 0, PACKET.length, 0x0A4D_0001, 0x0A4D_0002, 49152, 4791, 0, true);
        assertNotEquals(v4, v6);
    }

    @Test
    void shouldDispatchOnThePacketsFamily()
    {
        final MemorySegment packet = MemorySegment.ofArray(PACKET.clone());
        final PacketInfo info = new PacketInfo().networkIpv6(SOURCE_HIGH, SOURCE_LOW, 49152, DESTINATION_HIGH,
            DESTINATION_LOW, 4791);
        final Icrc byPacket = new Icrc();
        final int written = byPacket.generate(packet, 0, PACKET.length, info);
        assertEquals(icrc.computeIpv6(packet, 0, PACKET.length, SOURCE_HIGH, SOURCE_LOW, DESTINATION_HIGH,
            DESTINATION_LOW, 49152, 4791), written);
        assertEquals(0, byPacket.check(packet, 0, PACKET.length, info));
        info.network(1, 49152, 2, 4791, 0);
        assertEquals(-1, byPacket.check(packet, 0, PACKET.length, info), "checked as IPv4 it does not match");
    }
    @Test
    void shouldHashPacketsEitherSideOfTheOneCallSizeAsTheMaskedInputWrittenOut()
    {
        final CRC32 reference = new CRC32();
        for (final int rest : new int[] {0, 8, 255, 256, 257, 1000})
        {
            final int length = BthFlyweight.LENGTH + rest + Icrc.LENGTH;
            final byte[] bytes = new byte[length];
            for (int i = 0; i < length; i++)
            {
                bytes[i] = (byte)(i * 13 + rest);
            }
            final ByteBuffer masked = ByteBuffer.allocate(8 + 40 + 8 + BthFlyweight.LENGTH + rest);
            masked.putLong(-1L).putInt(0x6FFF_FFFF).putShort((short)(8 + length)).put((byte)17).put((byte)0xFF)
                .putLong(SOURCE_HIGH).putLong(SOURCE_LOW).putLong(DESTINATION_HIGH).putLong(DESTINATION_LOW)
                .putShort((short)49152).putShort((short)4791).putShort((short)(8 + length)).putShort((short)0xFFFF)
                .put(bytes, 0, BthFlyweight.LENGTH + rest);
            masked.put(8 + 40 + 8 + BthFlyweight.FECN_BECN_OFFSET, (byte)0xFF);
            reference.reset();
            reference.update(masked.array());

            assertEquals((int)reference.getValue(), icrc.computeIpv6(MemorySegment.ofArray(bytes), 0, length,
                SOURCE_HIGH, SOURCE_LOW, DESTINATION_HIGH, DESTINATION_LOW, 49152, 4791), "rest " + rest);
        }
    }
}
