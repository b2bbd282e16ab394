package io.rdma4j.cm;

/**
 * Connection parameters ({@code struct rdma_conn_param}).
 *
 * @param privateData        user data carried by the REQ/REP/REJ (may be null).
 * @param responderResources RDMA READs/atomics the local side accepts in flight.
 * @param initiatorDepth     RDMA READs/atomics the local side issues in flight.
 * @param flowControl        end-to-end flow control.
 * @param retryCount         transport retries (0..7).
 * @param rnrRetryCount      RNR retries (0..7, 7 = forever).
 * @param srq                the QP uses an SRQ.
 * @param qpNum              QPN when the user made the QP.
 */
public record ConnParam(
    byte[] privateData, int responderResources, int initiatorDepth, int flowControl, int retryCount,
    int rnrRetryCount, boolean srq, int qpNum)
{
    /**
     * @return librdmacm's defaults for a NULL conn_param: device maximum resources, 7 retries.
     */
    public static ConnParam defaults()
    {
        return new ConnParam(null, 0xFF, 0xFF, 0, 7, 7, false, 0);
    }
}
