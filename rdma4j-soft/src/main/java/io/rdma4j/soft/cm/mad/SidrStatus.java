package io.rdma4j.soft.cm.mad;

/**
 * The status codes of a SIDR_REP. rdma_cm reports any but {@link #SUCCESS} as an UNREACHABLE event carrying the
 * code, so like the REJ reasons they reach the application.
 */
public final class SidrStatus
{
    /** The QPN and Q_Key are valid: {@code rdma_accept}. */
    public static final int SUCCESS = 0;
    /** Nobody serves the service ID. */
    public static final int UNSUPPORTED = 1;
    /** The listener refused: {@code rdma_reject}. */
    public static final int REJECT = 2;
    /** No QP available. */
    public static final int NO_QP = 3;
    /** Ask elsewhere; the additional information says where. */
    public static final int REDIRECT = 4;
    /** The request's class version is not supported. */
    public static final int UNSUPPORTED_VERSION = 5;

    private SidrStatus()
    {
    }
}
