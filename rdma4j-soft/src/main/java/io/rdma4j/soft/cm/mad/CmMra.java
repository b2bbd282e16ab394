package io.rdma4j.soft.cm.mad;

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
public final class CmMra extends CmCommIdsBody<CmMra>
{
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

    /** Create an unwrapped flyweight; {@link #wrap} it, at the start of the MAD, before use. */
    public CmMra()
    {
        super(PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /** @return Message MRAed, 2 bits: {@link #MESSAGE_REQ}, {@link #MESSAGE_REP} or {@link #MESSAGE_LAP}. */
    public int messageMraed()
    {
        return bits(MESSAGE_MRAED_OFFSET, MESSAGE_SHIFT, MESSAGE_MASK);
    }

    /**
     * @param message Message MRAed, 2 bits.
     * @return this.
     */
    public CmMra messageMraed(final int message)
    {
        return bits(MESSAGE_MRAED_OFFSET, MESSAGE_SHIFT, MESSAGE_MASK, message);
    }

    /** @return Service Timeout, 5 bits: 4.096 µs · 2^n more the sender should wait; Linux sends 24. */
    public int serviceTimeout()
    {
        return bits(SERVICE_TIMEOUT_OFFSET, TIMEOUT_SHIFT, TIMEOUT_MASK);
    }

    /**
     * @param timeout Service Timeout, 5 bits.
     * @return this.
     */
    public CmMra serviceTimeout(final int timeout)
    {
        return bits(SERVICE_TIMEOUT_OFFSET, TIMEOUT_SHIFT, TIMEOUT_MASK, timeout);
    }
}
