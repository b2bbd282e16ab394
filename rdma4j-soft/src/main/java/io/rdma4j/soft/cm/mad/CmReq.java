package io.rdma4j.soft.cm.mad;

/**
 * Flyweight over the body of a CM REQ, the connection request the active side of {@code rdma_connect} sends.
 * Offsets count from the first byte after the MAD header, as the IBTA tables do:
 * <pre>
 *   0 Local Communication ID            4 reserved(8) | Vendor ID(24)
 *   8 Service ID (64)                  16 Local CA GUID (64)
 *  24 reserved (32)                    28 Local Q_Key
 *  32 Local QPN(24) | Responder Resources(8)
 *  36 Local EECN(24) | Initiator Depth(8)
 *  40 Remote EECN(24) | Remote CM Response Timeout[7:3] Transport Service Type[2:1] End-to-End Flow Control[0]
 *  44 Starting PSN(24) | Local CM Response Timeout[7:3] Retry Count[2:0]
 *  48 Partition Key(16) | Path MTU[7:4] RDC Exists[3] RNR Retry Count[2:0]
 *                       | Max CM Retries[7:4] SRQ[3] Extended Transport Type[2:0]
 *  52 primary path (44 bytes)          96 alternate path (44 bytes)        140 private data (92 bytes)
 * </pre>
 * A path is: local LID(16), remote LID(16), local GID(128), remote GID(128), flow label(20) reserved(6) packet
 * rate(6), traffic class(8), hop limit(8), SL[7:4] subnet local[3], local ACK timeout[7:3]. On RoCE the GIDs are
 * the IPv4-mapped addresses of the two ends and the LIDs mean nothing. rdma_cm never fills the alternate path on
 * RoCE, so it is only copied as bytes here. The 24-bit fields sit in the high three bytes of their word.
 */
public final class CmReq extends CmBody<CmReq>
{
    /** Offset of the Local Communication ID. */
    public static final int LOCAL_COMM_ID_OFFSET = 0;
    /** Offset of the 32-bit word whose low 24 bits are the ECE Vendor ID. */
    public static final int VENDOR_ID_OFFSET = 4;
    /** Offset of the 64-bit Service ID. */
    public static final int SERVICE_ID_OFFSET = 8;
    /** Offset of the 64-bit Local CA GUID. */
    public static final int LOCAL_CA_GUID_OFFSET = 16;
    /** Offset of the Local Q_Key. */
    public static final int LOCAL_QKEY_OFFSET = 28;
    /** Offset of the 24-bit Local QPN. */
    public static final int LOCAL_QPN_OFFSET = 32;
    /** Offset of Responder Resources. */
    public static final int RESPONDER_RESOURCES_OFFSET = 35;
    /** Offset of the 24-bit Local EECN. */
    public static final int LOCAL_EECN_OFFSET = 36;
    /** Offset of Initiator Depth. */
    public static final int INITIATOR_DEPTH_OFFSET = 39;
    /** Offset of the 24-bit Remote EECN. */
    public static final int REMOTE_EECN_OFFSET = 40;
    /** Offset of the byte holding Remote CM Response Timeout, Transport Service Type and End-to-End Flow Control. */
    public static final int REMOTE_CM_RESPONSE_TIMEOUT_OFFSET = 43;
    /** Offset of the 24-bit Starting PSN. */
    public static final int STARTING_PSN_OFFSET = 44;
    /** Offset of the byte holding Local CM Response Timeout and Retry Count. */
    public static final int LOCAL_CM_RESPONSE_TIMEOUT_OFFSET = 47;
    /** Offset of the 16-bit Partition Key. */
    public static final int PARTITION_KEY_OFFSET = 48;
    /** Offset of the byte holding Path MTU, RDC Exists and RNR Retry Count. */
    public static final int PATH_MTU_OFFSET = 50;
    /** Offset of the byte holding Max CM Retries, SRQ and Extended Transport Type. */
    public static final int MAX_CM_RETRIES_OFFSET = 51;
    /** Offset of the primary path. */
    public static final int PRIMARY_PATH_OFFSET = 52;
    /** Offset of the alternate path. */
    public static final int ALTERNATE_PATH_OFFSET = 96;
    /** Length of each path. */
    public static final int PATH_LENGTH = ALTERNATE_PATH_OFFSET - PRIMARY_PATH_OFFSET;
    /** Offset of the private data. */
    public static final int PRIVATE_DATA_OFFSET = 140;
    /** Length of the private data; rdma_cm uses its first 36 bytes for a {@link CmaHeader}. */
    public static final int PRIVATE_DATA_LENGTH = CmMad.MAD_LENGTH - CmMad.HEADER_LENGTH - PRIVATE_DATA_OFFSET;

