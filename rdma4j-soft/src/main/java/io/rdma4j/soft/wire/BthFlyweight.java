package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;

import static io.rdma4j.soft.wire.WireLayouts.MASK_24;
import static io.rdma4j.soft.wire.WireLayouts.U16;
import static io.rdma4j.soft.wire.WireLayouts.U8;

/**
 * Flyweight over the 12-byte InfiniBand Base Transport Header, the first header of every RoCEv2 UDP payload.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |    OpCode     |S|M|Pad| TVer  |        Partition Key          |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |F|B|  resv6    |          Destination QP Number                |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |A|   resv7     |          Packet Sequence Number               |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 * S = solicited event, M = MigReq, Pad = PadCnt, F/B = FECN/BECN, A = AckReq. All fields are big-endian.
 * One instance is re-wrapped for each packet; it holds no packet state of its own.
 */
public final class BthFlyweight
{
    /** Offset of the OpCode byte. */
    public static final int OPCODE_OFFSET = 0;
    /** Offset of the byte holding SE, MigReq, PadCnt and TVer. */
    public static final int FLAGS_OFFSET = OPCODE_OFFSET + 1;
    /** Offset of the 16-bit P_Key. */
    public static final int PKEY_OFFSET = FLAGS_OFFSET + 1;
    /** Offset of the byte holding FECN, BECN and 6 reserved bits; the ICRC covers it as 0xFF. */
    public static final int FECN_BECN_OFFSET = PKEY_OFFSET + 2;
    /** Offset of the 24-bit destination QP number. */
    public static final int DEST_QP_OFFSET = FECN_BECN_OFFSET + 1;
    /** Offset of the byte holding AckReq and 7 reserved bits. */
    public static final int ACK_REQ_OFFSET = DEST_QP_OFFSET + 3;
    /** Offset of the 24-bit PSN. */
    public static final int PSN_OFFSET = ACK_REQ_OFFSET + 1;
    /** Length of the BTH in bytes. */
    public static final int LENGTH = PSN_OFFSET + 3;

    /** SE bit in the flags byte. */
    public static final int SE_BIT = 0x80;
    /** MigReq bit in the flags byte. */
    public static final int MIG_REQ_BIT = 0x40;
    /** Shift of the 2-bit PadCnt in the flags byte. */
    public static final int PAD_CNT_SHIFT = 4;
    /** Mask of TVer in the flags byte. */
    public static final int TVER_MASK = 0x0F;
    /** FECN bit in its byte. */
    public static final int FECN_BIT = 0x80;
    /** BECN bit in its byte. */
    public static final int BECN_BIT = 0x40;
    /** AckReq bit in its byte. */
    public static final int ACK_REQ_BIT = 0x80;
    /** The destination QP number of multicast packets. */
    public static final int MULTICAST_QPN = 0xFF_FFFF;
    /** The default P_Key with the full-membership bit, which rxe puts in every packet. */
    public static final int DEFAULT_PKEY = 0xFFFF;

    private MemorySegment segment;
    private long offset;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public BthFlyweight()
    {
    }

