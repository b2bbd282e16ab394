package io.rdma4j.soft.cm;

import io.rdma4j.cm.JoinFlags;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QueuePair;

import java.net.InetSocketAddress;

/**
 * One group joined on one id ({@code struct cma_multicast} in librdmacm): what leave needs to undo
 * and the event counts it waits on. Guarded by the channel's lock.
 */
final class MulticastJoin
{
    final InetSocketAddress address;
    final JoinFlags flags;
    final Object context;
    final Gid mgid;
    /** The QP librdmacm attached when the MULTICAST_JOIN event was retrieved, detached on leave. */
    QueuePair attachedQp;
    /** False once left: a join event still in the worker's hands is then dropped. */
    boolean active = true;
    long reported;
    long acked;

    MulticastJoin(final InetSocketAddress address, final JoinFlags flags, final Object context, final Gid mgid)
    {
        this.address = address;
        this.flags = flags;
        this.context = context;
        this.mgid = mgid;
    }

    boolean sendOnly()
    {
        return flags == JoinFlags.SENDONLY_FULLMEMBER;
    }
}
