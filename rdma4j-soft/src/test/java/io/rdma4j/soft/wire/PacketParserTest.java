package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PacketParserTest
{
    private final PacketParser parser = new PacketParser();
    private final PacketInfo spec = TestPackets.spec(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE);
    private final PacketInfo info = TestPackets.received(spec);

    @Test
    void shouldAcceptValidPacketAndRecoverIdentification()
    {
        final MemorySegment packet = TestPackets.build(spec, 6);

        assertEquals(DropCause.NONE, parse(packet));
        assertEquals(TestPackets.IP_ID, info.ipIdentification());
        assertEquals(24, info.payloadOffset());
        assertEquals(6, info.payloadLength());
        assertEquals(2, info.padCnt());
        assertEquals(packet.byteSize(), info.length());
    }

    @Test
    void shouldDecodeEveryBthAndDethFieldFromItsOwnBits()
    {
        // each field a value whose bits reach its edges, and each flag the opposite of its neighbour, so that a
        // shift or mask off by one lands a bit in the wrong field
        final PacketInfo fields = TestPackets.spec(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE)
            .se(true).migReq(false).pkey(0xFFFF).fecn(true).becn(false).destQp(0xFE_DCBA).ackReq(true)
            .psn(0x80_0001).qkey(0x8765_4321).srcQp(0xC0_FFEE);
        assertEquals(DropCause.NONE, parse(TestPackets.build(fields, 5)));
        assertEquals(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, info.opcode());
        assertTrue(info.se());
        assertFalse(info.migReq());
        assertEquals(3, info.padCnt());
        assertEquals(0, info.tver());
        assertEquals(0xFFFF, info.pkey());
        assertTrue(info.fecn());
        assertFalse(info.becn());
        assertEquals(0xFE_DCBA, info.destQp());
        assertTrue(info.ackReq());
        assertEquals(0x80_0001, info.psn());
        assertEquals(0x8765_4321, info.qkey());
        assertEquals(0xC0_FFEE, info.srcQp());

        final PacketInfo flipped = TestPackets.spec(Opcode.UD_SEND_ONLY)
            .se(false).migReq(true).pkey(0x7FFF).fecn(false).becn(true).destQp(1).ackReq(false).psn(0xFF_FFFF)
            .qkey(1).srcQp(0xFF_FFFF);
        assertEquals(DropCause.NONE, parse(TestPackets.build(flipped, 4)));
        assertEquals(Opcode.UD_SEND_ONLY, info.opcode());
        assertFalse(info.se());
        assertTrue(info.migReq());
        assertEquals(0, info.padCnt());
        assertEquals(0x7FFF, info.pkey());
        assertFalse(info.fecn());
        assertTrue(info.becn());
        assertEquals(1, info.destQp());
        assertFalse(info.ackReq());
        assertEquals(0xFF_FFFF, info.psn());
        assertEquals(1, info.qkey());
        assertEquals(0xFF_FFFF, info.srcQp());
    }

    @Test
    void shouldSetEveryFieldOnAcceptanceWhateverTheDescriptionHeldBefore() throws ReflectiveOperationException
    {
        // the receive path reuses one description without clearing it: the addressing and an accepted parse must
        // leave nothing of the packet before, whatever that was
        final Field[] fields = PacketInfo.class.getDeclaredFields();
        for (final Field field : fields)
        {
            field.setAccessible(true);
        }
        int accepted = 0;
        for (final Opcode opcode : Opcode.values())
        {
            final PacketInfo packetSpec = TestPackets.spec(opcode);
            final MemorySegment packet = TestPackets.build(packetSpec, opcode.has(OpcodeMask.PAYLOAD) ? 8 : 0);
            final PacketInfo fresh = TestPackets.received(packetSpec);
            if (parser.parseHeaders(packet, 0, (int)packet.byteSize(), fresh) != DropCause.NONE)
            {
                continue;
            }
            final PacketInfo reused = new PacketInfo();
            for (final Field field : fields)
            {
                if (!Modifier.isStatic(field.getModifiers()))
                {
                    field.set(reused, junk(field.getType()));
                }
            }
            reused.network(packetSpec.sourceAddress(), packetSpec.sourcePort(), packetSpec.destinationAddress(),
                packetSpec.destinationPort(), Icrc.UNKNOWN_IP_ID).dontFragment(packetSpec.dontFragment());
            assertEquals(DropCause.NONE, parser.parseHeaders(packet, 0, (int)packet.byteSize(), reused));
            for (final Field field : fields)
            {
                if (!Modifier.isStatic(field.getModifiers()))
                {
                    assertEquals(field.get(fresh), field.get(reused), opcode + ": " + field.getName());
                }
            }
            accepted++;
        }
        assertTrue(accepted > 20, "opcodes accepted: " + accepted);
    }

    private static Object junk(final Class<?> type)
    {
        if (type == boolean.class)
        {
            return true;
        }
        if (type == int.class)
        {
            return 0x5A5A_5A5A;
        }
        if (type == long.class)
        {
            return 0x5A5A_5A5A_5A5A_5A5AL;
        }
        if (type == Opcode.class)
        {
            return Opcode.RC_FETCH_ADD;
        }
        return MemorySegment.ofArray(new byte[64]);
    }

    @Test
    void shouldRefuseTooShortPacketsAndBadBoundsWithoutThrowing()
    {
        final MemorySegment packet = TestPackets.build(spec, 0);

        assertEquals(DropCause.TOO_SHORT, parser.parse(packet, 0, 15, info));
        assertEquals(DropCause.TOO_SHORT, parser.parse(packet, 0, -1, info));
        assertEquals(DropCause.TOO_SHORT, parser.parse(packet, -1, 20, info));
        assertEquals(DropCause.TOO_SHORT, parser.parse(packet, 20, 20, info));
        assertEquals(DropCause.TOO_SHORT, parser.parse(packet, Long.MAX_VALUE, 16, info));
        assertEquals(DropCause.TOO_SHORT, parser.parse(null, 0, 16, info));
        assertEquals(DropCause.HEADER_TRUNCATED, parser.parse(packet, 0, 27, info));
    }

    @Test
    void shouldRefuseUnknownOpcodes()
    {
        final MemorySegment packet = TestPackets.build(spec, 4);
        final Set<Integer> known = new HashSet<>();
        Arrays.stream(Opcode.values()).forEach(o -> known.add(o.wire()));
        for (int wire = 0; wire < 256; wire++)
        {
            packet.set(ValueLayout.JAVA_BYTE, 0, (byte)wire);
            TestPackets.reseal(packet, spec);
            final DropCause cause = parse(packet);

            assertEquals(known.contains(wire), cause != DropCause.UNKNOWN_OPCODE, "opcode " + wire);
        }
    }

    @Test
    void shouldRefuseBrokenBthFieldsEvenWithAValidIcrc()
    {
        assertCause(DropCause.BAD_TRANSPORT_VERSION, new BthFlyweight().wrap(build(), 0).tver(1).segment());
        assertCause(DropCause.BAD_QPN, new BthFlyweight().wrap(build(), 0).destQp(0).segment());
        assertCause(DropCause.BAD_PKEY, new BthFlyweight().wrap(build(), 0).pkey(0xFFFE).segment());
        assertCause(DropCause.BAD_PKEY, new BthFlyweight().wrap(build(), 0).pkey(0x8000).segment());
        assertCause(DropCause.NONE, new BthFlyweight().wrap(build(), 0).pkey(0x7FFF).segment());
        assertCause(DropCause.BAD_TRANSPORT_VERSION,
            new BthFlyweight().wrap(build(), 0).tver(15).pkey(0).destQp(0).segment());
    }

    @Test
    void shouldRefusePadLongerThanWhatFollowsTheHeaders()
    {
        final PacketInfo ack = TestPackets.spec(Opcode.RC_ACKNOWLEDGE);
        final MemorySegment packet = TestPackets.build(ack, 0);
        new BthFlyweight().wrap(packet, 0).padCnt(1);
        TestPackets.reseal(packet, ack);

        assertEquals(DropCause.BAD_PAD, parser.parse(packet, 0, (int)packet.byteSize(), TestPackets.received(ack)));
    }

    @Test
    void shouldAcceptNonZeroPadBytesAsRxeDoes()
    {
        final MemorySegment packet = TestPackets.build(spec, 1);
        packet.set(ValueLayout.JAVA_BYTE, 25, (byte)0x77);
        TestPackets.reseal(packet, spec);

        assertEquals(DropCause.NONE, parse(packet));
        assertEquals(1, info.payloadLength());
    }

    @Test
    void shouldRefuseIcrcMismatchAndWrongKnownIdentification()
    {
        final MemorySegment packet = TestPackets.build(spec, 8);
        assertEquals(DropCause.NONE, parser.parse(packet, 0, (int)packet.byteSize(),
            TestPackets.received(spec).ipIdentification(TestPackets.IP_ID)));
        assertEquals(DropCause.ICRC_MISMATCH, parser.parse(packet, 0, (int)packet.byteSize(),
            TestPackets.received(spec).ipIdentification(0)));
        assertEquals(DropCause.ICRC_MISMATCH, parser.parse(packet, 0, (int)packet.byteSize(),
            TestPackets.received(spec).sourcePort(1)));

        packet.set(ValueLayout.JAVA_BYTE, 30, (byte)0x55);
        assertEquals(DropCause.ICRC_MISMATCH, parse(packet));
        assertEquals(Icrc.UNKNOWN_IP_ID, info.ipIdentification());
    }

    @Test
    void shouldAcceptFecnAndBecnChangedInFlightWithoutResealing()
    {
        final MemorySegment packet = TestPackets.build(spec, 8);
        new BthFlyweight().wrap(packet, 0).fecn(true).becn(true);

        assertEquals(DropCause.NONE, parse(packet));
        assertTrue(info.fecn());
        assertTrue(info.becn());
    }

    @Test
    void shouldAcceptCnpWhichIsNeitherRequestNorResponse()
    {
        final PacketInfo cnp = TestPackets.spec(Opcode.CNP).becn(true);
        final MemorySegment packet = TestPackets.build(cnp, 0);
        final PacketInfo received = TestPackets.received(cnp);

        assertEquals(DropCause.NONE, parser.parse(packet, 0, (int)packet.byteSize(), received));
        assertFalse(received.has(OpcodeMask.REQUEST | OpcodeMask.ACK));
        assertTrue(received.has(OpcodeMask.CNP));
    }

    @Test
    void shouldClearFieldsOfHeadersThePacketLacks()
    {
        final PacketInfo atomic = TestPackets.spec(Opcode.RC_COMPARE_SWAP);
        final MemorySegment first = TestPackets.build(atomic, 0);
        final PacketInfo received = TestPackets.received(atomic);
        assertEquals(DropCause.NONE, parser.parse(first, 0, (int)first.byteSize(), received));
        assertEquals(atomic.swapAdd(), received.swapAdd());

        final PacketInfo send = TestPackets.spec(Opcode.RC_SEND_MIDDLE);
        final MemorySegment second = TestPackets.build(send, 8);
        received.ipIdentification(Icrc.UNKNOWN_IP_ID);
        assertEquals(DropCause.NONE, parser.parse(second, 0, (int)second.byteSize(), received));
        assertEquals(0, received.va());
        assertEquals(0, received.rkey());
        assertEquals(0, received.swapAdd());
        assertEquals(0, received.compare());
        assertEquals(0, received.qkey());
        assertEquals(0, received.msn());
    }

    private MemorySegment build()
    {
        return TestPackets.build(spec, 4);
    }

    private void assertCause(final DropCause expected, final MemorySegment packet)
    {
        TestPackets.reseal(packet, spec);
        assertEquals(expected, parse(packet));
    }

    private DropCause parse(final MemorySegment packet)
    {
        info.ipIdentification(Icrc.UNKNOWN_IP_ID);
        return parser.parse(packet, 0, (int)packet.byteSize(), info);
    }
}
