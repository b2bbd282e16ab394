package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

import static io.rdma4j.soft.wire.WireLayouts.U32;
import static io.rdma4j.soft.wire.WireLayouts.U64;

/**
 * Flyweight over the 28-byte Atomic Extended Transport Header of COMPARE_SWAP and FETCH_ADD. The header is packed:
 * after the 12-byte BTH its 64-bit fields sit at 4-byte alignment only.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 Virtual Address (high, low)                   |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                          Remote Key                           |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 Swap (COMPARE_SWAP) or Add (FETCH_ADD)        |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                 Compare (COMPARE_SWAP only)                   |
 *  +                                                               +
 *  |                                                               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 */
public final class AtomicEthFlyweight
{
    /** Offset of the 64-bit virtual address. */
    public static final int VA_OFFSET = 0;
    /** Offset of the 32-bit R_Key. */
    public static final int RKEY_OFFSET = VA_OFFSET + 8;
    /** Offset of the 64-bit swap or add operand. */
    public static final int SWAP_ADD_OFFSET = RKEY_OFFSET + 4;
    /** Offset of the 64-bit compare operand. */
    public static final int COMPARE_OFFSET = SWAP_ADD_OFFSET + 8;
    /** Length of the AtomicETH in bytes. */
    public static final int LENGTH = COMPARE_OFFSET + 8;

    private MemorySegment segment;
    private long offset;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public AtomicEthFlyweight()
    {
    }

    /**
     * Point this flyweight at an AtomicETH.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the AtomicETH starts in {@code segment}.
     * @return this.
     */
    public AtomicEthFlyweight wrap(final MemorySegment segment, final long offset)
    {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** @return the remote virtual address of the 8-byte target. */
    public long va()
    {
        return segment.get(U64, offset + VA_OFFSET);
    }

    /**
     * @param va the remote virtual address of the 8-byte target.
     * @return this.
     */
    public AtomicEthFlyweight va(final long va)
    {
        segment.set(U64, offset + VA_OFFSET, va);
        return this;
    }

    /** @return the R_Key. */
    public int rkey()
    {
        return segment.get(U32, offset + RKEY_OFFSET);
    }

    /**
     * @param rkey the R_Key.
     * @return this.
     */
    public AtomicEthFlyweight rkey(final int rkey)
    {
        segment.set(U32, offset + RKEY_OFFSET, rkey);
        return this;
    }

    /** @return the swap value of COMPARE_SWAP or the addend of FETCH_ADD. */
    public long swapAdd()
    {
        return segment.get(U64, offset + SWAP_ADD_OFFSET);
    }

    /**
     * @param swapAdd the swap value of COMPARE_SWAP or the addend of FETCH_ADD.
     * @return this.
     */
    public AtomicEthFlyweight swapAdd(final long swapAdd)
    {
        segment.set(U64, offset + SWAP_ADD_OFFSET, swapAdd);
        return this;
    }

    /** @return the compare value of COMPARE_SWAP; meaningless for FETCH_ADD. */
    public long compare()
    {
        return segment.get(U64, offset + COMPARE_OFFSET);
    }

    /**
     * @param compare the compare value of COMPARE_SWAP.
     * @return this.
     */
    public AtomicEthFlyweight compare(final long compare)
    {
        segment.set(U64, offset + COMPARE_OFFSET, compare);
        return this;
    }
}
