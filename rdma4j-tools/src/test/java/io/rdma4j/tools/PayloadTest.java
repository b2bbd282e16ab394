package io.rdma4j.tools;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PayloadTest
{
    @Test
    void shouldRoundTripTheHeader()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buffer = arena.allocate(Payload.HEADER_BYTES);
            final long now = Payload.nowMicros();
            Payload.write(buffer, 42, now, 1000);

            assertTrue(Payload.isPresent(buffer, Payload.HEADER_BYTES));
            assertEquals(42, Payload.sequence(buffer));
            assertEquals(now, Payload.sentMicros(buffer));
            assertEquals(1000, Payload.total(buffer));
            assertEquals('r', buffer.get(ValueLayout.JAVA_BYTE, 0), "big-endian: the marker's first byte first");
        }
    }

    @Test
    void shouldNotTakeABufferWithoutTheMarkerForAHeader()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buffer = arena.allocate(100);
            assertFalse(Payload.isPresent(buffer, 100), "zeroes");
            buffer.fill((byte)0xA5);
            assertFalse(Payload.isPresent(buffer, 100), "a fill pattern");
        }
    }

    @Test
    void shouldNotTakeAHeaderWhoseNumbersDisagreeOrThatIsCutShort()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buffer = arena.allocate(100);
            Payload.write(buffer, 7, 0, 7);
            assertFalse(Payload.isPresent(buffer, 100), "sequence 7 of 7 messages numbered from 0");
            Payload.write(buffer, -1, 0, 7);
            assertFalse(Payload.isPresent(buffer, 100), "a negative sequence");
            Payload.write(buffer, 6, 0, 7);
            assertTrue(Payload.isPresent(buffer, 100));
            assertFalse(Payload.isPresent(buffer, Payload.HEADER_BYTES - 1), "a message shorter than the header");
        }
    }
}
