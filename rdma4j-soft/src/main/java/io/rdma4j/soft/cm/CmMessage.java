package io.rdma4j.soft.cm;

import io.rdma4j.verbs.Gid;

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
     * ConnectRequest. Built by name ({@link #builder()}) rather than by position: it has too many
     * fields of one type for a positional constructor to be read or checked.
     */
    final class Req implements CmMessage
    {
        private final long tid;
        private final int localCommId;
        private final long serviceId;
        private final long caGuid;
        private final int qpn;
        private final int responderResources;
        private final int initiatorDepth;
        private final int transportType;
        private final boolean flowControl;
        private final int startingPsn;
        private final int retryCount;
        private final int rnrRetryCount;
        private final int pathMtu;
        private final boolean srq;
        private final int localAckTimeout;
        private final int flowLabel;
        private final int hopLimit;
        private final Gid srcIp;
        private final Gid dstIp;
        private final int srcPort;
        private final byte[] userData;

        private Req(final Builder b)
        {
            tid = b.tid;
            localCommId = b.localCommId;
            serviceId = b.serviceId;
            caGuid = b.caGuid;
            qpn = b.qpn;
            responderResources = b.responderResources;
            initiatorDepth = b.initiatorDepth;
            transportType = b.transportType;
            flowControl = b.flowControl;
            startingPsn = b.startingPsn;
            retryCount = b.retryCount;
            rnrRetryCount = b.rnrRetryCount;
            pathMtu = b.pathMtu;
            srq = b.srq;
            localAckTimeout = b.localAckTimeout;
            flowLabel = b.flowLabel;
            hopLimit = b.hopLimit;
            srcIp = b.srcIp;
            dstIp = b.dstIp;
            srcPort = b.srcPort;
            userData = b.userData;
        }

        /**
         * @return a builder with every field zero (null user data).
         */
        static Builder builder()
        {
            return new Builder();
        }

        @Override
        public long tid()
        {
            return tid;
        }

        public int localCommId()
        {
            return localCommId;
        }

        public long serviceId()
        {
            return serviceId;
        }

        /** @return the active side's CA GUID. */
        public long caGuid()
        {
            return caGuid;
        }

        /** @return the active side's QPN. */
        public int qpn()
        {
            return qpn;
        }

        public int responderResources()
        {
            return responderResources;
        }

        public int initiatorDepth()
        {
            return initiatorDepth;
        }

        /** @return 0 RC, 1 UC. */
        public int transportType()
        {
            return transportType;
        }

        public boolean flowControl()
        {
            return flowControl;
        }

        /**
         * @return the PSN the active side receives from and the passive side sends from, as rxe uses
         *         it (the REP's starting PSN works the other way round).
         */
        public int startingPsn()
        {
            return startingPsn;
        }

        public int retryCount()
        {
            return retryCount;
        }

        public int rnrRetryCount()
        {
            return rnrRetryCount;
        }

        /** @return the path MTU in bytes. */
        public int pathMtu()
        {
            return pathMtu;
        }

        public boolean srq()
        {
            return srq;
        }

        public int localAckTimeout()
        {
            return localAckTimeout;
        }

        public int flowLabel()
        {
            return flowLabel;
        }

        public int hopLimit()
        {
            return hopLimit;
        }

        /** @return the active side's IP address as a GID (IPv4-mapped for IPv4), from the rdma_cm header. */
        public Gid srcIp()
        {
            return srcIp;
        }

        /** @return the address it connects to, from the rdma_cm header. */
        public Gid dstIp()
        {
            return dstIp;
        }

        /** @return the active side's port, from the rdma_cm header. */
        public int srcPort()
        {
            return srcPort;
        }

        /** @return the user's private data (56 bytes on the wire). */
        public byte[] userData()
        {
            return userData;
        }

        /** Sets the fields of a {@link Req} by name. */
        static final class Builder
        {
            private long tid;
            private int localCommId;
            private long serviceId;
            private long caGuid;
            private int qpn;
            private int responderResources;
            private int initiatorDepth;
            private int transportType;
            private boolean flowControl;
            private int startingPsn;
            private int retryCount;
            private int rnrRetryCount;
            private int pathMtu;
            private boolean srq;
            private int localAckTimeout;
            private int flowLabel;
            private int hopLimit;
            private Gid srcIp = Gid.ZERO;
            private Gid dstIp = Gid.ZERO;
            private int srcPort;
            private byte[] userData;

            Builder tid(final long value)
            {
                tid = value;
                return this;
            }

            Builder localCommId(final int value)
            {
                localCommId = value;
                return this;
            }

            Builder serviceId(final long value)
            {
                serviceId = value;
                return this;
            }

            Builder caGuid(final long value)
            {
                caGuid = value;
                return this;
            }

            Builder qpn(final int value)
            {
                qpn = value;
                return this;
            }

            Builder responderResources(final int value)
            {
                responderResources = value;
                return this;
            }

            Builder initiatorDepth(final int value)
            {
                initiatorDepth = value;
                return this;
            }

            Builder transportType(final int value)
            {
                transportType = value;
                return this;
            }

            Builder flowControl(final boolean value)
            {
                flowControl = value;
                return this;
            }

            Builder startingPsn(final int value)
            {
                startingPsn = value;
                return this;
            }

            Builder retryCount(final int value)
            {
                retryCount = value;
                return this;
            }

            Builder rnrRetryCount(final int value)
            {
                rnrRetryCount = value;
                return this;
            }

            Builder pathMtu(final int value)
            {
                pathMtu = value;
                return this;
            }

            Builder srq(final boolean value)
            {
                srq = value;
                return this;
            }

            Builder localAckTimeout(final int value)
            {
                localAckTimeout = value;
                return this;
            }

            Builder flowLabel(final int value)
            {
                flowLabel = value;
                return this;
            }

            Builder hopLimit(final int value)
            {
                hopLimit = value;
                return this;
            }

            Builder srcIp(final Gid value)
            {
                srcIp = value;
                return this;
            }

            Builder dstIp(final Gid value)
            {
                dstIp = value;
                return this;
            }

            Builder srcPort(final int value)
            {
                srcPort = value;
                return this;
            }

            Builder userData(final byte[] value)
            {
                userData = value;
                return this;
            }

            Req build()
            {
                return new Req(this);
            }
        }
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
    record SidrReq(long tid, int requestId, long serviceId, Gid srcIp, Gid dstIp, int srcPort, byte[] userData)
        implements CmMessage
    {
    }

    /** ServiceIDResolutionResponse. */
    record SidrRep(long tid, int requestId, int status, int qpn, long serviceId, int qkey, byte[] privateData)
        implements CmMessage
    {
    }
}
