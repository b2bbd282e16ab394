package io.rdma4j.soft.cm.mad;

/**
 * Flyweight over the body of a CM REP, the passive side's answer to a REQ ({@code rdma_accept}). Offsets count
 * from the first byte after the MAD header:
 * <pre>
 *   0 Local Communication ID            4 Remote Communication ID           8 Local Q_Key
 *  12 Local QPN(24) | Vendor ID high(8)
 *  16 Local EECN(24) | Vendor ID middle(8)
 *  20 Starting PSN(24) | Vendor ID low(8)
 *  24 Responder Resources(8) | Initiator Depth(8)
 *     | Target ACK Delay[7:3] Failover Accepted[2:1] End-to-End Flow Control[0]
 *     | RNR Retry Count[7:5] SRQ[4] reserved[3:0]
 *  28 Local CA GUID (64)               36 private data (196 bytes)
 * </pre>
 * The ECE Vendor ID is split over the spare bytes of three words; {@link #vendorId()} puts it back together.
 */
public final class CmRep extends CmCommIdsBody<CmRep>
{
    /** Offset of the Local Q_Key. */
    public static final int LOCAL_QKEY_OFFSET = 8;
    /** Offset of the 24-bit Local QPN. */
    public static final int LOCAL_QPN_OFFSET = 12;
    /** Offset of the top byte of the Vendor ID. */
    public static final int VENDOR_ID_HIGH_OFFSET = 15;
    /** Offset of the 24-bit Local EECN. */
    public static final int LOCAL_EECN_OFFSET = 16;
    /** Offset of the middle byte of the Vendor ID. */
    public static final int VENDOR_ID_MIDDLE_OFFSET = 19;
    /** Offset of the 24-bit Starting PSN. */
    public static final int STARTING_PSN_OFFSET = 20;
    /** Offset of the bottom byte of the Vendor ID. */
    public static final int VENDOR_ID_LOW_OFFSET = 23;
    /** Offset of Responder Resources. */
    public static final int RESPONDER_RESOURCES_OFFSET = 24;
    /** Offset of Initiator Depth. */
    public static final int INITIATOR_DEPTH_OFFSET = 25;
    /** Offset of the byte holding Target ACK Delay, Failover Accepted and End-to-End Flow Control. */
    public static final int TARGET_ACK_DELAY_OFFSET = 26;
    /** Offset of the byte holding RNR Retry Count and SRQ. */
    public static final int RNR_RETRY_COUNT_OFFSET = 27;
    /** Offset of the 64-bit Local CA GUID. */
    public static final int LOCAL_CA_GUID_OFFSET = 28;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 36;
    /** Length of the private data, all of it the user's: rdma_cm adds no header to a REP. */
    public static final int PRIVATE_DATA_LENGTH = CmMad.MAD_LENGTH - CmMad.HEADER_LENGTH - PRIVATE_DATA_OFFSET;

    /** Failover Accepted: the alternate path is accepted. */
    public static final int FAILOVER_ACCEPTED = 0;
    /** Failover Accepted: failover is not supported. */
    public static final int FAILOVER_NOT_SUPPORTED = 1;
    /** Failover Accepted: the alternate path is rejected. */
    public static final int FAILOVER_REJECTED = 2;

    private static final int ACK_DELAY_SHIFT = 3;
    private static final int ACK_DELAY_MASK = 0x1F;
    private static final int FAILOVER_SHIFT = 1;
    private static final int FAILOVER_MASK = 0x3;
    private static final int FLOW_CONTROL_SHIFT = 0;
    private static final int RNR_RETRY_SHIFT = 5;
    private static final int RNR_RETRY_MASK = 0x7;
    private static final int SRQ_SHIFT = 4;

