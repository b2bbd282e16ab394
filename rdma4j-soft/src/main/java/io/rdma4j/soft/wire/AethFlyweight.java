package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

import static io.rdma4j.soft.wire.WireLayouts.U32;
import static io.rdma4j.soft.wire.WireLayouts.U8;

/**
 * Flyweight over the 4-byte ACK Extended Transport Header of acknowledgements and RDMA READ responses.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  | Type|  Value  |           Message Sequence Number             |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  \__ Syndrome __/
 * </pre>
 * The syndrome's type is ACK (credit count in the value), RNR NAK (timer code) or NAK (NAK code).
 */
public final class AethFlyweight
{
    /** Offset of the syndrome byte. */
    public static final int SYNDROME_OFFSET = 0;
    /** Offset of the 24-bit MSN. */
    public static final int MSN_OFFSET = SYNDROME_OFFSET + 1;
    /** Length of the AETH in bytes. */
    public static final int LENGTH = MSN_OFFSET + 3;

    /** Mask of the syndrome's type bits. */
    public static final int TYPE_MASK = 0xE0;
    /** Mask of the syndrome's value bits. */
    public static final int VALUE_MASK = 0x1F;
    /** Syndrome type of a positive ACK. */
    public static final int TYPE_ACK = 0x00;
    /** Syndrome type of a receiver-not-ready NAK. */
    public static final int TYPE_RNR_NAK = 0x20;
    /** Syndrome type of a NAK. */
    public static final int TYPE_NAK = 0x60;
    /** ACK with the "no credit count" value, the only ACK rxe sends. */
    public static final int ACK_UNLIMITED_CREDIT = 0x1F;
    /** NAK: PSN sequence error. */
    public static final int NAK_PSN_SEQUENCE_ERROR = 0x60;
    /** NAK: invalid request. */
    public static final int NAK_INVALID_REQUEST = 0x61;
    /** NAK: remote access error. */
    public static final int NAK_REMOTE_ACCESS_ERROR = 0x62;
    /** NAK: remote operational error. */
    public static final int NAK_REMOTE_OPERATIONAL_ERROR = 0x63;
    /** NAK: invalid RD request. */
    public static final int NAK_INVALID_RD_REQUEST = 0x64;

    private MemorySegment segment;
    private long offset;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public AethFlyweight()
    {
    }

    /**
     * Point this flyweight at an AETH.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the AETH starts in {@code segment}.
     * @return this.
     */
    public AethFlyweight wrap(final MemorySegment segment, final long offset)
    {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** @return the syndrome byte, 0..255. */
    public int syndrome()
    {
        return segment.get(U8, offset + SYNDROME_OFFSET) & 0xFF;
    }

    /**
     * @param syndrome the syndrome byte.
     * @return this.
     */
    public AethFlyweight syndrome(final int syndrome)
    {
        segment.set(U8, offset + SYNDROME_OFFSET, (byte)syndrome);
        return this;
    }

    /** @return the MSN, 24 bits. */
    public int msn()
    {
        return WireLayouts.read24(segment, offset + SYNDROME_OFFSET);
    }

    /**
     * Write the MSN, keeping the syndrome.
     *
     * @param msn the MSN; the low 24 bits are written.
     * @return this.
     */
    public AethFlyweight msn(final int msn)
    {
        WireLayouts.write24(segment, offset + SYNDROME_OFFSET, msn);
        return this;
    }

    /**
     * Read syndrome and MSN together as they lie on the wire.
     *
     * @return syndrome in bits 31..24, MSN in bits 23..0.
     */
    public int word()
    {
        return segment.get(U32, offset + SYNDROME_OFFSET);
    }
}
