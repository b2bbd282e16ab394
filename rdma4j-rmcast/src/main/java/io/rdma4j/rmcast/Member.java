package io.rdma4j.rmcast;

import io.rdma4j.cm.CmId;

/**
 * A subscriber a publication accepted: its repair connection and its entry in the status array.
 */
final class Member
{
    /** Bytes per status entry: a cache line, so that two members' RDMA WRITEs never share one. */
    static final int STATUS_ENTRY_LENGTH = 64;
    /** The sequence the member delivers next: everything below it is delivered or reported lost. */
    static final int POSITION_OFFSET = 0;
    /** Bumped by every status write, so a member that stands still but lives is told from a dead one. */
    static final int LIVENESS_OFFSET = 8;

    final CmId id;
    final int index;
    boolean established;
    /** Counts in flow control: accepted and neither timed out nor disconnected. */
    boolean counted = true;
    long lastLiveness = -1;
    long lastSeenNs;

    Member(final CmId id, final int index, final long nowNs)
    {
        this.id = id;
        this.index = index;
        lastSeenNs = nowNs;
    }
}
