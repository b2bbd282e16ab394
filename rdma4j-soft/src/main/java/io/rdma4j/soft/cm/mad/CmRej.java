package io.rdma4j.soft.cm.mad;

/**
 * Flyweight over the body of a CM REJ: a refused REQ or REP, or a timed-out handshake. Offsets count from the
 * first byte after the MAD header:
 * <pre>
 *   0 Local Communication ID            4 Remote Communication ID
 *   8 Message Rejected[7:6] | Reject Info Length[7:1] | Reason(16)
 *  12 Additional Rejection Information (72 bytes)                          84 private data (148 bytes)
 * </pre>
 * A REJ answering a REQ has Local Communication ID 0 when the rejecter never allocated an ID of its own; the
 * receiver then finds the connection by the Local Communication ID it sent, which the REJ echoes as remote.
 */
public final class CmRej extends CmCommIdsBody<CmRej>
{
    /** Offset of the byte holding Message Rejected. */
    public static final int MESSAGE_REJECTED_OFFSET = 8;
    /** Offset of the byte holding Reject Info Length. */
    public static final int REJECT_INFO_LENGTH_OFFSET = 9;
    /** Offset of the 16-bit Reason. */
    public static final int REASON_OFFSET = 10;
    /** Offset of the Additional Rejection Information. */
    public static final int ARI_OFFSET = 12;
    /** Length of the Additional Rejection Information area. */
    public static final int ARI_LENGTH = 72;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = ARI_OFFSET + ARI_LENGTH;
    /** Length of the private data; rdma_reject's bytes land here. */
    public static final int PRIVATE_DATA_LENGTH = CmMad.MAD_LENGTH - CmMad.HEADER_LENGTH - PRIVATE_DATA_OFFSET;

    /** Message Rejected: the REQ. */
    public static final int MESSAGE_REQ = 0;
    /** Message Rejected: the REP. */
    public static final int MESSAGE_REP = 1;
    /** Message Rejected: something else, such as a timed-out handshake. */
    public static final int MESSAGE_OTHER = 2;

    private static final int MESSAGE_SHIFT = 6;
    private static final int MESSAGE_MASK = 0x3;
    private static final int INFO_LENGTH_SHIFT = 1;
    private static final int INFO_LENGTH_MASK = 0x7F;

    /** Create an unwrapped flyweight; {@link #wrap} it, at the start of the MAD, before use. */
    public CmRej()
    {
        super(PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /** @return Message Rejected, 2 bits: {@link #MESSAGE_REQ}, {@link #MESSAGE_REP} or {@link #MESSAGE_OTHER}. */
    public int messageRejected()
    {
        return bits(MESSAGE_REJECTED_OFFSET, MESSAGE_SHIFT, MESSAGE_MASK);
    }

    /**
     * @param message Message Rejected, 2 bits.
     * @return this.
     */
    public CmRej messageRejected(final int message)
    {
        return bits(MESSAGE_REJECTED_OFFSET, MESSAGE_SHIFT, MESSAGE_MASK, message);
    }

    /** @return Reject Info Length, 7 bits: how many bytes of the ARI mean something. */
    public int rejectInfoLength()
    {
        return bits(REJECT_INFO_LENGTH_OFFSET, INFO_LENGTH_SHIFT, INFO_LENGTH_MASK);
    }

    /**
     * @param length Reject Info Length, 7 bits; at most {@link #ARI_LENGTH} makes sense.
     * @return this.
     */
    public CmRej rejectInfoLength(final int length)
    {
        return bits(REJECT_INFO_LENGTH_OFFSET, INFO_LENGTH_SHIFT, INFO_LENGTH_MASK, length);
    }

    /** @return the Reason, 16 bits; see {@link io.rdma4j.cm.RejectReason}. */
    public int reason()
    {
        return u16(REASON_OFFSET);
    }

    /**
     * @param reason the Reason, 16 bits.
     * @return this.
     */
    public CmRej reason(final int reason)
    {
        return u16(REASON_OFFSET, reason);
    }

    /**
     * Copy the Additional Rejection Information out, whose meaning depends on the reason (a GID, a port, the
     * acceptable MTU...). Only {@link #rejectInfoLength()} of its bytes are meaningful.
     *
     * @param dst where to copy; up to {@link #ARI_LENGTH} bytes are copied.
     * @return how many bytes were copied.
     */
    public int ari(final byte[] dst)
    {
        return copyOut(ARI_OFFSET, ARI_LENGTH, dst);
    }

    /**
     * Copy bytes into the Additional Rejection Information and zero the rest of it. This does not set
     * {@link #rejectInfoLength(int)}.
     *
     * @param src    the bytes.
     * @param length how many of them, at most {@link #ARI_LENGTH}.
     * @return this.
     */
    public CmRej ari(final byte[] src, final int length)
    {
        return copyIn(ARI_OFFSET, ARI_LENGTH, src, length);
    }
}
