package io.rdma4j.tools.rping;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class RpingAdvertTest
{
    @Test
    void shouldLayOutAddressRkeyAndLengthBigEndian()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment wire = arena.allocate(RpingAdvert.BYTES);
            new RpingAdvert(0x0000_7f12_3456_7890L, 0xAABBCCDD, 100).writeTo(wire);

            assertArrayEquals(new byte[] {
                0x00, 0x00, 0x7f, 0x12, 0x34, 0x56, 0x78, (byte)0x90,
                (byte)0xAA, (byte)0xBB, (byte)0xCC, (byte)0xDD,
                0x00, 0x00, 0x00, 0x64 }, wire.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void shouldReadBackWhatWasWritten()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment wire = arena.allocate(RpingAdvert.BYTES);
            final RpingAdvert advert = new RpingAdvert(-2L, 0x80000001, 65535);
            advert.writeTo(wire);

            assertEquals(advert, RpingAdvert.readFrom(wire));
            assertEquals(16, RpingAdvert.BYTES);
        }
    }
}
