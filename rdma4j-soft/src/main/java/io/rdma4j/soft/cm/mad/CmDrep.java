package io.rdma4j.soft.cm.mad;

/**
 * Flyweight over the body of a CM DREP, the answer to a DREQ. Either side may disconnect, and both may do so at
 * once, so a DREP can cross a DREQ on the wire. Offsets count from the first byte after the MAD header:
 * <pre>
 *   0 Local Communication ID            4 Remote Communication ID           8 private data (224 bytes)
 * </pre>
 */
public final class CmDrep extends CmCommIdsBody<CmDrep>
{
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 8;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = CmMad.MAD_LENGTH - CmMad.HEADER_LENGTH - PRIVATE_DATA_OFFSET;

    /** Create an unwrapped flyweight; {@link #wrap} it, at the start of the MAD, before use. */
    public CmDrep()
    {
        super(PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }
}
