package io.rdma4j.soft.cm.mad;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the body of a CM DREQ, sent by {@code rdma_disconnect} on either side. Offsets count from the
 * first byte after the MAD header:
 * <pre>
 *   0 Local Communication ID            4 Remote Communication ID
 *   8 Remote QPN/EECN(24) | reserved(8)                                   12 private data (220 bytes)
 * </pre>
 * Linux compares the Remote QPN with the connection's own QP and ignores a DREQ that names another, so a stale
 * DREQ whose communication ID has since been reused cannot tear down the new connection.
 */
public final class CmDreq
{
    /** Offset of the Local Communication ID. */
    public static final int LOCAL_COMM_ID_OFFSET = 0;
    /** Offset of the Remote Communication ID. */
    public static final int REMOTE_COMM_ID_OFFSET = 4;
    /** Offset of the 24-bit Remote QPN/EECN. */
    public static final int REMOTE_QPN_OFFSET = 8;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 12;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = CmMad.MAD_LENGTH - CmMad.HEADER_LENGTH - PRIVATE_DATA_OFFSET;

    private MemorySegment segment;
    private long offset;
    private long body;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public CmDreq()
    {
    }

    /**
     * Point this flyweight at a MAD holding a DREQ.
     *
     * @param segment the memory holding the MAD.
     * @param offset  where the MAD (not the DREQ body) starts in {@code segment}.
     * @return this.
     */
    public CmDreq wrap(final MemorySegment segment, final long offset)
    {
        this.segment = segment;
        this.offset = offset;
        this.body = offset + CmMad.HEADER_LENGTH;
        return this;
    }

    /** @return the wrapped memory. */
    public MemorySegment segment()
    {
        return segment;
    }

    /** @return where the MAD starts in {@link #segment()}. */
    public long offset()
    {
        return offset;
    }

    /** @return where the private data starts in {@link #segment()}. */
    public long privateDataOffset()
    {
        return body + PRIVATE_DATA_OFFSET;
    }

    /** @return the Local Communication ID of the side disconnecting. */
    public int localCommId()
    {
        return MadFields.u32(segment, body + LOCAL_COMM_ID_OFFSET);
    }

    /**
     * @param localCommId the Local Communication ID.
     * @return this.
     */
    public CmDreq localCommId(final int localCommId)
    {
        MadFields.u32(segment, body + LOCAL_COMM_ID_OFFSET, localCommId);
        return this;
    }

    /** @return the Remote Communication ID: the receiver's own ID. */
    public int remoteCommId()
    {
        return MadFields.u32(segment, body + REMOTE_COMM_ID_OFFSET);
    }

    /**
     * @param remoteCommId the Remote Communication ID.
     * @return this.
     */
    public CmDreq remoteCommId(final int remoteCommId)
    {
        MadFields.u32(segment, body + REMOTE_COMM_ID_OFFSET, remoteCommId);
        return this;
    }

    /** @return the Remote QPN/EECN, 24 bits: the receiver's QP number as the sender knows it. */
    public int remoteQpn()
    {
        return MadFields.high24(segment, body + REMOTE_QPN_OFFSET);
    }

    /**
     * Write the Remote QPN/EECN, keeping the reserved byte after it.
     *
     * @param remoteQpn the Remote QPN/EECN, 24 bits.
     * @return this.
     */
    public CmDreq remoteQpn(final int remoteQpn)
    {
        MadFields.high24(segment, body + REMOTE_QPN_OFFSET, remoteQpn);
        return this;
    }

    /**
     * Copy the private data out; the CM carries no length, so the whole area is returned as the peer sent it.
     *
     * @param dst where to copy; up to {@link #PRIVATE_DATA_LENGTH} bytes are copied.
     * @return how many bytes were copied.
     */
    public int privateData(final byte[] dst)
    {
        return MadFields.copyOut(segment, body + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, dst);
    }

    /**
     * Copy bytes into the private data and zero the rest of it.
     *
     * @param src    the bytes.
     * @param length how many of them, at most {@link #PRIVATE_DATA_LENGTH}.
     * @return this.
     */
    public CmDreq privateData(final byte[] src, final int length)
    {
        MadFields.copyIn(segment, body + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, src, length);
        return this;
    }
}
