package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Every RoCEv2 packet rxe sent or accepted in the captures must parse, agree with the independent decode in
 * decoded/*.tsv, and re-encode from its parsed fields to the same bytes, ICRC included.
 */
class CaptureConformanceTest
{
    private static final Map<String, Integer> OBSERVATIONS = new TreeMap<>();

    private final PacketParser parser = new PacketParser();
    private final PacketBuilder builder = new PacketBuilder();
    private final PacketInfo info = new PacketInfo();

    static List<Path> pcaps()
    {
        return Captures.pcaps();
    }

    @ParameterizedTest
    @MethodSource("pcaps")
    void shouldParseCompareAndReencodeEveryPacket(final Path pcap)
    {
        final List<PcapReader.Datagram> datagrams = Captures.datagrams(pcap);
        final Map<Integer, Map<String, String>> decoded = Captures.decoded(pcap);
        assertEquals(decoded.size(), datagrams.size(), "RoCEv2 packets in " + pcap.getFileName());

        for (final PcapReader.Datagram d : datagrams)
        {
            final String where = pcap.getFileName() + " frame " + d.frame();
            final MemorySegment packet = MemorySegment.ofArray(d.payload());
            info.clear()
                .network(d.sourceAddress(), d.sourcePort(), d.destinationAddress(), d.destinationPort(),
                    Icrc.UNKNOWN_IP_ID)
                .dontFragment(d.dontFragment());

            assertEquals(DropCause.NONE, parser.parse(packet, 0, d.payload().length, info), where);
            assertEquals(d.ipId(), info.ipIdentification(), where);
            final Map<String, String> row = decoded.get(d.frame());
            assertNotNull(row, where);
            compare(row, d, where);
            reencode(d, packet, where);
            observe(d, packet);
        }
    }

    @AfterAll
    static void reportObservations()
    {
        // What the captures hold beyond the decode, for the record.
        OBSERVATIONS.forEach((key, count) -> System.out.println("captures: " + key + " = " + count));
    }

    private void compare(final Map<String, String> row, final PcapReader.Datagram d, final String where)
    {
        assertEquals(number(row, "opcode"), info.opcode().wire(), where);
        assertEquals(number(row, "psn"), info.psn(), where);
        assertEquals(number(row, "dqpn"), info.destQp(), where);
        assertEquals(number(row, "ackreq"), info.ackReq() ? 1 : 0, where);
        assertEquals(number(row, "se"), info.se() ? 1 : 0, where);
        assertEquals(number(row, "m"), info.migReq() ? 1 : 0, where);
        assertEquals(number(row, "pad"), info.padCnt(), where);
        assertEquals(number(row, "tver"), info.tver(), where);
        assertEquals(number(row, "pkey"), info.pkey(), where);
        assertEquals(number(row, "fecn"), info.fecn() ? 1 : 0, where);
        assertEquals(number(row, "becn"), info.becn() ? 1 : 0, where);
        assertEquals(number(row, "payload_len"), info.payloadLength(), where);
        assertEquals(number(row, "icrc_wire"), info.icrc() & 0xFFFF_FFFFL, where);
        assertEquals(number(row, "ipid"), d.ipId(), where);
        assertEquals(number(row, "sport"), d.sourcePort(), where);
        optional(row, "qkey", info.qkey() & 0xFFFF_FFFFL, where);
        optional(row, "sqpn", info.srcQp(), where);
        optional(row, "va", info.va(), where);
        optional(row, "rkey", info.rkey() & 0xFFFF_FFFFL, where);
        optional(row, "dmalen", info.dmaLength(), where);
        optional(row, "syndrome", info.syndrome(), where);
        optional(row, "msn", info.msn(), where);
        optional(row, "swap_add", info.swapAdd(), where);
        optional(row, "compare", info.compare(), where);
        optional(row, "orig", info.orig(), where);
        assertEquals(info.opcode().has(OpcodeMask.DETH), !row.get("qkey").isEmpty(), where);
        assertEquals(info.opcode().has(OpcodeMask.AETH), !row.get("syndrome").isEmpty(), where);
    }

    private void reencode(final PcapReader.Datagram d, final MemorySegment packet, final String where)
    {
        final byte[] copy = new byte[d.payload().length];
        final int length = builder.build(
            info, packet, info.payloadOffset(), info.payloadLength(), MemorySegment.ofArray(copy), 0);

        assertEquals(d.payload().length, length, where);
        assertArrayEquals(d.payload(), copy, where);
    }

    private void observe(final PcapReader.Datagram d, final MemorySegment packet)
    {
        count(info.opcode().name());
        count("ip id " + (d.ipId() == 0 ? "zero" : "non-zero"));
        count("DF " + d.dontFragment());
        count("TOS " + d.tos() + " TTL " + d.ttl());
        count("UDP checksum " + (d.udpChecksum() == 0 ? "zero" : "non-zero"));
        count(String.format("P_Key 0x%04x", info.pkey()));
        count("length % 4 == " + d.payload().length % 4);
        if (info.padCnt() > 0)
        {
            final long pad = info.payloadOffset() + info.payloadLength();
            boolean zero = true;
            for (int i = 0; i < info.padCnt(); i++)
            {
                zero &= packet.get(ValueLayout.JAVA_BYTE, pad + i) == 0;
            }
            count("pad " + info.padCnt() + (zero ? " zero" : " NON-ZERO") + " in " + info.opcode());
        }
        if (info.destQp() == 1)
        {
            count(String.format("QP1 %s Q_Key 0x%08x srcQp %d", info.opcode(), info.qkey(), info.srcQp()));
        }
        if (info.destQp() == BthFlyweight.MULTICAST_QPN)
        {
            count("multicast " + info.opcode());
        }
        assertFalse(info.fecn() || info.becn() || info.migReq());
    }

    private static void count(final String key)
    {
        OBSERVATIONS.merge(key, 1, Integer::sum);
    }

    private static long number(final Map<String, String> row, final String column)
    {
        return Captures.number(row.get(column));
    }

    private static void optional(final Map<String, String> row, final String column, final long actual,
        final String where)
    {
        final String text = row.get(column);
        if (!text.isEmpty())
        {
            assertEquals(Captures.number(text), actual, where + " " + column);
        }
    }
}
