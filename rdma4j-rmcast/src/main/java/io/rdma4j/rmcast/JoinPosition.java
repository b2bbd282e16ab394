package io.rdma4j.rmcast;

/**
 * Where a subscriber that joins a running session starts.
 */
public enum JoinPosition
{
    /** At the publisher's head when the repair connection is accepted: only what is sent from then on. */
    LIVE,
    /** At the oldest fragment the publisher's window still holds, fetched by RDMA READ. */
    REPLAY
}
