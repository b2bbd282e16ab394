package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

import static io.rdma4j.soft.wire.WireLayouts.U64;

/**
 * Flyweight over the 8-byte Atomic Acknowledge Extended Transport Header that follows the AETH of
 * ATOMIC_ACKNOWLEDGE.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |             Original Remote Data (high, low)                  |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class AtomicAckEthFlyweight
{
    /** Offset of the 64-bit original value. */
    public static final int ORIG_OFFSET = 0;
    /** Length of the AtomicAckETH in bytes. */
    public static final int LENGTH = ORIG_OFFSET + 8;

    private MemorySegment segment;
    private long offset;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public AtomicAckEthFlyweight()
    {
    }

    /**
     * Point this flyweight at an AtomicAckETH.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the AtomicAckETH starts in {@code segment}.
     * @return this.
     */
    public AtomicAckEthFlyweight wrap(final MemorySegment segment, final long offset)
    {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** @return the value the target held before the atomic operation. */
    public long orig()
    {
        return segment.get(U64, offset + ORIG_OFFSET);
    }

    /**
     * @param orig the value the target held before the atomic operation.
     * @return this.
     */
    public AtomicAckEthFlyweight orig(final long orig)
    {
        segment.set(U64, offset + ORIG_OFFSET, orig);
        return this;
    }
}
