package io.rdma4j.soft.cm.mad;

import java.lang.foreign.MemorySegment;

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
public final class CmRep
{
    /** Offset of the Local Communication ID. */
    public static final int LOCAL_COMM_ID_OFFSET = 0;
    /** Offset of the Remote Communication ID. */
    public static final int REMOTE_COMM_ID_OFFSET = 4;
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

    private MemorySegment segment;
    private long offset;
    private long body;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public CmRep()
    {
    }

    /**
     * Point this flyweight at a MAD holding a REP.
     *
     * @param segment the memory holding the MAD.
     * @param offset  where the MAD (not the REP body) starts in {@code segment}.
     * @return this.
     */
    public CmRep wrap(final MemorySegment segment, final long offset)
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

    /** @return the Local Communication ID: the passive side's handle for the connection. */
    public int localCommId()
    {
        return MadFields.u32(segment, body + LOCAL_COMM_ID_OFFSET);
    }

    /**
     * @param localCommId the Local Communication ID.
     * @return this.
     */
    public CmRep localCommId(final int localCommId)
    {
        MadFields.u32(segment, body + LOCAL_COMM_ID_OFFSET, localCommId);
        return this;
    }

    /** @return the Remote Communication ID: the REQ's Local Communication ID, echoed. */
    public int remoteCommId()
    {
        return MadFields.u32(segment, body + REMOTE_COMM_ID_OFFSET);
    }

    /**
     * @param remoteCommId the Remote Communication ID.
     * @return this.
     */
    public CmRep remoteCommId(final int remoteCommId)
    {
        MadFields.u32(segment, body + REMOTE_COMM_ID_OFFSET, remoteCommId);
        return this;
    }

    /** @return the Local Q_Key; RD only, 0 from rdma_cm. */
    public int localQkey()
    {
        return MadFields.u32(segment, body + LOCAL_QKEY_OFFSET);
    }

    /**
     * @param localQkey the Local Q_Key.
     * @return this.
     */
    public CmRep localQkey(final int localQkey)
    {
        MadFields.u32(segment, body + LOCAL_QKEY_OFFSET, localQkey);
        return this;
    }

    /** @return the Local QPN, 24 bits: the QP the active side must send to. */
    public int localQpn()
    {
        return MadFields.high24(segment, body + LOCAL_QPN_OFFSET);
    }

    /**
     * Write the Local QPN, keeping the Vendor ID byte after it.
     *
     * @param localQpn the Local QPN, 24 bits.
     * @return this.
     */
    public CmRep localQpn(final int localQpn)
    {
        MadFields.high24(segment, body + LOCAL_QPN_OFFSET, localQpn);
        return this;
    }

    /** @return the Local EECN, 24 bits; RD only (and the XRC target's QPN), 0 otherwise. */
    public int localEecn()
    {
        return MadFields.high24(segment, body + LOCAL_EECN_OFFSET);
    }

    /**
     * @param localEecn the Local EECN, 24 bits.
     * @return this.
     */
    public CmRep localEecn(final int localEecn)
    {
        MadFields.high24(segment, body + LOCAL_EECN_OFFSET, localEecn);
        return this;
    }

    /**
     * As with the REQ's, the sender names the PSN it expects to receive: the passive side's receive PSN, from which
     * the active side sends.
     *
     * @return the Starting PSN, 24 bits: the first PSN the active side sends.
     */
    public int startingPsn()
    {
        return MadFields.high24(segment, body + STARTING_PSN_OFFSET);
    }

    /**
     * @param startingPsn the Starting PSN, 24 bits.
     * @return this.
     */
    public CmRep startingPsn(final int startingPsn)
    {
        MadFields.high24(segment, body + STARTING_PSN_OFFSET, startingPsn);
        return this;
    }

    /** @return the ECE Vendor ID, 24 bits, gathered from its three bytes; 0 from senders without ECE. */
    public int vendorId()
    {
        return MadFields.u8(segment, body + VENDOR_ID_HIGH_OFFSET) << 16 |
            MadFields.u8(segment, body + VENDOR_ID_MIDDLE_OFFSET) << 8 |
            MadFields.u8(segment, body + VENDOR_ID_LOW_OFFSET);
    }

    /**
     * @param vendorId the Vendor ID, 24 bits, scattered over its three bytes.
     * @return this.
     */
    public CmRep vendorId(final int vendorId)
    {
        MadFields.u8(segment, body + VENDOR_ID_HIGH_OFFSET, vendorId >>> 16);
        MadFields.u8(segment, body + VENDOR_ID_MIDDLE_OFFSET, vendorId >>> 8);
        MadFields.u8(segment, body + VENDOR_ID_LOW_OFFSET, vendorId);
        return this;
    }

