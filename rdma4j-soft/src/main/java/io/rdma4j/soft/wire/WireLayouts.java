package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The value layouts every header uses: InfiniBand headers are big-endian and, after a 12-byte BTH and a 28-byte
 * AtomicETH, not aligned to their own width, so every access is unaligned and names its byte order.
 */
final class WireLayouts
{
    /** One unsigned byte. */
    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    /** A big-endian 16-bit field. */
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** A big-endian 32-bit field. */
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** A big-endian 64-bit field. */
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** The ICRC, which is written least-significant byte first. */
    static final ValueLayout.OfInt ICRC = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Mask of a 24-bit field (QPN, PSN, MSN). */
    static final int MASK_24 = 0xFF_FFFF;

    private WireLayouts()
    {
    }

    /**
     * Read the low 24 bits of the big-endian word at {@code offset}: the field whose first byte is at
     * {@code offset + 1}. One 32-bit load is cheaper than three byte loads.
     */
    static int read24(final MemorySegment segment, final long offset)
    {
        return segment.get(U32, offset) & MASK_24;
    }

    /**
     * Write the low 24 bits of the big-endian word at {@code offset}, keeping the byte at {@code offset}.
     */
    static void write24(final MemorySegment segment, final long offset, final int value)
    {
        final int word = segment.get(U32, offset);
        segment.set(U32, offset, (word & ~MASK_24) | (value & MASK_24));
    }

    /** Set or clear {@code bits} in the byte at {@code offset}. */
    static void writeBits(final MemorySegment segment, final long offset, final int bits, final boolean on)
    {
        final int b = segment.get(U8, offset);
        segment.set(U8, offset, (byte)(on ? b | bits : b & ~bits));
    }
}
