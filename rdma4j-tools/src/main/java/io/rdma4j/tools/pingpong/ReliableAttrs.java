package io.rdma4j.tools.pingpong;

import io.rdma4j.verbs.QpAttr;

/**
 * The RC attributes rdma-core's rc and srq tools connect with.
 */
final class ReliableAttrs
{
    /** The RC ack timeout exponent rdma-core's tools set: 4.096 µs × 2^14. */
    static final int ACK_TIMEOUT = 14;
    /** The retransmit period that {@link #ACK_TIMEOUT} gives, about 67 ms. */
    static final long RETRANSMIT_PERIOD_NS = 4096L << ACK_TIMEOUT;

    private ReliableAttrs()
    {
    }

    /**
     * @param attr the move to RTR.
     * @return it, with one incoming RDMA READ and a 12 (0.64 ms) RNR NAK timer.
     */
    static QpAttr rtr(final QpAttr attr)
    {
        return attr.maxDestRdAtomic(1).minRnrTimer(12);
    }

    /**
     * @param attr the move to RTS.
     * @return it, with the ack timeout, seven retries of each kind and one outgoing RDMA READ.
     */
    static QpAttr rts(final QpAttr attr)
    {
        return attr.timeout(ACK_TIMEOUT).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
    }
}