    /** Create an unwrapped flyweight; {@link #wrap} it, at the start of the MAD, before use. */
    public CmRep()
    {
        super(PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /** @return the Local Q_Key; RD only, 0 from rdma_cm. */
    public int localQkey()
    {
        return u32(LOCAL_QKEY_OFFSET);
    }

    /**
     * @param localQkey the Local Q_Key.
     * @return this.
     */
    public CmRep localQkey(final int localQkey)
    {
        return u32(LOCAL_QKEY_OFFSET, localQkey);
    }

    /** @return the Local QPN, 24 bits: the QP the active side must send to. */
    public int localQpn()
    {
        return high24(LOCAL_QPN_OFFSET);
    }

    /**
     * Write the Local QPN, keeping the Vendor ID byte after it.
     *
     * @param localQpn the Local QPN, 24 bits.
     * @return this.
     */
    public CmRep localQpn(final int localQpn)
    {
        return high24(LOCAL_QPN_OFFSET, localQpn);
    }

    /** @return the Local EECN, 24 bits; RD only (and the XRC target's QPN), 0 otherwise. */
    public int localEecn()
    {
        return high24(LOCAL_EECN_OFFSET);
    }

    /**
     * @param localEecn the Local EECN, 24 bits.
     * @return this.
     */
    public CmRep localEecn(final int localEecn)
    {
        return high24(LOCAL_EECN_OFFSET, localEecn);
    }

    /**
     * As with the REQ's, the sender names the PSN it expects to receive: the passive side's receive PSN, from which
     * the active side sends.
     *
     * @return the Starting PSN, 24 bits: the first PSN the active side sends.
     */
    public int startingPsn()
    {
        return high24(STARTING_PSN_OFFSET);
    }

    /**
     * @param startingPsn the Starting PSN, 24 bits.
     * @return this.
     */
    public CmRep startingPsn(final int startingPsn)
    {
        return high24(STARTING_PSN_OFFSET, startingPsn);
    }

    /** @return the ECE Vendor ID, 24 bits, gathered from its three bytes; 0 from senders without ECE. */
    public int vendorId()
    {
        return u8(VENDOR_ID_HIGH_OFFSET) << 16 | u8(VENDOR_ID_MIDDLE_OFFSET) << 8 | u8(VENDOR_ID_LOW_OFFSET);
    }

    /**
     * @param vendorId the Vendor ID, 24 bits, scattered over its three bytes.
     * @return this.
     */
    public CmRep vendorId(final int vendorId)
    {
        u8(VENDOR_ID_HIGH_OFFSET, vendorId >>> 16);
        u8(VENDOR_ID_MIDDLE_OFFSET, vendorId >>> 8);
        return u8(VENDOR_ID_LOW_OFFSET, vendorId);
    }

    /** @return Responder Resources: RDMA READs and atomics the passive side serves at once, capping the peer's. */
    public int responderResources()
    {
        return u8(RESPONDER_RESOURCES_OFFSET);
    }

    /**
     * @param responderResources Responder Resources, 8 bits.
     * @return this.
     */
    public CmRep responderResources(final int responderResources)
    {
        return u8(RESPONDER_RESOURCES_OFFSET, responderResources);
    }

    /** @return Initiator Depth: RDMA READs and atomics the passive side keeps outstanding at once. */
    public int initiatorDepth()
    {
        return u8(INITIATOR_DEPTH_OFFSET);
    }

    /**
     * @param initiatorDepth Initiator Depth, 8 bits.
     * @return this.
     */
    public CmRep initiatorDepth(final int initiatorDepth)
    {
        return u8(INITIATOR_DEPTH_OFFSET, initiatorDepth);
    }

    /** @return Target ACK Delay, 5 bits: the passive device's ACK delay, which the active side adds to its timeout. */
    public int targetAckDelay()
    {
        return bits(TARGET_ACK_DELAY_OFFSET, ACK_DELAY_SHIFT, ACK_DELAY_MASK);
    }

    /**
     * @param targetAckDelay Target ACK Delay, 5 bits.
     * @return this.
     */
    public CmRep targetAckDelay(final int targetAckDelay)
    {
        return bits(TARGET_ACK_DELAY_OFFSET, ACK_DELAY_SHIFT, ACK_DELAY_MASK, targetAckDelay);
    }

    /** @return Failover Accepted, 2 bits: one of the {@code FAILOVER_} constants. */
    public int failoverAccepted()
    {
        return bits(TARGET_ACK_DELAY_OFFSET, FAILOVER_SHIFT, FAILOVER_MASK);
    }

    /**
     * @param failoverAccepted Failover Accepted, 2 bits.
     * @return this.
     */
    public CmRep failoverAccepted(final int failoverAccepted)
    {
        return bits(TARGET_ACK_DELAY_OFFSET, FAILOVER_SHIFT, FAILOVER_MASK, failoverAccepted);
    }

    /** @return End-to-End Flow Control of the passive side's receive queue. */
    public boolean endToEndFlowControl()
    {
        return flag(TARGET_ACK_DELAY_OFFSET, FLOW_CONTROL_SHIFT);
    }

    /**
     * @param on End-to-End Flow Control.
     * @return this.
     */
    public CmRep endToEndFlowControl(final boolean on)
    {
        return flag(TARGET_ACK_DELAY_OFFSET, FLOW_CONTROL_SHIFT, on);
    }

    /** @return RNR Retry Count, 3 bits, for the active side's QP. */
    public int rnrRetryCount()
    {
        return bits(RNR_RETRY_COUNT_OFFSET, RNR_RETRY_SHIFT, RNR_RETRY_MASK);
    }

    /**
     * @param rnrRetryCount RNR Retry Count, 3 bits.
     * @return this.
     */
    public CmRep rnrRetryCount(final int rnrRetryCount)
    {
        return bits(RNR_RETRY_COUNT_OFFSET, RNR_RETRY_SHIFT, RNR_RETRY_MASK, rnrRetryCount);
    }

    /** @return SRQ: whether the passive side's QP takes receives from a shared receive queue. */
    public boolean srq()
    {
        return flag(RNR_RETRY_COUNT_OFFSET, SRQ_SHIFT);
    }

    /**
     * @param srq SRQ.
     * @return this.
     */
    public CmRep srq(final boolean srq)
    {
        return flag(RNR_RETRY_COUNT_OFFSET, SRQ_SHIFT, srq);
    }

    /** @return the Local CA GUID: the passive side's node GUID. */
    public long localCaGuid()
    {
        return u64(LOCAL_CA_GUID_OFFSET);
    }

    /**
     * @param localCaGuid the Local CA GUID.
     * @return this.
     */
    public CmRep localCaGuid(final long localCaGuid)
    {
        return u64(LOCAL_CA_GUID_OFFSET, localCaGuid);
    }
}
