package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

import static io.rdma4j.soft.wire.WireLayouts.U32;
import static io.rdma4j.soft.wire.WireLayouts.U64;

/**
 * Flyweight over the 16-byte RDMA Extended Transport Header of RDMA WRITE FIRST/ONLY and RDMA READ REQUEST.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Virtual Address (high)                    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Virtual Address (low)                     |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                          Remote Key                           |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                          DMA Length                           |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * The DMA length is the whole message's length, so it is widened to a {@code long}; the R_Key is opaque.
 */
public final class RethFlyweight
{
    /** Offset of the 64-bit virtual address. */
    public static final int VA_OFFSET = 0;
    /** Offset of the 32-bit R_Key. */
    public static final int RKEY_OFFSET = VA_OFFSET + 8;
    /** Offset of the 32-bit DMA length. */
    public static final int DMA_LENGTH_OFFSET = RKEY_OFFSET + 4;
    /** Length of the RETH in bytes. */
    public static final int LENGTH = DMA_LENGTH_OFFSET + 4;

    private MemorySegment segment;
    private long offset;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public RethFlyweight()
    {
    }

    /**
     * Point this flyweight at a RETH.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the RETH starts in {@code segment}.
     * @return this.
     */
    public RethFlyweight wrap(final MemorySegment segment, final long offset)
    {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** @return the remote virtual address. */
    public long va()
    {
        return segment.get(U64, offset + VA_OFFSET);
    }

    /**
     * @param va the remote virtual address.
     * @return this.
     */
    public RethFlyweight va(final long va)
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
    public RethFlyweight rkey(final int rkey)
    {
        segment.set(U32, offset + RKEY_OFFSET, rkey);
        return this;
    }

    /** @return the DMA length, unsigned 32 bits. */
    public long dmaLength()
    {
        return segment.get(U32, offset + DMA_LENGTH_OFFSET) & 0xFFFF_FFFFL;
    }

    /**
     * @param dmaLength the DMA length; the low 32 bits are written.
     * @return this.
     */
    public RethFlyweight dmaLength(final long dmaLength)
    {
        segment.set(U32, offset + DMA_LENGTH_OFFSET, (int)dmaLength);
        return this;
    }
}
