package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

/**
 * Builds valid packets for tests and re-seals mutated ones with a correct ICRC.
 */
final class TestPackets
{
    static final int SOURCE = 0x0A4D_000C;
    static final int DESTINATION = 0x0A4D_000B;
    static final int SOURCE_PORT = 0xC123;
    static final int IP_ID = 0x6667;

    private TestPackets()
    {
    }

    /** A spec with rxe's defaults, our addressing, and a value in every field. */
    static PacketInfo spec(final Opcode opcode)
    {
        return new PacketInfo()
            .network(SOURCE, SOURCE_PORT, DESTINATION, PcapReader.ROCE_V2_PORT, IP_ID)
            .opcode(opcode)
            .destQp(0x12)
            .psn(0x9F0001)
            .ackReq(opcode.has(OpcodeMask.END) && opcode.has(OpcodeMask.RC))
            .se(opcode.has(OpcodeMask.COMPLETES))
            .qkey(0x11111111)
            .srcQp(0x1A)
            .va(0x5577_4612_7000L)
            .rkey(0x136A)
            .dmaLength(2048)
            .syndrome(0x1F)
            .msn(7)
            .immediate(0xDEADBEEF)
            .invalidateRkey(0x2468)
            .swapAdd(1)
            .compare(2)
            .orig(0xF112_7820_4126_2E9CL)
            .feth(0x11);
    }

    /** A packet as a fresh array-backed segment of exactly its length. */
    static MemorySegment build(final PacketInfo spec, final int payloadLength)
    {
        final byte[] payload = new byte[payloadLength];
        for (int i = 0; i < payloadLength; i++)
        {
            payload[i] = (byte)(i * 7 + 1);
        }
        final int length = PacketBuilder.length(spec.opcode(), payloadLength);
        final MemorySegment packet = MemorySegment.ofArray(new byte[length]);
        new PacketBuilder().build(spec, MemorySegment.ofArray(payload), packet, 0);
        return packet;
    }

    /** Recompute the ICRC after a mutation, with the spec's addressing. */
    static void reseal(final MemorySegment packet, final PacketInfo network)
    {
        new Icrc().generate(packet, 0, (int)packet.byteSize(), network);
    }

    /** A receiver's view of the spec's addressing, identification unseen. */
    static PacketInfo received(final PacketInfo network)
    {
        return new PacketInfo()
            .network(network.sourceAddress(), network.sourcePort(), network.destinationAddress(),
                network.destinationPort(), Icrc.UNKNOWN_IP_ID)
            .dontFragment(network.dontFragment());
    }
}
