package io.rdma4j.cm;

/**
 * Connection parameters ({@code struct rdma_conn_param}). {@link #builder()} names the fields and
 * starts from librdmacm's defaults, so carrying private data is one call.
 * <p>
 * Private data is limited by the CM message that carries it, less what rdma_cm puts in front on
 * RoCE: {@link #MAX_CONNECT_PRIVATE_DATA} bytes on {@code connect} (REQ),
 * {@link #MAX_ACCEPT_PRIVATE_DATA} on {@code accept} (REP), {@link #MAX_REJECT_PRIVATE_DATA} on
 * {@code reject} (REJ); in the UDP port space {@link #MAX_UD_CONNECT_PRIVATE_DATA} on
 * {@code connect} (SIDR REQ) and {@link #MAX_UD_ACCEPT_PRIVATE_DATA} on {@code accept} (SIDR REP).
 * More is refused with EINVAL.
 *
 * @param privateData        user data carried by the REQ/REP/REJ (may be null).
 * @param responderResources RDMA READs/atomics the local side accepts in flight.
 * @param initiatorDepth     RDMA READs/atomics the local side issues in flight.
 * @param flowControl        end-to-end flow control.
 * @param retryCount         transport retries (0..7).
 * @param rnrRetryCount      RNR retries of the <em>peer's</em> QP (0..7, 7 = retry for ever): how often the remote
 *                           side re-sends a message that this side answered with an RNR NAK (no receive posted)
 *                           before failing it. The value travels in the REQ ({@code connect}) or REP
 *                           ({@code accept}) and the peer sets its QP's {@code rnr_retry} from it, as rdma_cm
 *                           does; this side's QP takes the value the peer sent. In a {@code CONNECT_REQUEST} or
 *                           {@code CONNECT_RESPONSE} event it is the value the peer asked of this side.
 * @param srq                the QP uses an SRQ.
 * @param qpNum              QPN when the user made the QP.
 */
public record ConnParam(
    byte[] privateData, int responderResources, int initiatorDepth, int flowControl, int retryCount,
    int rnrRetryCount, boolean srq, int qpNum)
{
    /** Private data a REQ carries for the application: 92 bytes less rdma_cm's 36-byte header. */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** Private data a REP carries. */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** Private data a REJ carries. */
    public static final int MAX_REJECT_PRIVATE_DATA = 148;
    /** Private data a SIDR REQ carries for the application: 216 bytes less rdma_cm's header. */
    public static final int MAX_UD_CONNECT_PRIVATE_DATA = 180;
    /** Private data a SIDR REP carries. */
    public static final int MAX_UD_ACCEPT_PRIVATE_DATA = 136;

    /**
     * @return librdmacm's defaults for a NULL conn_param: device maximum resources, 7 retries.
     */
    public static ConnParam defaults()
    {
        return new ConnParam(null, 0xFF, 0xFF, 0, 7, 7, false, 0);
    }

    /**
     * @param privateData user data for the peer.
     * @return the defaults with that private data.
     */
    public static ConnParam withPrivateData(final byte[] privateData)
    {
        return builder().privateData(privateData).build();
    }

    /**
     * @return a builder holding {@link #defaults()}.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * Connection parameters by name, from librdmacm's defaults.
     */
    public static final class Builder
    {
        private byte[] privateData;
        private int responderResources = 0xFF;
        private int initiatorDepth = 0xFF;
        private int flowControl;
        private int retryCount = 7;
        private int rnrRetryCount = 7;
        private boolean srq;
        private int qpNum;

        private Builder()
        {
        }

        /**
         * @param value user data for the peer, within the limits in {@link ConnParam}'s description.
         * @return this.
         */
        public Builder privateData(final byte[] value)
        {
            privateData = value;
            return this;
        }

        /**
         * @param value RDMA READs/atomics the local side accepts in flight.
         * @return this.
         */
        public Builder responderResources(final int value)
        {
            responderResources = value;
            return this;
        }

        /**
         * @param value RDMA READs/atomics the local side issues in flight.
         * @return this.
         */
        public Builder initiatorDepth(final int value)
        {
            initiatorDepth = value;
            return this;
        }

        /**
         * @param value end-to-end flow control (0 or 1).
         * @return this.
         */
        public Builder flowControl(final int value)
        {
            flowControl = value;
            return this;
        }

        /**
         * @param value transport retries (0..7).
         * @return this.
         */
        public Builder retryCount(final int value)
        {
            retryCount = value;
            return this;
        }

        /**
         * @param value RNR retries of the peer's QP, sent to it in the REQ or REP (0..7, 7 = retry for ever); see
         *              {@link ConnParam}.
         * @return this.
         */
        public Builder rnrRetryCount(final int value)
        {
            rnrRetryCount = value;
            return this;
        }

        /**
         * @param value the QP uses an SRQ.
         * @return this.
         */
        public Builder srq(final boolean value)
        {
            srq = value;
            return this;
        }

        /**
         * @param value the QPN, when the application made the QP itself.
         * @return this.
         */
        public Builder qpNum(final int value)
        {
            qpNum = value;
            return this;
        }

        /**
         * @return the parameters.
         */
        public ConnParam build()
        {
            return new ConnParam(privateData, responderResources, initiatorDepth, flowControl, retryCount,
                rnrRetryCount, srq, qpNum);
        }
    }
}