    /** Offset of the primary Local Port LID. */
    public static final int PRIMARY_LOCAL_PORT_LID_OFFSET = PRIMARY_PATH_OFFSET;
    /** Offset of the primary Remote Port LID. */
    public static final int PRIMARY_REMOTE_PORT_LID_OFFSET = PRIMARY_PATH_OFFSET + 2;
    /** Offset of the 16-byte primary Local Port GID. */
    public static final int PRIMARY_LOCAL_PORT_GID_OFFSET = PRIMARY_PATH_OFFSET + 4;
    /** Offset of the 16-byte primary Remote Port GID. */
    public static final int PRIMARY_REMOTE_PORT_GID_OFFSET = PRIMARY_PATH_OFFSET + 20;
    /** Offset of the word whose top 20 bits are the primary Flow Label and low 6 bits the Packet Rate. */
    public static final int PRIMARY_FLOW_LABEL_OFFSET = PRIMARY_PATH_OFFSET + 36;
    /** Offset of the byte whose low 6 bits are the primary Packet Rate. */
    public static final int PRIMARY_PACKET_RATE_OFFSET = PRIMARY_PATH_OFFSET + 39;
    /** Offset of the primary Traffic Class. */
    public static final int PRIMARY_TRAFFIC_CLASS_OFFSET = PRIMARY_PATH_OFFSET + 40;
    /** Offset of the primary Hop Limit. */
    public static final int PRIMARY_HOP_LIMIT_OFFSET = PRIMARY_PATH_OFFSET + 41;
    /** Offset of the byte holding the primary SL and Subnet Local. */
    public static final int PRIMARY_SL_OFFSET = PRIMARY_PATH_OFFSET + 42;
    /** Offset of the byte holding the primary Local ACK Timeout. */
    public static final int PRIMARY_LOCAL_ACK_TIMEOUT_OFFSET = PRIMARY_PATH_OFFSET + 43;

    /** Transport Service Type of a reliable connection. */
    public static final int TRANSPORT_RC = 0;
    /** Transport Service Type of an unreliable connection. */
    public static final int TRANSPORT_UC = 1;
    /** Transport Service Type that defers to Extended Transport Type, which then says XRC. */
    public static final int TRANSPORT_EXTENDED = 3;

    private static final int TIMEOUT_SHIFT = 3;
    private static final int TIMEOUT_MASK = 0x1F;
    private static final int TRANSPORT_SHIFT = 1;
    private static final int TRANSPORT_MASK = 0x3;
    private static final int FLOW_CONTROL_SHIFT = 0;
    private static final int COUNT_MASK = 0x7;
    private static final int NIBBLE_SHIFT = 4;
    private static final int NIBBLE_MASK = 0xF;
    private static final int MIDDLE_FLAG_SHIFT = 3;
    private static final int FLOW_LABEL_SHIFT = 12;
    private static final int FLOW_LABEL_MASK = 0xF_FFFF;
    private static final int PACKET_RATE_MASK = 0x3F;

