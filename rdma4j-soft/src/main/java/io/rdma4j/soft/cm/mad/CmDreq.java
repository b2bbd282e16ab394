package io.rdma4j.soft.cm.mad;

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
public final class CmDreq extends CmCommIdsBody<CmDreq>
{
    /** Offset of the 24-bit Remote QPN/EECN. */
    public static final int REMOTE_QPN_OFFSET = 8;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 12;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = CmMad.MAD_LENGTH - CmMad.HEADER_LENGTH - PRIVATE_DATA_OFFSET;

    /** Create an unwrapped flyweight; {@link #wrap} it, at the start of the MAD, before use. */
    public CmDreq()
    {
        super(PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /** @return the Remote QPN/EECN, 24 bits: the receiver's QP number as the sender knows it. */
    public int remoteQpn()
    {
        return high24(REMOTE_QPN_OFFSET);
    }

    /**
     * Write the Remote QPN/EECN, keeping the reserved byte after it.
     *
     * @param remoteQpn the Remote QPN/EECN, 24 bits.
     * @return this.
     */
    public CmDreq remoteQpn(final int remoteQpn)
    {
        return high24(REMOTE_QPN_OFFSET, remoteQpn);
    }
}
