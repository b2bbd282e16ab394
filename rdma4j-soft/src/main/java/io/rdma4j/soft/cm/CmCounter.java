package io.rdma4j.soft.cm;

/**
 * What a {@link ConnectionManager} counts: every MAD it takes from a device ends in exactly one
 * of these, handled or dropped for a named cause.
 */
public enum CmCounter
{
    /** A MAD that took part in the protocol: a request offered or refused, a reply applied or answered. */
    HANDLED,
    /** The work queue was full: the MAD was dropped before anyone looked at it. */
    DROP_QUEUE_FULL,
    /** Not a CM MAD rdma_cm accepts (class, version, attribute, rdma_cm header). */
    DROP_MALFORMED,
    /** Names a communication id (or SIDR request id) of ours that does not exist. */
    DROP_UNKNOWN_COMM_ID,
    /** Came from another address than the connection's peer. */
    DROP_WRONG_SOURCE,
    /** Carries a peer communication id other than the connection's. */
    DROP_WRONG_REMOTE_COMM_ID,
    /** A DREQ naming a QP other than the connection's. */
    DROP_WRONG_QPN,
    /** A reply to a request with another transaction id than the request's. */
    DROP_WRONG_TID,
    /** An MRA for a message already MRAed: one MRA is honoured per message. */
    DROP_REPEATED_MRA,
    /** Valid, but not expected in the connection's phase. */
    DROP_UNEXPECTED,
    /** A request nobody listens for, or a listener with a full backlog: refused. */
    REFUSED,
    /** A bug: a task of the CM threw. The CM thread goes on. */
    TASK_FAILED
}
