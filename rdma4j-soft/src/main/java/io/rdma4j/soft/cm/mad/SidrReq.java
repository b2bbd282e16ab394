package io.rdma4j.soft.cm.mad;

import java.lang.foreign.MemorySegment;

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
public final class SidrReq
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

    private MemorySegment segment;
    private long offset;
    private long body;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public SidrReq()
    {
    }

    /**
     * Point this flyweight at a MAD holding a SIDR_REQ.
     *
     * @param segment the memory holding the MAD.
     * @param offset  where the MAD (not the SIDR_REQ body) starts in {@code segment}.
     * @return this.
     */
    public SidrReq wrap(final MemorySegment segment, final long offset)
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

    /** @return where the private data starts in {@link #segment()}, to wrap a {@link CmaHeader} there. */
    public long privateDataOffset()
    {
        return body + PRIVATE_DATA_OFFSET;
    }

    /** @return the Request ID: the requester's handle, echoed in the SIDR_REP. */
    public int requestId()
    {
        return MadFields.u32(segment, body + REQUEST_ID_OFFSET);
    }

    /**
     * @param requestId the Request ID.
     * @return this.
     */
    public SidrReq requestId(final int requestId)
    {
        MadFields.u32(segment, body + REQUEST_ID_OFFSET, requestId);
        return this;
    }

    /** @return the Partition Key, 16 bits. */
    public int partitionKey()
    {
        return MadFields.u16(segment, body + PARTITION_KEY_OFFSET);
    }

    /**
     * @param partitionKey the Partition Key, 16 bits.
     * @return this.
     */
    public SidrReq partitionKey(final int partitionKey)
    {
        MadFields.u16(segment, body + PARTITION_KEY_OFFSET, partitionKey);
        return this;
    }

    /** @return the Service ID to resolve; see {@link ServiceId}. */
    public long serviceId()
    {
        return MadFields.u64(segment, body + SERVICE_ID_OFFSET);
    }

    /**
     * @param serviceId the Service ID.
     * @return this.
     */
    public SidrReq serviceId(final long serviceId)
    {
        MadFields.u64(segment, body + SERVICE_ID_OFFSET, serviceId);
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
    public SidrReq privateData(final byte[] src, final int length)
    {
        MadFields.copyIn(segment, body + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, src, length);
        return this;
    }
}
