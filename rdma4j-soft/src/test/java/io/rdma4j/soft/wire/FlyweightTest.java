package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlyweightTest
{
    private static final int AT = 3;

    private final MemorySegment memory = MemorySegment.ofArray(new byte[64]);

    @Test
    void shouldWriteBthBigEndianWithEveryFieldInItsBits()
    {
        new BthFlyweight().wrap(memory, AT)
            .opcode(0x65)
            .se(true)
            .migReq(true)
            .padCnt(2)
            .tver(0)
            .pkey(0xFFFF)
            .fecn(false)
            .becn(true)
            .destQp(0xABCDEF)
            .ackReq(true)
            .psn(0x123456);

        assertArrayEquals(HexFormat.of().parseHex("65e0ffff40abcdef80123456"), bytes(AT, BthFlyweight.LENGTH));
    }

    @Test
    void shouldKeepNeighbouringBitsWhenSettingBthFields()
    {
        final BthFlyweight bth = new BthFlyweight().wrap(memory, AT);
        bth.flags(0xFF).pkey(0).destQp(0).psn(0).fecn(true).becn(true).ackReq(true);
        bth.padCnt(1).tver(3).psn(0xFFFFFFFF).destQp(0x1000001);

        assertTrue(bth.se());
        assertTrue(bth.migReq());
        assertEquals(1, bth.padCnt());
        assertEquals(3, bth.tver());
        assertTrue(bth.fecn());
        assertTrue(bth.becn());
        assertTrue(bth.ackReq());
        assertEquals(0xFFFFFF, bth.psn());
        assertEquals(1, bth.destQp());
        assertEquals(0xFFFFFF, BthFlyweight.psn(memory, AT));
        assertEquals(1, BthFlyweight.destQp(memory, AT));
        bth.se(false).migReq(false).fecn(false).ackReq(false);
        assertFalse(bth.se());
        assertFalse(bth.migReq());
        assertFalse(bth.fecn());
        assertTrue(bth.becn());
        assertFalse(bth.ackReq());
    }

    @Test
    void shouldRoundTripExtensionHeaders()
    {
        final DethFlyweight deth = new DethFlyweight().wrap(memory, AT).qkey(0x80010000).srcQp(0x1FFFFFF);
        assertEquals(0x80010000, deth.qkey());
        assertEquals(0xFFFFFF, deth.srcQp());
        assertArrayEquals(HexFormat.of().parseHex("8001000000ffffff"), bytes(AT, DethFlyweight.LENGTH));

        final RethFlyweight reth = new RethFlyweight().wrap(memory, AT).va(0x0102030405060708L).rkey(-2)
            .dmaLength(0xFFFFFFF0L);
        assertEquals(0x0102030405060708L, reth.va());
        assertEquals(-2, reth.rkey());
        assertEquals(0xFFFFFFF0L, reth.dmaLength());
        assertArrayEquals(HexFormat.of().parseHex("0102030405060708fffffffefffffff0"), bytes(AT, 16));

        final AethFlyweight aeth = new AethFlyweight().wrap(memory, AT).syndrome(0x2C).msn(0x1234567);
        aeth.syndrome(0x60);
        assertEquals(0x60, aeth.syndrome());
        assertEquals(0x234567, aeth.msn());
        assertEquals(0x60234567, aeth.word());

        assertEquals(0xCAFEBABE, new ImmDtFlyweight().wrap(memory, AT).immediate(0xCAFEBABE).immediate());
        assertArrayEquals(HexFormat.of().parseHex("cafebabe"), bytes(AT, 4));
        assertEquals(7, new IethFlyweight().wrap(memory, AT).rkey(7).rkey());

        final AtomicEthFlyweight atomic = new AtomicEthFlyweight().wrap(memory, AT)
            .va(1L).rkey(2).swapAdd(-3L).compare(Long.MIN_VALUE);
        assertEquals(1L, atomic.va());
        assertEquals(2, atomic.rkey());
        assertEquals(-3L, atomic.swapAdd());
        assertEquals(Long.MIN_VALUE, atomic.compare());
        assertEquals((byte)0x80, memory.get(ValueLayout.JAVA_BYTE, AT + AtomicEthFlyweight.COMPARE_OFFSET));

        assertEquals(0x1122334455667788L,
            new AtomicAckEthFlyweight().wrap(memory, AT).orig(0x1122334455667788L).orig());
        assertArrayEquals(HexFormat.of().parseHex("1122334455667788"), bytes(AT, 8));
    }

    private byte[] bytes(final long offset, final int length)
    {
        return memory.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }
}
