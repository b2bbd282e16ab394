package io.rdma4j.soft.cm.mad;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over the body of a CM MRA ("message receipt acknowledgement"): the receiver of a REQ, REP or LAP
 * tells the sender it needs longer than the sender's timeout to answer, so the sender stops retrying. Linux arms
 * one when a REQ arrives and sends it only if a duplicate REQ or REP comes before the answer. Offsets count from
 * the first byte after the MAD header:
 * <pre>
 *   0 Local Communication ID            4 Remote Communication ID
 *   8 Message MRAed[7:6] | Service Timeout[7:3]                            10 private data (222 bytes)
 * </pre>
 */
public final class CmMra
{
    /** Offset of the Local Communication ID. */
    public static final int LOCAL_COMM_ID_OFFSET = 0;
    /** Offset of the Remote Communication ID. */
    public static final int REMOTE_COMM_ID_OFFSET = 4;
    /** Offset of the byte holding Message MRAed. */
    public static final int MESSAGE_MRAED_OFFSET = 8;
    /** Offset of the byte holding Service Timeout. */
    public static final int SERVICE_TIMEOUT_OFFSET = 9;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 10;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = CmMad.MAD_LENGTH - CmMad.HEADER_LENGTH - PRIVATE_DATA_OFFSET;

    /** Message MRAed: a REQ. */
    public static final int MESSAGE_REQ = 0;
    /** Message MRAed: a REP. */
    public static final int MESSAGE_REP = 1;
    /** Message MRAed: a LAP. */
    public static final int MESSAGE_LAP = 2;

    private static final int MESSAGE_SHIFT = 6;
    private static final int MESSAGE_MASK = 0x3;
    private static final int TIMEOUT_SHIFT = 3;
    private static final int TIMEOUT_MASK = 0x1F;

    private MemorySegment segment;
    private long offset;
    private long body;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public CmMra()
    {
    }

    /**
     * Point this flyweight at a MAD holding an MRA.
     *
     * @param segment the memory holding the MAD.
     * @param offset  where the MAD (not the MRA body) starts in {@code segment}.
     * @return this.
     */
    public CmMra wrap(final MemorySegment segment, final long offset)
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

    /** @return the Local Communication ID of the side asking for time. */
    public int localCommId()
    {
        return MadFields.u32(segment, body + LOCAL_COMM_ID_OFFSET);
    }

    /**
     * @param localCommId the Local Communication ID.
     * @return this.
     */
    public CmMra localCommId(final int localCommId)
    {
        MadFields.u32(segment, body + LOCAL_COMM_ID_OFFSET, localCommId);
        return this;
    }

    /** @return the Remote Communication ID: the waiting side's own ID. */
    public int remoteCommId()
    {
        return MadFields.u32(segment, body + REMOTE_COMM_ID_OFFSET);
    }

    /**
     * @param remoteCommId the Remote Communication ID.
     * @return this.
     */
    public CmMra remoteCommId(final int remoteCommId)
    {
        MadFields.u32(segment, body + REMOTE_COMM_ID_OFFSET, remoteCommId);
        return this;
    }

    /** @return Message MRAed, 2 bits: {@link #MESSAGE_REQ}, {@link #MESSAGE_REP} or {@link #MESSAGE_LAP}. */
    public int messageMraed()
    {
        return MadFields.bits(segment, body + MESSAGE_MRAED_OFFSET, MESSAGE_SHIFT, MESSAGE_MASK);
    }

    /**
     * @param message Message MRAed, 2 bits.
     * @return this.
     */
    public CmMra messageMraed(final int message)
    {
        MadFields.bits(segment, body + MESSAGE_MRAED_OFFSET, MESSAGE_SHIFT, MESSAGE_MASK, message);
        return this;
    }

    /** @return Service Timeout, 5 bits: 4.096 µs · 2^n more the sender should wait; Linux sends 24. */
    public int serviceTimeout()
    {
        return MadFields.bits(segment, body + SERVICE_TIMEOUT_OFFSET, TIMEOUT_SHIFT, TIMEOUT_MASK);
    }

    /**
     * @param timeout Service Timeout, 5 bits.
     * @return this.
     */
    public CmMra serviceTimeout(final int timeout)
    {
        MadFields.bits(segment, body + SERVICE_TIMEOUT_OFFSET, TIMEOUT_SHIFT, TIMEOUT_MASK, timeout);
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
    public CmMra privateData(final byte[] src, final int length)
    {
        MadFields.copyIn(segment, body + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, src, length);
        return this;
    }
}
