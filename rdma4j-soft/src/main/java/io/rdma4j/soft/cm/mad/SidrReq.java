package io.rdma4j.soft.cm.mad;

/**
 * Flyweight over the body of a CM SIDR_REQ: the UD "connect" of {@code rdma_connect} on a UDP port space id,
 * which asks the listener on a service ID for its QPN and Q_Key. Offsets count from the first byte after the MAD
 * header:
 * <pre>
 *   0 Request ID                        4 Partition Key(16) | reserved(16)
 *   8 Service ID (64)                  16 private data (216 bytes)
 * </pre>
 * rdma_cm puts a {@link CmaHeader} at the start of the private data, as in a REQ.
 */
public final class SidrReq extends CmBody<SidrReq>
{
    /** Offset of the Request ID. */
    public static final int REQUEST_ID_OFFSET = 0;
    /** Offset of the 16-bit Partition Key. */
    public static final int PARTITION_KEY_OFFSET = 4;
    /** Offset of the 64-bit Service ID. */
    public static final int SERVICE_ID_OFFSET = 8;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 16;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = CmMad.MAD_LENGTH - CmMad.HEADER_LENGTH - PRIVATE_DATA_OFFSET;

    /** Create an unwrapped flyweight; {@link #wrap} it, at the start of the MAD, before use. */
    public SidrReq()
    {
        super(PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /** @return the Request ID: the requester's handle, echoed in the SIDR_REP. */
    public int requestId()
    {
        return u32(REQUEST_ID_OFFSET);
    }

    /**
     * @param requestId the Request ID.
     * @return this.
     */
    public SidrReq requestId(final int requestId)
    {
        return u32(REQUEST_ID_OFFSET, requestId);
    }

    /** @return the Partition Key, 16 bits. */
    public int partitionKey()
    {
        return u16(PARTITION_KEY_OFFSET);
    }

    /**
     * @param partitionKey the Partition Key, 16 bits.
     * @return this.
     */
    public SidrReq partitionKey(final int partitionKey)
    {
        return u16(PARTITION_KEY_OFFSET, partitionKey);
    }

    /** @return the Service ID to resolve; see {@link ServiceId}. */
    public long serviceId()
    {
        return u64(SERVICE_ID_OFFSET);
    }

    /**
     * @param serviceId the Service ID.
     * @return this.
     */
    public SidrReq serviceId(final long serviceId)
    {
        return u64(SERVICE_ID_OFFSET, serviceId);
    }
}
