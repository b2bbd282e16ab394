package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

import static io.rdma4j.soft.wire.WireLayouts.U32;

/**
 * Flyweight over the 4-byte Invalidate Extended Transport Header of SEND with invalidate.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     R_Key to invalidate                       |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class IethFlyweight
{
    /** Offset of the 32-bit R_Key. */
    public static final int RKEY_OFFSET = 0;
    /** Length of the IETH in bytes. */
    public static final int LENGTH = RKEY_OFFSET + 4;

    private MemorySegment segment;
    private long offset;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public IethFlyweight()
    {
    }

    /**
     * Point this flyweight at an IETH.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the IETH starts in {@code segment}.
     * @return this.
     */
    public IethFlyweight wrap(final MemorySegment segment, final long offset)
    {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** @return the R_Key the receiver is to invalidate. */
    public int rkey()
    {
        return segment.get(U32, offset + RKEY_OFFSET);
    }

    /**
     * @param rkey the R_Key the receiver is to invalidate.
     * @return this.
     */
    public IethFlyweight rkey(final int rkey)
    {
        segment.set(U32, offset + RKEY_OFFSET, rkey);
        return this;
    }
}