    /** Create an unwrapped flyweight; {@link #wrap} it, at the start of the MAD, before use. */
    public CmReq()
    {
        super(PRIVATE_DATA_OFFSET, PRIVATE_DATA_LENGTH);
    }

    /** @return the Local Communication ID: the sender's handle for this connection, echoed in every reply. */
    public int localCommId()
    {
        return u32(LOCAL_COMM_ID_OFFSET);
    }

    /**
     * @param localCommId the Local Communication ID.
     * @return this.
     */
    public CmReq localCommId(final int localCommId)
    {
        return u32(LOCAL_COMM_ID_OFFSET, localCommId);
    }

    /** @return the ECE Vendor ID, 24 bits; 0 from senders without ECE. */
    public int vendorId()
    {
        return low24(VENDOR_ID_OFFSET);
    }

    /**
     * Write the Vendor ID, keeping the reserved byte before it.
     *
     * @param vendorId the Vendor ID, 24 bits.
     * @return this.
     */
    public CmReq vendorId(final int vendorId)
    {
        return low24(VENDOR_ID_OFFSET, vendorId);
    }

    /** @return the Service ID the passive side listens on; see {@link ServiceId}. */
    public long serviceId()
    {
        return u64(SERVICE_ID_OFFSET);
    }

    /**
     * @param serviceId the Service ID.
     * @return this.
     */
    public CmReq serviceId(final long serviceId)
    {
        return u64(SERVICE_ID_OFFSET, serviceId);
    }

    /** @return the Local CA GUID: the sender's node GUID. */
    public long localCaGuid()
    {
        return u64(LOCAL_CA_GUID_OFFSET);
    }

    /**
     * @param localCaGuid the Local CA GUID.
     * @return this.
     */
    public CmReq localCaGuid(final long localCaGuid)
    {
        return u64(LOCAL_CA_GUID_OFFSET, localCaGuid);
    }

    /** @return the Local Q_Key; meaningful for RD only, 0 from rdma_cm. */
    public int localQkey()
    {
        return u32(LOCAL_QKEY_OFFSET);
    }

    /**
     * @param localQkey the Local Q_Key.
     * @return this.
     */
    public CmReq localQkey(final int localQkey)
    {
        return u32(LOCAL_QKEY_OFFSET, localQkey);
    }

    /** @return the Local QPN, 24 bits: the QP the passive side must send to. */
    public int localQpn()
    {
        return high24(LOCAL_QPN_OFFSET);
    }

    /**
     * @param localQpn the Local QPN, 24 bits.
     * @return this.
     */
    public CmReq localQpn(final int localQpn)
    {
        return high24(LOCAL_QPN_OFFSET, localQpn);
    }

    /** @return Responder Resources: how many RDMA READs and atomics the sender accepts at once. */
    public int responderResources()
    {
        return u8(RESPONDER_RESOURCES_OFFSET);
    }

    /**
     * @param responderResources Responder Resources, 8 bits.
     * @return this.
     */
    public CmReq responderResources(final int responderResources)
    {
        return u8(RESPONDER_RESOURCES_OFFSET, responderResources);
    }

    /** @return the Local EECN, 24 bits; RD only, 0 otherwise. */
    public int localEecn()
    {
        return high24(LOCAL_EECN_OFFSET);
    }

    /**
     * @param localEecn the Local EECN, 24 bits.
     * @return this.
     */
    public CmReq localEecn(final int localEecn)
    {
        return high24(LOCAL_EECN_OFFSET, localEecn);
    }

    /** @return Initiator Depth: how many RDMA READs and atomics the sender issues at once. */
    public int initiatorDepth()
    {
        return u8(INITIATOR_DEPTH_OFFSET);
    }

    /**
     * @param initiatorDepth Initiator Depth, 8 bits.
     * @return this.
     */
    public CmReq initiatorDepth(final int initiatorDepth)
    {
        return u8(INITIATOR_DEPTH_OFFSET, initiatorDepth);
    }

