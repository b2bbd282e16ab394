package io.rdma4j.soft.cm.mad;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The receiver's first filter runs on whatever arrives on QP1, so it must answer, never throw, for any bytes,
 * offset and length, and must accept exactly the CM MADs it can parse.
 */
class CmMadLooksLikeCmTest
{
    private static byte[] cmMad(final int extra)
    {
        final byte[] bytes = new byte[CmMad.MAD_LENGTH + extra];
        new CmMad().wrap(MemorySegment.ofArray(bytes), 0).initHeader(CmMad.ATTR_REQ, 1);
        return bytes;
    }

    /** What the filter should say, worked out on the array rather than the segment. */
    private static boolean expected(final byte[] bytes, final long offset, final int length)
    {
        if (offset < 0 || length < CmMad.MAD_LENGTH || offset + CmMad.MAD_LENGTH > bytes.length)
        {
            return false;
        }
        final int at = (int)offset;
        return bytes[at] == 1 && bytes[at + 1] == 0x07 && bytes[at + 2] == 2;
    }

    @Property(tries = 3000)
    void shouldNeverThrowOnRandomBytes(
        @ForAll @Size(max = 600) final byte[] bytes,
        @ForAll @LongRange(min = -8, max = 620) final long offset,
        @ForAll @IntRange(min = -8, max = 700) final int length)
    {
        assertEquals(expected(bytes, offset, length), CmMad.looksLikeCm(MemorySegment.ofArray(bytes), offset, length));
    }

    @Property(tries = 2000)
    void shouldAcceptCmHeadersAnywhereTheyFit(
        @ForAll @IntRange(min = 0, max = 40) final int offset,
        @ForAll @IntRange(min = 0, max = 40) final int slack,
        @ForAll @IntRange(min = -300, max = 300) final int lengthDelta,
        @ForAll final byte baseVersion,
        @ForAll final byte mgmtClass,
        @ForAll final byte classVersion,
        @ForAll final boolean corrupt)
    {
        final byte[] bytes = new byte[offset + CmMad.MAD_LENGTH + slack];
        new CmMad().wrap(MemorySegment.ofArray(bytes), offset).initHeader(CmMad.ATTR_SIDR_REQ, -1L);
        if (corrupt)
        {
            bytes[offset] = baseVersion;
            bytes[offset + 1] = mgmtClass;
            bytes[offset + 2] = classVersion;
        }
        final int length = CmMad.MAD_LENGTH + lengthDelta;

        assertEquals(expected(bytes, offset, length), CmMad.looksLikeCm(MemorySegment.ofArray(bytes), offset, length));
    }

    @Test
    void shouldRefuseEveryTruncationOfACmMad()
    {
        final byte[] whole = cmMad(0);
        for (int size = 0; size < CmMad.MAD_LENGTH; size++)
        {
            final MemorySegment truncated = MemorySegment.ofArray(whole).asSlice(0, size);
            assertFalse(CmMad.looksLikeCm(truncated, 0, CmMad.MAD_LENGTH), "a segment of " + size);
            assertFalse(CmMad.looksLikeCm(truncated, 0, size), "a length of " + size);
            assertFalse(CmMad.looksLikeCm(MemorySegment.ofArray(whole), 0, size), "a claimed length of " + size);
        }
        assertTrue(CmMad.looksLikeCm(MemorySegment.ofArray(whole), 0, CmMad.MAD_LENGTH));
        assertTrue(CmMad.looksLikeCm(MemorySegment.ofArray(whole), 0, Integer.MAX_VALUE),
            "a length longer than the segment is the caller's claim; the segment bounds decide");
    }

    @Test
    void shouldRefuseOtherClassesAndVersions()
    {
        final byte[] bytes = cmMad(0);
        final MemorySegment segment = MemorySegment.ofArray(bytes);
        bytes[2] = 1;
        assertFalse(CmMad.looksLikeCm(segment, 0, CmMad.MAD_LENGTH), "CM class version 1");
        bytes[2] = 2;
        bytes[1] = 0x03;
        assertFalse(CmMad.looksLikeCm(segment, 0, CmMad.MAD_LENGTH), "subnet administration");
        bytes[1] = 0x07;
        bytes[0] = (byte)0x80;
        assertFalse(CmMad.looksLikeCm(segment, 0, CmMad.MAD_LENGTH), "an OPA base version");
        bytes[0] = 1;
        assertTrue(CmMad.looksLikeCm(segment, 0, CmMad.MAD_LENGTH));
    }

    @Test
    void shouldRefuseAbsurdArguments()
    {
        final MemorySegment segment = MemorySegment.ofArray(cmMad(8));
        assertFalse(CmMad.looksLikeCm(null, 0, CmMad.MAD_LENGTH));
        assertFalse(CmMad.looksLikeCm(MemorySegment.NULL, 0, CmMad.MAD_LENGTH));
        assertFalse(CmMad.looksLikeCm(segment, -1, CmMad.MAD_LENGTH));
        assertFalse(CmMad.looksLikeCm(segment, Long.MIN_VALUE, CmMad.MAD_LENGTH));
        assertFalse(CmMad.looksLikeCm(segment, Long.MAX_VALUE, CmMad.MAD_LENGTH));
        assertFalse(CmMad.looksLikeCm(segment, Long.MAX_VALUE - 100, Integer.MAX_VALUE));
        assertFalse(CmMad.looksLikeCm(segment, 9, CmMad.MAD_LENGTH));
        assertFalse(CmMad.looksLikeCm(segment, 0, Integer.MIN_VALUE));
        assertTrue(CmMad.looksLikeCm(segment, 0, CmMad.MAD_LENGTH + 8));
    }

    @Test
    void shouldRefuseMemoryItCannotRead() throws InterruptedException
    {
        final MemorySegment closed;
        try (Arena arena = Arena.ofConfined())
        {
            closed = arena.allocate(CmMad.MAD_LENGTH);
            MemorySegment.copy(MemorySegment.ofArray(cmMad(0)), 0, closed, 0, CmMad.MAD_LENGTH);
            assertTrue(CmMad.looksLikeCm(closed, 0, CmMad.MAD_LENGTH));
        }
        assertFalse(CmMad.looksLikeCm(closed, 0, CmMad.MAD_LENGTH), "a closed arena");

        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment confined = arena.allocate(CmMad.MAD_LENGTH);
            MemorySegment.copy(MemorySegment.ofArray(cmMad(0)), 0, confined, 0, CmMad.MAD_LENGTH);
            final AtomicReference<Object> answer = new AtomicReference<>();
            final Thread other = new Thread(() ->
            {
                try
                {
                    answer.set(CmMad.looksLikeCm(confined, 0, CmMad.MAD_LENGTH));
                }
                catch (final Throwable ex)
                {
                    answer.set(ex);
                }
            });
            other.start();
            other.join();
            assertEquals(Boolean.FALSE, answer.get(), "another thread's confined memory");
        }

        final MemorySegment readOnly = MemorySegment.ofArray(cmMad(0)).asReadOnly();
        assertTrue(CmMad.looksLikeCm(readOnly, 0, CmMad.MAD_LENGTH));
    }
}
