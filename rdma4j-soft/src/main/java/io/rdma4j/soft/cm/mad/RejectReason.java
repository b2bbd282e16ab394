package io.rdma4j.soft.cm.mad;

/**
 * The REJ reason codes rdma_cm sends or must understand on RoCE; the IBTA defines more (path and LID mismatches,
 * redirects) that only native InfiniBand produces. rdma_cm hands the number to the application unchanged in the
 * REJECTED event's status, so the values are part of the API as well as of the wire.
 */
public final class RejectReason
{
    /** No QP available. */
    public static final int NO_QP = 1;
    /** No resources to accept the connection. */
    public static final int NO_RESOURCES = 3;
    /** The handshake timed out; the ARI holds the GUID of the side that gave up. */
    public static final int TIMEOUT = 4;
    /** The REQ asks for something the receiver does not support. */
    public static final int UNSUPPORTED = 5;
    /** The communication ID names no connection of the receiver's. */
    public static final int INVALID_COMM_ID = 6;
    /** The communication ID names an older incarnation of a connection. */
    public static final int INVALID_COMM_INSTANCE = 7;
    /** Nobody listens on the service ID: what a connect to a closed port gets. */
    public static final int INVALID_SERVICE_ID = 8;
    /** The listener does not serve the requested transport type. */
    public static final int INVALID_TRANSPORT_TYPE = 9;
    /** The REQ matches a connection the receiver still thinks is alive. */
    public static final int STALE_CONN = 10;
    /** The path MTU is not acceptable. */
    public static final int INVALID_MTU = 26;
    /** The responder resources asked for exceed the receiver's. */
    public static final int INSUFFICIENT_RESP_RESOURCES = 27;
    /** The application refused: {@code rdma_reject}, with its private data in the REJ. */
    public static final int CONSUMER_DEFINED = 28;
    /** The RNR retry count is not acceptable. */
    public static final int INVALID_RNR_RETRY = 29;
    /** The sender's local communication ID is already in use with the receiver. */
    public static final int DUPLICATE_LOCAL_COMM_ID = 30;
    /** The MAD's class version is not one the receiver speaks. */
    public static final int INVALID_CLASS_VERSION = 31;

    private RejectReason()
    {
    }
}
