package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

import static io.rdma4j.soft.wire.WireLayouts.U32;

/**
 * Flyweight over the 8-byte Datagram Extended Transport Header that follows the BTH of UD packets.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                           Queue Key                           |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |     resv8     |             Source QP Number                  |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The Q_Key is an opaque 32-bit value compared for equality, so it is kept as an {@code int}.
 */
public final class DethFlyweight
{
    /** Offset of the 32-bit Q_Key. */
    public static final int QKEY_OFFSET = 0;
    /** Offset of the reserved byte before the source QPN. */
    public static final int RESERVED_OFFSET = QKEY_OFFSET + 4;
    /** Offset of the 24-bit source QP number. */
    public static final int SRC_QP_OFFSET = RESERVED_OFFSET + 1;
    /** Length of the DETH in bytes. */
    public static final int LENGTH = SRC_QP_OFFSET + 3;

    /** The Q_Key of the general services interface, QP1, where the CM's MADs travel. */
    public static final int GSI_QKEY = 0x8001_0000;

    private MemorySegment segment;
    private long offset;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public DethFlyweight()
    {
    }

    /**
     * Point this flyweight at a DETH.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the DETH starts in {@code segment}.
     * @return this.
     */
    public DethFlyweight wrap(final MemorySegment segment, final long offset)
    {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** @return the Q_Key. */
    public int qkey()
    {
        return segment.get(U32, offset + QKEY_OFFSET);
    }

    /**
     * @param qkey the Q_Key.
     * @return this.
     */
    public DethFlyweight qkey(final int qkey)
    {
        segment.set(U32, offset + QKEY_OFFSET, qkey);
        return this;
    }

    /** @return the source QP number, 24 bits. */
    public int srcQp()
    {
        return WireLayouts.read24(segment, offset + RESERVED_OFFSET);
    }

    /**
     * Write the source QP number and clear the reserved byte.
     *
     * @param srcQp the source QP number, 24 bits.
     * @return this.
     */
    public DethFlyweight srcQp(final int srcQp)
    {
        segment.set(U32, offset + RESERVED_OFFSET, srcQp & WireLayouts.MASK_24);
        return this;
    }
}
