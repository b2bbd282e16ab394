package io.rdma4j.soft.cm;

import io.rdma4j.soft.SoftEngine;

import java.util.concurrent.ScheduledFuture;

/**
 * One id's side of a connection (or of a SIDR exchange): the IB CM's view of it. Guarded by the
 * id's event-channel lock.
 */
final class CmConnection
{
    /** Where the exchange stands, from this side. */
    enum Phase
    {
        /** Active: REQ sent, waiting for REP or REJ. */
        REQ_SENT,
        /** Passive: REQ received and reported, waiting for accept or reject. */
        REQ_RCVD,
        /** Passive: REP sent, waiting for RTU. */
        REP_SENT,
        /** Both: connected. */
        ESTABLISHED,
        /** DREQ sent, waiting for DREP. */
        DREQ_SENT,
        /** DREQ received and answered. */
        DREQ_RCVD,
        /** Active UD: SIDR_REQ sent, waiting for SIDR_REP. */
        SIDR_REQ_SENT,
        /** Passive UD: SIDR_REQ received and reported, waiting for accept or reject. */
        SIDR_REQ_RCVD,
        /** Rejected, disconnected or failed: nothing more happens. */
        CLOSED
    }

    final SoftEngine engine;
    final int localCommId;
    final int peerIp;
    final boolean active;
    Phase phase;
    long tid;
    int remoteCommId;
    int remoteQpn;
    int startingPsn;
    /** The request this passive side answers. */
    CmMessage request;
    /** The last MAD sent that a lost reply makes us send again, and how often it may be. */
    byte[] pending;
    int retriesLeft;
    long retryNanos;
    ScheduledFuture<?> retry;
    /** The listener whose backlog this passive connection holds until accepted or rejected. */
    SoftCmId listener;

    CmConnection(final SoftEngine engine, final int localCommId, final int peerIp, final boolean active,
        final Phase phase)
    {
        this.engine = engine;
        this.localCommId = localCommId;
        this.peerIp = peerIp;
        this.active = active;
        this.phase = phase;
    }

    void cancelRetry()
    {
        pending = null;
        if (retry != null)
        {
            retry.cancel(false);
            retry = null;
        }
    }

    @Override
    public String toString()
    {
        return "connection " + Integer.toHexString(localCommId) + " (" + phase + ")";
    }
}
