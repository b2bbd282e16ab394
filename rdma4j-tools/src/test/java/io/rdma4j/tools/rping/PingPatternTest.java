package io.rdma4j.tools.rping;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PingPatternTest
{
    private static byte[] ascii(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void shouldWriteTheHeaderThenLettersFromTheStartAndANul()
    {
        final byte[] expected = new byte[30];
        System.arraycopy(ascii("rdma-ping-0: ABCDEFGHIJKLMNOP"), 0, expected, 0, 29);

        assertArrayEquals(expected, PingPattern.message(0, 'A', 30));
    }

    @Test
    void shouldWrapTheLettersFromZBackToA()
    {
        final byte[] message = PingPattern.message(7, 'x', 26);

        assertEquals("rdma-ping-7: xyzABCDEFGHI", PingPattern.cString(message));
        assertEquals(0, message[25]);
        // the run passes through the punctuation between 'Z' and 'a', as rping's does
        assertEquals("rdma-ping-1: XYZ[\\]^_`abc", PingPattern.cString(PingPattern.message(1, 'X', 26)));
    }

    @Test
    void shouldMoveTheStartOnByOneEachPingAndWrapAfter58()
    {
        assertEquals('A', PingPattern.startFor(0));
        assertEquals('B', PingPattern.startFor(1));
        assertEquals('z', PingPattern.startFor(57));
        assertEquals('A', PingPattern.startFor(58));
        assertTrue(PingPattern.text(58, 40).startsWith("rdma-ping-58: ABC"));
    }

    @Test
    void shouldFillBuffersAsTheClientDoesPingAfterPing()
    {
        final PingPattern pattern = new PingPattern();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buffer = arena.allocate(64);
            for (int ping = 0; ping < 120; ping++)
            {
                pattern.fill(buffer, 64, ping);
                assertArrayEquals(PingPattern.message(ping, PingPattern.startFor(ping), 64),
                    buffer.toArray(ValueLayout.JAVA_BYTE), "ping " + ping);
                assertEquals(PingPattern.text(ping, 64), PingPattern.cString(buffer, 64));
                assertEquals(63, PingPattern.cStringLength(buffer, 64));
            }
        }
    }

    @Test
    void shouldFitTheLongestHeaderInTheSmallestSize()
    {
        final byte[] message = PingPattern.message(Integer.MAX_VALUE, 'A', RpingCommand.MIN_SIZE);

        assertEquals("rdma-ping-2147483647: ABC", PingPattern.cString(message));
    }
}
