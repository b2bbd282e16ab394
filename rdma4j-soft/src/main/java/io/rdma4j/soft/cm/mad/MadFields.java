package io.rdma4j.soft.cm.mad;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The field encodings under every MAD flyweight ({@link MadFlyweight}) and the checks that read a MAD before one
 * wraps it. MADs are big-endian, and the CM packs 24-bit QPNs, PSNs and EECNs into
 * the <em>high</em> three bytes of a 32-bit word with an 8-bit field after them, the opposite of the BTH, so the
 * 24-bit helpers here say which end of the word they use. Bit fields are numbered from the least-significant bit
 * of their byte: a field written {@code [7:3]} has shift 3 and width 5.
 */
final class MadFields
{
    /** One byte. */
    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    /** A big-endian 16-bit field. */
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** A big-endian 32-bit field. */
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** A big-endian 64-bit field; the CM aligns 64-bit fields to 4 bytes only. */
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Mask of a 24-bit field. */
    static final int MASK_24 = 0xFF_FFFF;

    /** The source of zero fills: copying from it needs no slice of the destination, so no allocation. */
    private static final MemorySegment ZEROS = MemorySegment.ofArray(new byte[256]);

    private MadFields()
    {
    }

    static int u8(final MemorySegment segment, final long at)
    {
        return segment.get(U8, at) & 0xFF;
    }

    static void u8(final MemorySegment segment, final long at, final int value)
    {
        segment.set(U8, at, (byte)value);
    }

    static int u16(final MemorySegment segment, final long at)
    {
        return segment.get(U16, at) & 0xFFFF;
    }

    static void u16(final MemorySegment segment, final long at, final int value)
    {
        segment.set(U16, at, (short)value);
    }

    static int u32(final MemorySegment segment, final long at)
    {
        return segment.get(U32, at);
    }

    static void u32(final MemorySegment segment, final long at, final int value)
    {
        segment.set(U32, at, value);
    }

    static long u64(final MemorySegment segment, final long at)
    {
        return segment.get(U64, at);
    }

    static void u64(final MemorySegment segment, final long at, final long value)
    {
        segment.set(U64, at, value);
    }

    /** Read the 24-bit field in bytes {@code at..at+2}, the high end of the word at {@code at}. */
    static int high24(final MemorySegment segment, final long at)
    {
        return segment.get(U32, at) >>> 8;
    }

    /** Write the 24-bit field in bytes {@code at..at+2}, keeping the byte at {@code at + 3}. */
    static void high24(final MemorySegment segment, final long at, final int value)
    {
        final int word = segment.get(U32, at);
        segment.set(U32, at, (word & 0xFF) | ((value & MASK_24) << 8));
    }

    /** Read the 24-bit field in bytes {@code at+1..at+3}, the low end of the word at {@code at}. */
    static int low24(final MemorySegment segment, final long at)
    {
        return segment.get(U32, at) & MASK_24;
    }

    /** Write the 24-bit field in bytes {@code at+1..at+3}, keeping the byte at {@code at}. */
    static void low24(final MemorySegment segment, final long at, final int value)
    {
        final int word = segment.get(U32, at);
        segment.set(U32, at, (word & ~MASK_24) | (value & MASK_24));
    }

    /** Read the bit field of {@code mask}'s width whose lowest bit is {@code shift} bits above the byte's LSB. */
    static int bits(final MemorySegment segment, final long at, final int shift, final int mask)
    {
        return ((segment.get(U8, at) & 0xFF) >>> shift) & mask;
    }

    /** Write a bit field, keeping the other bits of its byte; {@code value} is cut to {@code mask}. */
    static void bits(final MemorySegment segment, final long at, final int shift, final int mask, final int value)
    {
        final int b = segment.get(U8, at) & 0xFF;
        segment.set(U8, at, (byte)((b & ~(mask << shift)) | ((value & mask) << shift)));
    }

    /** Read a one-bit flag. */
    static boolean flag(final MemorySegment segment, final long at, final int shift)
    {
        return ((segment.get(U8, at) >>> shift) & 1) != 0;
    }

    /** Write a one-bit flag, keeping the other bits of its byte. */
    static void flag(final MemorySegment segment, final long at, final int shift, final boolean on)
    {
        bits(segment, at, shift, 1, on ? 1 : 0);
    }

    /**
     * Copy a fixed-size byte area out of the MAD.
     *
     * @return how many bytes were copied: the smaller of {@code dst.length} and {@code capacity}.
     */
    static int copyOut(final MemorySegment segment, final long at, final int capacity, final byte[] dst)
    {
        final int length = Math.min(dst.length, capacity);
        MemorySegment.copy(segment, U8, at, dst, 0, length);
        return length;
    }

    /**
     * Copy {@code length} bytes into a fixed-size byte area and zero the rest of it, so that a re-used MAD never
     * carries a previous message's bytes to the peer: the CM has no length field for private data, the receiver
     * sees the whole area.
     */
    static void copyIn(
        final MemorySegment segment, final long at, final int capacity, final byte[] src, final int length)
    {
        if (length < 0 || length > capacity || length > src.length)
        {
            throw new IllegalArgumentException(
                "length " + length + " outside 0.." + Math.min(capacity, src.length));
        }
        MemorySegment.copy(src, 0, segment, U8, at, length);
        zero(segment, at + length, capacity - length);
    }

    /** Zero {@code length} bytes, at most a MAD's worth, without allocating a slice. */
    static void zero(final MemorySegment segment, final long at, final int length)
    {
        MemorySegment.copy(ZEROS, 0, segment, at, length);
    }
}