    /** @return the Remote EECN, 24 bits; RD only, 0 otherwise. */
    public int remoteEecn()
    {
        return high24(REMOTE_EECN_OFFSET);
    }

    /**
     * @param remoteEecn the Remote EECN, 24 bits.
     * @return this.
     */
    public CmReq remoteEecn(final int remoteEecn)
    {
        return high24(REMOTE_EECN_OFFSET, remoteEecn);
    }

    /** @return Remote CM Response Timeout, 5 bits: 4.096 µs · 2^n the passive side may take to answer. */
    public int remoteCmResponseTimeout()
    {
        return bits(REMOTE_CM_RESPONSE_TIMEOUT_OFFSET, TIMEOUT_SHIFT, TIMEOUT_MASK);
    }

    /**
     * @param timeout Remote CM Response Timeout, 5 bits.
     * @return this.
     */
    public CmReq remoteCmResponseTimeout(final int timeout)
    {
        return bits(REMOTE_CM_RESPONSE_TIMEOUT_OFFSET, TIMEOUT_SHIFT, TIMEOUT_MASK, timeout);
    }

    /** @return Transport Service Type, 2 bits: {@link #TRANSPORT_RC}, {@link #TRANSPORT_UC} or extended. */
    public int transportServiceType()
    {
        return bits(REMOTE_CM_RESPONSE_TIMEOUT_OFFSET, TRANSPORT_SHIFT, TRANSPORT_MASK);
    }

    /**
     * @param type Transport Service Type, 2 bits.
     * @return this.
     */
    public CmReq transportServiceType(final int type)
    {
        return bits(REMOTE_CM_RESPONSE_TIMEOUT_OFFSET, TRANSPORT_SHIFT, TRANSPORT_MASK, type);
    }

    /** @return End-to-End Flow Control: whether the sender's receive queue generates end-to-end credits. */
    public boolean endToEndFlowControl()
    {
        return flag(REMOTE_CM_RESPONSE_TIMEOUT_OFFSET, FLOW_CONTROL_SHIFT);
    }

    /**
     * @param on End-to-End Flow Control.
     * @return this.
     */
    public CmReq endToEndFlowControl(final boolean on)
    {
        return flag(REMOTE_CM_RESPONSE_TIMEOUT_OFFSET, FLOW_CONTROL_SHIFT, on);
    }

    /**
     * Linux reads it the "receive" way round: the active side sets its own receive PSN to it, and the passive side
     * sends from it. The rping capture shows exactly that, so it is not the active side's first PSN.
     *
     * @return the Starting PSN, 24 bits: the first PSN the passive side sends, which the active side expects.
     */
    public int startingPsn()
    {
        return high24(STARTING_PSN_OFFSET);
    }

    /**
     * @param startingPsn the Starting PSN, 24 bits.
     * @return this.
     */
    public CmReq startingPsn(final int startingPsn)
    {
        return high24(STARTING_PSN_OFFSET, startingPsn);
    }

    /** @return Local CM Response Timeout, 5 bits: how long the sender may take to answer a REP. */
    public int localCmResponseTimeout()
    {
        return bits(LOCAL_CM_RESPONSE_TIMEOUT_OFFSET, TIMEOUT_SHIFT, TIMEOUT_MASK);
    }

    /**
     * @param timeout Local CM Response Timeout, 5 bits.
     * @return this.
     */
    public CmReq localCmResponseTimeout(final int timeout)
    {
        return bits(LOCAL_CM_RESPONSE_TIMEOUT_OFFSET, TIMEOUT_SHIFT, TIMEOUT_MASK, timeout);
    }

    /** @return Retry Count, 3 bits: transport retries before a QP gives up; both sides take this one. */
    public int retryCount()
    {
        return bits(LOCAL_CM_RESPONSE_TIMEOUT_OFFSET, 0, COUNT_MASK);
    }

