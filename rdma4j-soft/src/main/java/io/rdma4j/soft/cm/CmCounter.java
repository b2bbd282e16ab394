package io.rdma4j.soft.cm;

import io.rdma4j.soft.counter.SoftCounter;

/**
 * What a {@link ConnectionManager} counts: every MAD it takes from a device ends in exactly one
 * of these, handled or dropped for a named cause. Each is counted as its {@link SoftCounter}, in the
 * manager's own counters and in the counters of the device the MAD came from, so that the stat file and JMX
 * publish it with the device's; this type only keeps a MAD's verdict to the CM's counters.
 */
public enum CmCounter
{
    /** A MAD that took part in the protocol: a request offered or refused, a reply applied or answered. */
    HANDLED(SoftCounter.CM_HANDLED),
    /** The work queue was full: the MAD was dropped before anyone looked at it. */
    DROP_QUEUE_FULL(SoftCounter.CM_DROP_QUEUE_FULL),
    /** Not a CM MAD rdma_cm accepts (class, version, attribute, rdma_cm header). */
    DROP_MALFORMED(SoftCounter.CM_DROP_MALFORMED),
    /** Names a communication id (or SIDR request id) of ours that does not exist. */
    DROP_UNKNOWN_COMM_ID(SoftCounter.CM_DROP_UNKNOWN_COMM_ID),
    /** Came from another address than the connection's peer. */
    DROP_WRONG_SOURCE(SoftCounter.CM_DROP_WRONG_SOURCE),
    /** Carries a peer communication id other than the connection's. */
    DROP_WRONG_REMOTE_COMM_ID(SoftCounter.CM_DROP_WRONG_REMOTE_COMM_ID),
    /** A DREQ naming a QP other than the connection's. */
    DROP_WRONG_QPN(SoftCounter.CM_DROP_WRONG_QPN),
    /** A reply to a request with another transaction id than the request's. */
    DROP_WRONG_TID(SoftCounter.CM_DROP_WRONG_TID),
    /** An MRA for a message already MRAed: one MRA is honoured per message. */
    DROP_REPEATED_MRA(SoftCounter.CM_DROP_REPEATED_MRA),
    /** Valid, but not expected in the connection's phase. */
    DROP_UNEXPECTED(SoftCounter.CM_DROP_UNEXPECTED),
    /** A request nobody listens for: refused with a REJ (or a SIDR_REP of status unsupported). */
    REFUSED(SoftCounter.CM_REFUSED),
    /**
     * A request whose listener has as many requests pending (not yet accepted or rejected) and connections
     * half-open (accepted, not yet established) as its backlog: dropped unanswered, as a full SYN queue drops
     * a SYN, so that the peer's next try may find a place.
     */
    DROP_BACKLOG_FULL(SoftCounter.CM_DROP_BACKLOG_FULL),
    /** An MRA past {@link CmConnection#MAX_MRAS} for one connection: the attempt fails (UNREACHABLE). */
    MRA_LIMIT(SoftCounter.CM_MRA_LIMIT),
    /**
     * A bug: a task of the CM threw. The CM thread goes on. A timer's or a completion's is counted in the
     * manager's counters only: it came from no device.
     */
    TASK_FAILED(SoftCounter.CM_TASK_FAILED);

    private final SoftCounter counter;

    CmCounter(final SoftCounter counter)
    {
        this.counter = counter;
    }

    /**
     * @return the counter this verdict is counted as.
     */
    public SoftCounter counter()
    {
        return counter;
    }
}
