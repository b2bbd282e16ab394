package io.rdma4j.soft.cm;

/**
 * The connection manager's messages as the state machine sees them, decoded from and encoded to
 * MADs by {@link CmWire}. Only the fields rdma_cm uses on RoCE are kept; the rest are written as
 * the kernel writes them.
 */
sealed interface CmMessage
{
    /** The MAD's transaction ID: a REQ's is reused by its REP, RTU and REJ. */
    long tid();

    /**
     * ConnectRequest.
     *
     * @param srcIp   the active side's IPv4 address, from the rdma_cm header.
     * @param dstIp   the address it connects to, from the rdma_cm header.
     * @param srcPort the active side's port, from the rdma_cm header.
     * @param userData the user's private data (56 bytes on the wire).
     * @param startingPsn the PSN the active side receives from and the passive side sends from, as
     *                    rxe uses it (the REP's starting PSN works the other way round).
     */
    record Req(long tid, int localCommId, long serviceId, long caGuid, int qpn, int responderResources,
        int initiatorDepth, int transportType, boolean flowControl, int startingPsn, int retryCount,
        int rnrRetryCount, int pathMtu, boolean srq, int localAckTimeout, int flowLabel, int hopLimit,
        int srcIp, int dstIp, int srcPort, byte[] userData) implements CmMessage
    {
    }

    /** ConnectReply. */
    record Rep(long tid, int localCommId, int remoteCommId, int qpn, int startingPsn, int responderResources,
        int initiatorDepth, boolean flowControl, int rnrRetryCount, boolean srq, long caGuid, byte[] privateData)
        implements CmMessage
    {
    }

    /** ReadyToUse. */
    record Rtu(long tid, int localCommId, int remoteCommId) implements CmMessage
    {
    }

    /**
     * ConnectReject.
     *
     * @param messageRejected 0 REQ, 1 REP, 2 other.
     */
    record Rej(long tid, int localCommId, int remoteCommId, int messageRejected, int reason, byte[] privateData)
        implements CmMessage
    {
    }

    /**
     * MessageReceiptAcknowledgement: "your request arrived, the answer will take a while".
     *
     * @param messageMraed   0 a REQ, 1 a REP.
     * @param serviceTimeout how long the answer may take: 4.096 µs × 2^serviceTimeout.
     */
    record Mra(long tid, int localCommId, int remoteCommId, int messageMraed, int serviceTimeout)
        implements CmMessage
    {
    }

    /** DisconnectRequest. */
    record Dreq(long tid, int localCommId, int remoteCommId, int remoteQpn) implements CmMessage
    {
    }

    /** DisconnectReply. */
    record Drep(long tid, int localCommId, int remoteCommId) implements CmMessage
    {
    }

    /** ServiceIDResolutionRequest: UD's "connect". */
    record SidrReq(long tid, int requestId, long serviceId, int srcIp, int dstIp, int srcPort, byte[] userData)
        implements CmMessage
    {
    }

    /** ServiceIDResolutionResponse. */
    record SidrRep(long tid, int requestId, int status, int qpn, long serviceId, int qkey, byte[] privateData)
        implements CmMessage
    {
    }
}