    /**
     * @param retryCount Retry Count, 3 bits.
     * @return this.
     */
    public CmReq retryCount(final int retryCount)
    {
        return bits(LOCAL_CM_RESPONSE_TIMEOUT_OFFSET, 0, COUNT_MASK, retryCount);
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
    public CmReq partitionKey(final int partitionKey)
    {
        return u16(PARTITION_KEY_OFFSET, partitionKey);
    }

    /** @return Path MTU, 4 bits, in the IB encoding: 1 = 256 bytes up to 5 = 4096 bytes. */
    public int pathMtu()
    {
        return bits(PATH_MTU_OFFSET, NIBBLE_SHIFT, NIBBLE_MASK);
    }

    /**
     * @param pathMtu Path MTU, 4 bits.
     * @return this.
     */
    public CmReq pathMtu(final int pathMtu)
    {
        return bits(PATH_MTU_OFFSET, NIBBLE_SHIFT, NIBBLE_MASK, pathMtu);
    }

    /** @return RDC Exists; RD only. */
    public boolean rdcExists()
    {
        return flag(PATH_MTU_OFFSET, MIDDLE_FLAG_SHIFT);
    }

    /**
     * @param rdcExists RDC Exists.
     * @return this.
     */
    public CmReq rdcExists(final boolean rdcExists)
    {
        return flag(PATH_MTU_OFFSET, MIDDLE_FLAG_SHIFT, rdcExists);
    }

    /** @return RNR Retry Count, 3 bits, for the passive side's QP; 7 means retry for ever. */
    public int rnrRetryCount()
    {
        return bits(PATH_MTU_OFFSET, 0, COUNT_MASK);
    }

    /**
     * @param rnrRetryCount RNR Retry Count, 3 bits.
     * @return this.
     */
    public CmReq rnrRetryCount(final int rnrRetryCount)
    {
        return bits(PATH_MTU_OFFSET, 0, COUNT_MASK, rnrRetryCount);
    }

    /** @return Max CM Retries, 4 bits: how often the sender resends this REQ before giving up. */
    public int maxCmRetries()
    {
        return bits(MAX_CM_RETRIES_OFFSET, NIBBLE_SHIFT, NIBBLE_MASK);
    }

    /**
     * @param maxCmRetries Max CM Retries, 4 bits.
     * @return this.
     */
    public CmReq maxCmRetries(final int maxCmRetries)
    {
        return bits(MAX_CM_RETRIES_OFFSET, NIBBLE_SHIFT, NIBBLE_MASK, maxCmRetries);
    }

    /** @return SRQ: whether the sender's QP takes receives from a shared receive queue. */
    public boolean srq()
    {
        return flag(MAX_CM_RETRIES_OFFSET, MIDDLE_FLAG_SHIFT);
    }

    /**
     * @param srq SRQ.
     * @return this.
     */
    public CmReq srq(final boolean srq)
    {
        return flag(MAX_CM_RETRIES_OFFSET, MIDDLE_FLAG_SHIFT, srq);
    }

    /** @return Extended Transport Type, 3 bits; 1 is XRC when Transport Service Type is extended. */
    public int extendedTransportType()
    {
        return bits(MAX_CM_RETRIES_OFFSET, 0, COUNT_MASK);
    }

    /**
     * @param type Extended Transport Type, 3 bits.
     * @return this.
     */
    public CmReq extendedTransportType(final int type)
    {
        return bits(MAX_CM_RETRIES_OFFSET, 0, COUNT_MASK, type);
    }

    /** @return the primary Local Port LID, 16 bits; on RoCE 0 or 0xFFFF and to be ignored. */
    public int primaryLocalPortLid()
    {
        return u16(PRIMARY_LOCAL_PORT_LID_OFFSET);
    }

    /**
     * @param lid the primary Local Port LID, 16 bits.
     * @return this.
     */
    public CmReq primaryLocalPortLid(final int lid)
    {
        return u16(PRIMARY_LOCAL_PORT_LID_OFFSET, lid);
    }

    /** @return the primary Remote Port LID, 16 bits; on RoCE 0 or 0xFFFF and to be ignored. */
    public int primaryRemotePortLid()
    {
        return u16(PRIMARY_REMOTE_PORT_LID_OFFSET);
    }

    /**
     * @param lid the primary Remote Port LID, 16 bits.
     * @return this.
     */
    public CmReq primaryRemotePortLid(final int lid)
    {
        return u16(PRIMARY_REMOTE_PORT_LID_OFFSET, lid);
    }

    /** @return the first 8 bytes of the primary Local Port GID; 0 for an IPv4-mapped GID. */
    public long primaryLocalPortGidHigh()
    {
        return u64(PRIMARY_LOCAL_PORT_GID_OFFSET);
    }

    /**
     * @param high the first 8 bytes of the primary Local Port GID.
     * @return this.
     */
    public CmReq primaryLocalPortGidHigh(final long high)
    {
        return u64(PRIMARY_LOCAL_PORT_GID_OFFSET, high);
    }

    /** @return the last 8 bytes of the primary Local Port GID; 0x0000FFFF_aabbccdd for IPv4 a.b.c.d. */
    public long primaryLocalPortGidLow()
    {
        return u64(PRIMARY_LOCAL_PORT_GID_OFFSET + 8);
    }

    /**
     * @param low the last 8 bytes of the primary Local Port GID.
     * @return this.
     */
    public CmReq primaryLocalPortGidLow(final long low)
    {
        return u64(PRIMARY_LOCAL_PORT_GID_OFFSET + 8, low);
    }

    /** @return the first 8 bytes of the primary Remote Port GID. */
    public long primaryRemotePortGidHigh()
    {
        return u64(PRIMARY_REMOTE_PORT_GID_OFFSET);
    }

    /**
     * @param high the first 8 bytes of the primary Remote Port GID.
     * @return this.
     */
    public CmReq primaryRemotePortGidHigh(final long high)
    {
        return u64(PRIMARY_REMOTE_PORT_GID_OFFSET, high);
    }

    /** @return the last 8 bytes of the primary Remote Port GID. */
    public long primaryRemotePortGidLow()
    {
        return u64(PRIMARY_REMOTE_PORT_GID_OFFSET + 8);
    }

    /**
     * @param low the last 8 bytes of the primary Remote Port GID.
     * @return this.
     */
    public CmReq primaryRemotePortGidLow(final long low)
    {
        return u64(PRIMARY_REMOTE_PORT_GID_OFFSET + 8, low);
    }

    /**
     * On RoCE rdma_cm derives it from the UDP ports of the connection, so both sides' GRH flow labels, and the
     * UDP source port rxe hashes from them, agree.
     *
     * @return the primary Flow Label, 20 bits.
     */
    public int primaryFlowLabel()
    {
        return (u32(PRIMARY_FLOW_LABEL_OFFSET) >>> FLOW_LABEL_SHIFT) & FLOW_LABEL_MASK;
    }

    /**
     * Write the primary Flow Label, keeping the reserved bits and the Packet Rate after it.
     *
     * @param flowLabel the primary Flow Label, 20 bits.
     * @return this.
     */
    public CmReq primaryFlowLabel(final int flowLabel)
    {
        final int word = u32(PRIMARY_FLOW_LABEL_OFFSET);
        return u32(PRIMARY_FLOW_LABEL_OFFSET, (word & ~(FLOW_LABEL_MASK << FLOW_LABEL_SHIFT)) |
            ((flowLabel & FLOW_LABEL_MASK) << FLOW_LABEL_SHIFT));
    }

    /** @return the primary Packet Rate, 6 bits, in the IB static rate encoding; rxe sends 0. */
    public int primaryPacketRate()
    {
        return bits(PRIMARY_PACKET_RATE_OFFSET, 0, PACKET_RATE_MASK);
    }

    /**
     * @param packetRate the primary Packet Rate, 6 bits.
     * @return this.
     */
    public CmReq primaryPacketRate(final int packetRate)
    {
        return bits(PRIMARY_PACKET_RATE_OFFSET, 0, PACKET_RATE_MASK, packetRate);
    }

    /** @return the primary Traffic Class: on RoCE the IP TOS the connection's packets carry. */
    public int primaryTrafficClass()
    {
        return u8(PRIMARY_TRAFFIC_CLASS_OFFSET);
    }

    /**
     * @param trafficClass the primary Traffic Class, 8 bits.
     * @return this.
     */
    public CmReq primaryTrafficClass(final int trafficClass)
    {
        return u8(PRIMARY_TRAFFIC_CLASS_OFFSET, trafficClass);
    }

    /** @return the primary Hop Limit: on RoCE the IP TTL. */
    public int primaryHopLimit()
    {
        return u8(PRIMARY_HOP_LIMIT_OFFSET);
    }

    /**
     * @param hopLimit the primary Hop Limit, 8 bits.
     * @return this.
     */
    public CmReq primaryHopLimit(final int hopLimit)
    {
        return u8(PRIMARY_HOP_LIMIT_OFFSET, hopLimit);
    }

    /** @return the primary SL, 4 bits. */
    public int primarySl()
    {
        return bits(PRIMARY_SL_OFFSET, NIBBLE_SHIFT, NIBBLE_MASK);
    }

    /**
     * @param sl the primary SL, 4 bits.
     * @return this.
     */
    public CmReq primarySl(final int sl)
    {
        return bits(PRIMARY_SL_OFFSET, NIBBLE_SHIFT, NIBBLE_MASK, sl);
    }

    /** @return primary Subnet Local: whether the peer is reachable without a router (on RoCE, hop limit ≤ 1). */
    public boolean primarySubnetLocal()
    {
        return flag(PRIMARY_SL_OFFSET, MIDDLE_FLAG_SHIFT);
    }

    /**
     * @param subnetLocal primary Subnet Local.
     * @return this.
     */
    public CmReq primarySubnetLocal(final boolean subnetLocal)
    {
        return flag(PRIMARY_SL_OFFSET, MIDDLE_FLAG_SHIFT, subnetLocal);
    }

    /** @return the primary Local ACK Timeout, 5 bits: the QP {@code timeout} both sides use. */
    public int primaryLocalAckTimeout()
    {
        return bits(PRIMARY_LOCAL_ACK_TIMEOUT_OFFSET, TIMEOUT_SHIFT, TIMEOUT_MASK);
    }

    /**
     * @param timeout the primary Local ACK Timeout, 5 bits.
     * @return this.
     */
    public CmReq primaryLocalAckTimeout(final int timeout)
    {
        return bits(PRIMARY_LOCAL_ACK_TIMEOUT_OFFSET, TIMEOUT_SHIFT, TIMEOUT_MASK, timeout);
    }

    /**
     * Copy the alternate path out as raw bytes, for the rare peer that fills it.
     *
     * @param dst where to copy; up to {@link #PATH_LENGTH} bytes are copied.
     * @return how many bytes were copied.
     */
    public int alternatePath(final byte[] dst)
    {
        return copyOut(ALTERNATE_PATH_OFFSET, PATH_LENGTH, dst);
    }

    /**
     * Copy raw bytes into the alternate path and zero the rest of it.
     *
     * @param src    the bytes.
     * @param length how many of them, at most {@link #PATH_LENGTH}.
     * @return this.
     */
    public CmReq alternatePath(final byte[] src, final int length)
    {
        return copyIn(ALTERNATE_PATH_OFFSET, PATH_LENGTH, src, length);
    }
}
