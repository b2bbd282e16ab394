package io.rdma4j.soft.cm.mad;

/**
 * Flyweight over the body of a CM SIDR_REP: the listener's answer to a SIDR_REQ, with the QPN and Q_Key to send
 * datagrams to, or a refusal. Offsets count from the first byte after the MAD header:
 * <pre>
 *   0 Request ID
 *   4 Status(8) | Additional Information Length(8) | Vendor ID high(16)
 *   8 QPN(24) | Vendor ID low(8)
 *  12 Service ID (64)                  20 Q_Key
 *  24 Additional Information (72 bytes)                                    96 private data (136 bytes)
 * </pre>
 * There is no RTU after a SIDR_REP: the exchange is one request and one reply.
 */
public final class SidrRep extends CmBody<SidrRep>
{
    /** Offset of the Request ID. */
    public static final int REQUEST_ID_OFFSET = 0;
    /** Offset of Status. */
    public static final int STATUS_OFFSET = 4;
    /** Offset of Additional Information Length. */
    public static final int ADDITIONAL_INFO_LENGTH_OFFSET = 5;
    /** Offset of the 16 high bits of the Vendor ID. */
    public static final int VENDOR_ID_HIGH_OFFSET = 6;
    /** Offset of the 24-bit QPN. */
    public static final int QPN_OFFSET = 8;
    /** Offset of the low byte of the Vendor ID. */
    public static final int VENDOR_ID_LOW_OFFSET = 11;
    /** Offset of the 64-bit Service ID. */
    public static final int SERVICE_ID_OFFSET = 12;
    /** Offset of the Q_Key. */
    public static final int QKEY_OFFSET = 20;
    /** Offset of the Additional Information. */
    public static final int ADDITIONAL_INFO_OFFSET = 24;
    /** Length of the Additional Information area. */
    public static final int ADDITIONAL_INFO_LENGTH = 72;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = ADDITIONAL_INFO_OFFSET + ADDITIONAL_INFO_LENGTH;
    /** Length of the private data. */
    public static final int PRIVATE_DATA_LENGTH = CmMad.MAD_LENGTH - CmMad.HEADER_LENGTH - PRIVATE_DATA_OFFSET;

    /** Create an unwrapped flyweight; {@link #wrap} it, at the start of the MAD, before use. */
    public SidrRep()
    {
        super(PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /** @return the Request ID of the SIDR_REQ answered. */
    public int requestId()
    {
        return u32(REQUEST_ID_OFFSET);
    }

    /**
     * @param requestId the Request ID.
     * @return this.
     */
    public SidrRep requestId(final int requestId)
    {
        return u32(REQUEST_ID_OFFSET, requestId);
    }

    /** @return Status, 8 bits; see {@link SidrStatus}. Only with success do the QPN and Q_Key mean anything. */
    public int status()
    {
        return u8(STATUS_OFFSET);
    }

    /**
     * @param status Status, 8 bits.
     * @return this.
     */
    public SidrRep status(final int status)
    {
        return u8(STATUS_OFFSET, status);
    }

    /** @return Additional Information Length, 8 bits: how many bytes of the additional information count. */
    public int additionalInfoLength()
    {
        return u8(ADDITIONAL_INFO_LENGTH_OFFSET);
    }

    /**
     * @param length Additional Information Length, 8 bits.
     * @return this.
     */
    public SidrRep additionalInfoLength(final int length)
    {
        return u8(ADDITIONAL_INFO_LENGTH_OFFSET, length);
    }

    /**
     * The IBTA splits it into a 16-bit and an 8-bit part; Linux fills the high part from bits 15:8 only, so a
     * Linux peer never sends more than 16 bits of it.
     *
     * @return the ECE Vendor ID, 24 bits, gathered from its two places; 0 from senders without ECE.
     */
    public int vendorId()
    {
        return u16(VENDOR_ID_HIGH_OFFSET) << 8 | u8(VENDOR_ID_LOW_OFFSET);
    }

    /**
     * @param vendorId the Vendor ID, 24 bits, scattered over its two places.
     * @return this.
     */
    public SidrRep vendorId(final int vendorId)
    {
        u16(VENDOR_ID_HIGH_OFFSET, vendorId >>> 8);
        return u8(VENDOR_ID_LOW_OFFSET, vendorId);
    }

    /** @return the QPN, 24 bits, of the listener's UD QP. */
    public int qpn()
    {
        return high24(QPN_OFFSET);
    }

    /**
     * Write the QPN, keeping the Vendor ID byte after it.
     *
     * @param qpn the QPN, 24 bits.
     * @return this.
     */
    public SidrRep qpn(final int qpn)
    {
        return high24(QPN_OFFSET, qpn);
    }

    /** @return the Service ID, echoed from the SIDR_REQ. */
    public long serviceId()
    {
        return u64(SERVICE_ID_OFFSET);
    }

    /**
     * @param serviceId the Service ID.
     * @return this.
     */
    public SidrRep serviceId(final long serviceId)
    {
        return u64(SERVICE_ID_OFFSET, serviceId);
    }

    /** @return the Q_Key datagrams to the QPN must carry; rdma_cm's default is 0x01234567. */
    public int qkey()
    {
        return u32(QKEY_OFFSET);
    }

    /**
     * @param qkey the Q_Key.
     * @return this.
     */
    public SidrRep qkey(final int qkey)
    {
        return u32(QKEY_OFFSET, qkey);
    }

    /**
     * Copy the Additional Information out (a redirect's class port info, for instance). Only
     * {@link #additionalInfoLength()} of its bytes are meaningful.
     *
     * @param dst where to copy; up to {@link #ADDITIONAL_INFO_LENGTH} bytes are copied.
     * @return how many bytes were copied.
     */
    public int additionalInfo(final byte[] dst)
    {
        return copyOut(ADDITIONAL_INFO_OFFSET, ADDITIONAL_INFO_LENGTH, dst);
    }

    /**
     * Copy bytes into the Additional Information and zero the rest of it. This does not set
     * {@link #additionalInfoLength(int)}.
     *
     * @param src    the bytes.
     * @param length how many of them, at most {@link #ADDITIONAL_INFO_LENGTH}.
     * @return this.
     */
    public SidrRep additionalInfo(final byte[] src, final int length)
    {
        return copyIn(ADDITIONAL_INFO_OFFSET, ADDITIONAL_INFO_LENGTH, src, length);
    }
}
