package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PacketBuilderTest
{
    private final PacketBuilder builder = new PacketBuilder();
    private final PacketParser parser = new PacketParser();

    @Test
    void shouldBuildEveryOpcodeSoThatItParsesBackToTheSameFields()
    {
        for (final Opcode opcode : Opcode.values())
        {
            for (int payloadLength = 0; payloadLength <= (opcode.has(OpcodeMask.PAYLOAD) ? 9 : 0); payloadLength++)
            {
                final PacketInfo spec = TestPackets.spec(opcode).becn(opcode == Opcode.CNP);
                final MemorySegment packet = TestPackets.build(spec, payloadLength);
                final PacketInfo info = TestPackets.received(spec);
                final String what = opcode + " payload " + payloadLength;

                assertEquals(DropCause.NONE, parser.parse(packet, 0, (int)packet.byteSize(), info), what);
                assertEquals(TestPackets.IP_ID, info.ipIdentification(), what);
                assertEquals(opcode, info.opcode(), what);
                assertEquals(payloadLength, info.payloadLength(), what);
                assertEquals(PacketBuilder.pad(payloadLength), info.padCnt(), what);
                assertEquals(spec.psn(), info.psn(), what);
                assertEquals(spec.destQp(), info.destQp(), what);
                assertEquals(spec.ackReq(), info.ackReq(), what);
                assertEquals(spec.se(), info.se(), what);
                assertEquals(0xFFFF, info.pkey(), what);
                assertEquals(opcode.has(OpcodeMask.DETH) ? spec.qkey() : 0, info.qkey(), what);
                assertEquals(opcode.has(OpcodeMask.DETH) ? spec.srcQp() : 0, info.srcQp(), what);
                final boolean addressed = opcode.has(OpcodeMask.RETH | OpcodeMask.ATOMIC_ETH);
                assertEquals(addressed ? spec.va() : 0, info.va(), what);
                assertEquals(addressed ? spec.rkey() : 0, info.rkey(), what);
                assertEquals(opcode.has(OpcodeMask.RETH) ? spec.dmaLength() : 0, info.dmaLength(), what);
                assertEquals(opcode.has(OpcodeMask.AETH) ? spec.msn() : 0, info.msn(), what);
                assertEquals(opcode.has(OpcodeMask.AETH) ? spec.syndrome() : 0, info.syndrome(), what);
                assertEquals(opcode.has(OpcodeMask.IMMDT) ? spec.immediate() : 0, info.immediate(), what);
                assertEquals(opcode.has(OpcodeMask.IETH) ? spec.invalidateRkey() : 0, info.invalidateRkey(), what);
                assertEquals(opcode.has(OpcodeMask.ATOMIC_ETH) ? spec.swapAdd() : 0, info.swapAdd(), what);
                assertEquals(opcode.has(OpcodeMask.ATOMIC_ETH) ? spec.compare() : 0, info.compare(), what);
                assertEquals(opcode.has(OpcodeMask.ATOMIC_ACK_ETH) ? spec.orig() : 0, info.orig(), what);
                assertEquals(opcode.has(OpcodeMask.FETH) ? spec.feth() : 0, info.feth(), what);
                for (int i = 0; i < info.padCnt(); i++)
                {
                    assertEquals(0, packet.get(ValueLayout.JAVA_BYTE, info.payloadOffset() + payloadLength + i));
                }
            }
        }
    }

    @Test
    void shouldBuildTheCnpOfWorkedExampleTwo()
    {
        final PacketInfo spec = new PacketInfo()
            .network(0x0A00_1101, 0, 0x0A00_1201, 4791, 0x718C)
            .opcode(Opcode.CNP)
            .becn(true)
            .destQp(0x118);
        final MemorySegment packet = MemorySegment.ofArray(new byte[64]);
        packet.fill((byte)0x5A);

        assertEquals(32, builder.build(spec, 0, packet, 0));
        assertArrayEquals(
            HexFormat.of().parseHex("8100ffff4000011800000000" + "00".repeat(16) + "82fd002a"),
            packet.asSlice(0, 32).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void shouldUsePayloadAlreadyInPlace()
    {
        final PacketInfo spec = TestPackets.spec(Opcode.UD_SEND_ONLY);
        final MemorySegment expected = TestPackets.build(spec, 5);
        final MemorySegment packet = MemorySegment.ofArray(new byte[(int)expected.byteSize() + 8]);
        packet.fill((byte)-1);
        MemorySegment.copy(expected, 20, packet, 4 + 20, 5);

        assertEquals(expected.byteSize(), builder.build(spec, 5, packet, 4));
        assertArrayEquals(expected.toArray(ValueLayout.JAVA_BYTE),
            packet.asSlice(4, expected.byteSize()).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void shouldComputeLengthWithPad()
    {
        assertEquals(20 + 5 + 3 + 4, PacketBuilder.length(Opcode.UD_SEND_ONLY, 5));
        assertEquals(16 + 4, PacketBuilder.length(Opcode.RC_ACKNOWLEDGE, 0));
        assertEquals(0, PacketBuilder.pad(1024));
        assertEquals(2, PacketBuilder.pad(102));
    }

    @Test
    void shouldRefuseSpecsThatCannotBeSent()
    {
        final MemorySegment packet = MemorySegment.ofArray(new byte[64]);

        assertThrows(IllegalArgumentException.class,
            () -> builder.build(TestPackets.spec(Opcode.RC_ACKNOWLEDGE), 4, packet, 0));
        assertThrows(IllegalArgumentException.class,
            () -> builder.build(TestPackets.spec(Opcode.RC_SEND_ONLY).ipIdentification(-1), 0, packet, 0));
        assertThrows(IllegalArgumentException.class, () -> builder.build(new PacketInfo().ipIdentification(0), 0,
            packet, 0));
    }
}