    /**
     * Point this flyweight at a BTH.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the BTH starts in {@code segment}.
     * @return this.
     */
    public BthFlyweight wrap(final MemorySegment segment, final long offset)
    {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** @return the wrapped memory. */
    public MemorySegment segment()
    {
        return segment;
    }

    /** @return where the BTH starts in {@link #segment()}. */
    public long offset()
    {
        return offset;
    }

    /**
     * Read the opcode byte of the BTH at {@code offset} without wrapping.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the BTH starts.
     * @return the opcode, 0..255.
     */
    public static int opcode(final MemorySegment segment, final long offset)
    {
        return segment.get(U8, offset + OPCODE_OFFSET) & 0xFF;
    }

    /**
     * Read the destination QP number of the BTH at {@code offset} without wrapping.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the BTH starts.
     * @return the destination QPN, 24 bits.
     */
    public static int destQp(final MemorySegment segment, final long offset)
    {
        return WireLayouts.read24(segment, offset + FECN_BECN_OFFSET);
    }

    /**
     * Read the PSN of the BTH at {@code offset} without wrapping.
     *
     * @param segment the memory holding the packet.
     * @param offset  where the BTH starts.
     * @return the PSN, 24 bits.
     */
    public static int psn(final MemorySegment segment, final long offset)
    {
        return WireLayouts.read24(segment, offset + ACK_REQ_OFFSET);
    }

    /** @return the opcode, 0..255. */
    public int opcode()
    {
        return segment.get(U8, offset + OPCODE_OFFSET) & 0xFF;
    }

    /**
     * @param opcode the opcode, 0..255.
     * @return this.
     */
    public BthFlyweight opcode(final int opcode)
    {
        segment.set(U8, offset + OPCODE_OFFSET, (byte)opcode);
        return this;
    }

    /** @return the flags byte: SE, MigReq, PadCnt and TVer together. */
    public int flags()
    {
        return segment.get(U8, offset + FLAGS_OFFSET) & 0xFF;
    }

    /**
     * @param flags SE, MigReq, PadCnt and TVer together.
     * @return this.
     */
    public BthFlyweight flags(final int flags)
    {
        segment.set(U8, offset + FLAGS_OFFSET, (byte)flags);
        return this;
    }

    /** @return the solicited event bit. */
    public boolean se()
    {
        return (flags() & SE_BIT) != 0;
    }

    /**
     * @param se the solicited event bit.
     * @return this.
     */
    public BthFlyweight se(final boolean se)
    {
        WireLayouts.writeBits(segment, offset + FLAGS_OFFSET, SE_BIT, se);
        return this;
    }

    /** @return the MigReq bit. */
    public boolean migReq()
    {
        return (flags() & MIG_REQ_BIT) != 0;
    }

    /**
     * @param migReq the MigReq bit.
     * @return this.
     */
    public BthFlyweight migReq(final boolean migReq)
    {
        WireLayouts.writeBits(segment, offset + FLAGS_OFFSET, MIG_REQ_BIT, migReq);
        return this;
    }

    /** @return PadCnt: how many pad bytes follow the payload, 0..3. */
    public int padCnt()
    {
        return (flags() >>> PAD_CNT_SHIFT) & 3;
    }

    /**
     * @param padCnt the number of pad bytes, 0..3.
     * @return this.
     */
    public BthFlyweight padCnt(final int padCnt)
    {
        return flags((flags() & ~(3 << PAD_CNT_SHIFT)) | ((padCnt & 3) << PAD_CNT_SHIFT));
    }

    /** @return the transport header version, 0..15; 0 is the only one defined. */
    public int tver()
    {
        return flags() & TVER_MASK;
    }

    /**
     * @param tver the transport header version, 0..15.
     * @return this.
     */
    public BthFlyweight tver(final int tver)
    {
        return flags((flags() & ~TVER_MASK) | (tver & TVER_MASK));
    }

    /** @return the P_Key, 16 bits; bit 15 is the full-membership bit. */
    public int pkey()
    {
        return segment.get(U16, offset + PKEY_OFFSET) & 0xFFFF;
    }

    /**
     * @param pkey the P_Key, 16 bits.
     * @return this.
     */
    public BthFlyweight pkey(final int pkey)
    {
        segment.set(U16, offset + PKEY_OFFSET, (short)pkey);
        return this;
    }

    /** @return the FECN bit. */
    public boolean fecn()
    {
        return (segment.get(U8, offset + FECN_BECN_OFFSET) & FECN_BIT) != 0;
    }

    /**
     * @param fecn the FECN bit.
     * @return this.
     */
    public BthFlyweight fecn(final boolean fecn)
    {
        WireLayouts.writeBits(segment, offset + FECN_BECN_OFFSET, FECN_BIT, fecn);
        return this;
    }

    /** @return the BECN bit, set in congestion notification packets. */
    public boolean becn()
    {
        return (segment.get(U8, offset + FECN_BECN_OFFSET) & BECN_BIT) != 0;
    }

    /**
     * @param becn the BECN bit.
     * @return this.
     */
    public BthFlyweight becn(final boolean becn)
    {
        WireLayouts.writeBits(segment, offset + FECN_BECN_OFFSET, BECN_BIT, becn);
        return this;
    }

    /** @return the destination QP number, 24 bits. */
    public int destQp()
    {
        return WireLayouts.read24(segment, offset + FECN_BECN_OFFSET);
    }

    /**
     * Write the destination QP number, keeping FECN, BECN and the reserved bits.
     *
     * @param destQp the destination QP number, 24 bits.
     * @return this.
     */
    public BthFlyweight destQp(final int destQp)
    {
        WireLayouts.write24(segment, offset + FECN_BECN_OFFSET, destQp);
        return this;
    }

    /** @return the AckReq bit. */
    public boolean ackReq()
    {
        return (segment.get(U8, offset + ACK_REQ_OFFSET) & ACK_REQ_BIT) != 0;
    }

    /**
     * @param ackReq the AckReq bit.
     * @return this.
     */
    public BthFlyweight ackReq(final boolean ackReq)
    {
        WireLayouts.writeBits(segment, offset + ACK_REQ_OFFSET, ACK_REQ_BIT, ackReq);
        return this;
    }

    /** @return the PSN, 24 bits. */
    public int psn()
    {
        return WireLayouts.read24(segment, offset + ACK_REQ_OFFSET);
    }

    /**
     * Write the PSN, keeping AckReq and the reserved bits.
     *
     * @param psn the PSN; only the low 24 bits are written.
     * @return this.
     */
    public BthFlyweight psn(final int psn)
    {
        WireLayouts.write24(segment, offset + ACK_REQ_OFFSET, psn & MASK_24);
        return this;
    }
}
