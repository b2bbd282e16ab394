package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

import static io.rdma4j.soft.wire.WireLayouts.U32;

/**
 * Flyweight over the 4-byte Immediate Data Extended Transport Header.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                        Immediate Data                         |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The value is opaque: verbs hand it to the receiver's work completion in network byte order, so it is read
 * here as the big-endian number the sender's bytes spell.
 */
public final class ImmDtFlyweight
{
    /** Offset of the 32-bit immediate value. */
    public static final int IMMEDIATE_OFFSET = 0;
    /** Length of the ImmDt header in bytes. */
    public static final int LENGTH = IMMEDIATE_OFFSET + 4;

    private MemorySegment segment;
    private long offset;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public ImmDtFlyweight()
    {
    }

    /**
     * Point this flyweight at an ImmDt header.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the header starts in {@code segment}.
     * @return this.
     */
    public ImmDtFlyweight wrap(final MemorySegment segment, final long offset)
    {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** @return the immediate value. */
    public int immediate()
    {
        return segment.get(U32, offset + IMMEDIATE_OFFSET);
    }

    /**
     * @param immediate the immediate value.
     * @return this.
     */
    public ImmDtFlyweight immediate(final int immediate)
    {
        segment.set(U32, offset + IMMEDIATE_OFFSET, immediate);
        return this;
    }
}
