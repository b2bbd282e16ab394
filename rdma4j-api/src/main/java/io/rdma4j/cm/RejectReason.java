package io.rdma4j.cm;

/**
 * The reasons an InfiniBand CM REJ carries, which rdma_cm hands to the application unchanged as the
 * status of a {@link CmEventType#REJECTED} event (librdmacm's {@code rdma_reject_msg} names them). The
 * codes are IBTA's; only those a RoCE connection manager produces or must understand are named, the
 * rest come out as {@link #describe(int)}'s "reason N".
 */
public enum RejectReason
{
    /** The receiver had no QP to give the connection. */
    NO_QP(1, "no QP available"),
    /** The receiver lacked resources to accept. */
    NO_RESOURCES(3, "no resources"),
    /** The handshake timed out on the side that sent the REJ. */
    TIMEOUT(4, "timeout"),
    /** The request asked for something the receiver does not support. */
    UNSUPPORTED(5, "unsupported request"),
    /** The communication ID names no connection of the receiver's. */
    INVALID_COMM_ID(6, "invalid communication ID"),
    /** The communication ID names an older incarnation of a connection. */
    INVALID_COMM_INSTANCE(7, "invalid communication instance"),
    /** Nobody listens on the service (port): what a connect to a closed port gets. */
    INVALID_SERVICE_ID(8, "invalid service ID: nobody listens on that port"),
    /** The listener does not serve the requested transport. */
    INVALID_TRANSPORT_TYPE(9, "invalid transport type"),
    /** The request matches a connection the receiver still thinks is alive. */
    STALE_CONN(10, "stale connection"),
    /** The path MTU is not acceptable. */
    INVALID_MTU(26, "invalid MTU"),
    /** More responder resources were asked for than the receiver has. */
    INSUFFICIENT_RESP_RESOURCES(27, "insufficient responder resources"),
    /** The peer application refused ({@code rdma_reject}); its private data comes with the event. */
    CONSUMER_DEFINED(28, "rejected by the peer application"),
    /** The RNR retry count is not acceptable. */
    INVALID_RNR_RETRY(29, "invalid RNR retry count"),
    /** The sender's communication ID is already in use with the receiver. */
    DUPLICATE_LOCAL_COMM_ID(30, "duplicate local communication ID"),
    /** The receiver does not speak the MAD's class version. */
    INVALID_CLASS_VERSION(31, "invalid class version");

    private final int code;
    private final String description;

    RejectReason(final int code, final String description)
    {
        this.code = code;
        this.description = description;
    }

    /**
     * @return IBTA's number, the REJECTED event's status.
     */
    public int code()
    {
        return code;
    }

    /**
     * @return what it means, in a few words.
     */
    public String description()
    {
        return description;
    }

    /**
     * @param code a REJECTED event's status.
     * @return the reason with that number, or null if it is not one named here.
     */
    public static RejectReason fromCode(final int code)
    {
        for (final RejectReason reason : values())
        {
            if (reason.code == code)
            {
                return reason;
            }
        }
        return null;
    }

    /**
     * @param code a REJECTED event's status.
     * @return e.g. {@code "INVALID_SERVICE_ID (8): invalid service ID: nobody listens on that port"}.
     */
    public static String describe(final int code)
    {
        final RejectReason reason = fromCode(code);
        return reason == null ? "reason " + code : reason.name() + " (" + code + "): " + reason.description;
    }
}