    /** @return Responder Resources: RDMA READs and atomics the passive side serves at once, capping the peer's. */
    public int responderResources()
    {
        return MadFields.u8(segment, body + RESPONDER_RESOURCES_OFFSET);
    }

    /**
     * @param responderResources Responder Resources, 8 bits.
     * @return this.
     */
    public CmRep responderResources(final int responderResources)
    {
        MadFields.u8(segment, body + RESPONDER_RESOURCES_OFFSET, responderResources);
        return this;
    }

    /** @return Initiator Depth: RDMA READs and atomics the passive side keeps outstanding at once. */
    public int initiatorDepth()
    {
        return MadFields.u8(segment, body + INITIATOR_DEPTH_OFFSET);
    }

    /**
     * @param initiatorDepth Initiator Depth, 8 bits.
     * @return this.
     */
    public CmRep initiatorDepth(final int initiatorDepth)
    {
        MadFields.u8(segment, body + INITIATOR_DEPTH_OFFSET, initiatorDepth);
        return this;
    }

    /** @return Target ACK Delay, 5 bits: the passive device's ACK delay, which the active side adds to its timeout. */
    public int targetAckDelay()
    {
        return MadFields.bits(segment, body + TARGET_ACK_DELAY_OFFSET, ACK_DELAY_SHIFT, ACK_DELAY_MASK);
    }

    /**
     * @param targetAckDelay Target ACK Delay, 5 bits.
     * @return this.
     */
    public CmRep targetAckDelay(final int targetAckDelay)
    {
        MadFields.bits(segment, body + TARGET_ACK_DELAY_OFFSET, ACK_DELAY_SHIFT, ACK_DELAY_MASK, targetAckDelay);
        return this;
    }

    /** @return Failover Accepted, 2 bits: one of the {@code FAILOVER_} constants. */
    public int failoverAccepted()
    {
        return MadFields.bits(segment, body + TARGET_ACK_DELAY_OFFSET, FAILOVER_SHIFT, FAILOVER_MASK);
    }

    /**
     * @param failoverAccepted Failover Accepted, 2 bits.
     * @return this.
     */
    public CmRep failoverAccepted(final int failoverAccepted)
    {
        MadFields.bits(segment, body + TARGET_ACK_DELAY_OFFSET, FAILOVER_SHIFT, FAILOVER_MASK, failoverAccepted);
        return this;
    }

    /** @return End-to-End Flow Control of the passive side's receive queue. */
    public boolean endToEndFlowControl()
    {
        return MadFields.flag(segment, body + TARGET_ACK_DELAY_OFFSET, FLOW_CONTROL_SHIFT);
    }

    /**
     * @param on End-to-End Flow Control.
     * @return this.
     */
    public CmRep endToEndFlowControl(final boolean on)
    {
        MadFields.flag(segment, body + TARGET_ACK_DELAY_OFFSET, FLOW_CONTROL_SHIFT, on);
        return this;
    }

    /** @return RNR Retry Count, 3 bits, for the active side's QP. */
    public int rnrRetryCount()
    {
        return MadFields.bits(segment, body + RNR_RETRY_COUNT_OFFSET, RNR_RETRY_SHIFT, RNR_RETRY_MASK);
    }

    /**
     * @param rnrRetryCount RNR Retry Count, 3 bits.
     * @return this.
     */
    public CmRep rnrRetryCount(final int rnrRetryCount)
    {
        MadFields.bits(segment, body + RNR_RETRY_COUNT_OFFSET, RNR_RETRY_SHIFT, RNR_RETRY_MASK, rnrRetryCount);
        return this;
    }

    /** @return SRQ: whether the passive side's QP takes receives from a shared receive queue. */
    public boolean srq()
    {
        return MadFields.flag(segment, body + RNR_RETRY_COUNT_OFFSET, SRQ_SHIFT);
    }

    /**
     * @param srq SRQ.
     * @return this.
     */
    public CmRep srq(final boolean srq)
    {
        MadFields.flag(segment, body + RNR_RETRY_COUNT_OFFSET, SRQ_SHIFT, srq);
        return this;
    }

    /** @return the Local CA GUID: the passive side's node GUID. */
    public long localCaGuid()
    {
        return MadFields.u64(segment, body + LOCAL_CA_GUID_OFFSET);
    }

    /**
     * @param localCaGuid the Local CA GUID.
     * @return this.
     */
    public CmRep localCaGuid(final long localCaGuid)
    {
        MadFields.u64(segment, body + LOCAL_CA_GUID_OFFSET, localCaGuid);
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
    public CmRep privateData(final byte[] src, final int length)
    {
        MadFields.copyIn(segment, body + PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH, src, length);
        return this;
    }
}
