package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.UdParam;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.Ipv4;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.GlobalRoute;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The multicast groups one id has joined, over RoCEv2: the join (the device's IP-level join for a
 * full member, and the MULTICAST_JOIN event), the QP attach librdmacm does when that event is
 * retrieved, and the undo of both on leave, on destroy of the QP and on destroy of the id.
 * <p>
 * RoCE has no subnet administrator, so a join completes locally. Every method runs with the
 * channel's lock held: join and leave on the application thread calling the verb, the event's
 * posting on the connection-manager thread, the attach on the thread retrieving the event.
 */
final class CmMulticastJoins
{
    private final SoftCmId id;
    private final List<MulticastJoin> joins = new ArrayList<>();

    CmMulticastJoins(final SoftCmId id)
    {
        this.id = id;
    }

    /**
     * Join a group: a full member's device joins the IP group now, and MULTICAST_JOIN follows from
     * the connection-manager thread. The caller checked the id's state, port space and device.
     *
     * @throws RdmaException EINVAL for a null group or flags, the wildcard or a unicast group, ENOTSUPP for IPv6,
     *                       EADDRINUSE if joined already, ENODEV if the device cannot join.
     */
    void join(final SoftEngine engine, final InetSocketAddress group, final JoinFlags flags, final Object joinContext)
    {
        RdmaException.check(group != null && group.getAddress() != null, Errno.EINVAL,
            "joinMulticast: the group address is null or unresolved");
        RdmaException.check(flags != null, Errno.EINVAL, "joinMulticast: the join flags are null");
        final InetAddress ip = group.getAddress();
        RdmaException.check(!ip.isAnyLocalAddress(), Errno.EINVAL,
            "joinMulticast: " + ip.getHostAddress() + " is the wildcard address, not a group");
        RdmaException.check(!(ip instanceof Inet6Address), Errno.ENOTSUPP,
            "joinMulticast: rdma_cm refuses IPv6 multicast on RoCEv2 (" + ip.getHostAddress() + ")");
        RdmaException.check(ip.isMulticastAddress(), Errno.EINVAL,
            "joinMulticast: " + ip.getHostAddress() + " is not a multicast address (224.0.0.0/4)");
        RdmaException.check(find(group) == null, Errno.EADDRINUSE,
            "joinMulticast: the id has joined " + group + " already");
        final MulticastJoin join = new MulticastJoin(group, flags, joinContext, Gid.fromInet(ip));
        if (!join.sendOnly())
        {
            try
            {
                engine.link().joinGroup(ip);
            }
            catch (final RuntimeException ex)
            {
                throw new RdmaException(Errno.ENODEV, "joinMulticast: " + engine.name() + " cannot join " +
                    ip.getHostAddress() + ": " + ex.getMessage(), ex);
            }
        }
        joins.add(join);
        final UdParam ud = new UdParam(null,
            new AhAttr(new GlobalRoute(join.mgid, 0, 0, Ipv4.DEFAULT_HOP_LIMIT, 0), 0, 0, 0, 0, 1),
            RdmaCm.MULTICAST_QPN, RdmaCm.UDP_QKEY);
        final SoftCmEvent event = new SoftCmEvent(id.channel, CmEventType.MULTICAST_JOIN, id, 0, ud, join);
        id.channel.later(() -> postIfActive(join, event));
    }

    /**
     * Leave a group: undo the join, then block until every event retrieved for it is acknowledged.
     *
     * @throws RdmaException EADDRNOTAVAIL if the id has not joined the group; EINTR if interrupted.
     */
    void leave(final CmBinding binding, final InetSocketAddress group)
    {
        final MulticastJoin found = find(group);
        if (found == null)
        {
            throw new RdmaException(Errno.EADDRNOTAVAIL, "leaveMulticast: the id has not joined " + group);
        }
        joins.remove(found);
        undo(binding, found);
        id.channel.awaitAcks(() -> found.acked >= found.reported, "leaveMulticast",
            id + " from " + found.address, event -> event.join() == found);
    }

    /** The QP is being destroyed: it is attached to no group any more; the joins remain. */
    void forgetQp(final QueuePair qp)
    {
        for (final MulticastJoin join : joins)
        {
            if (join.attachedQp == qp)
            {
                join.attachedQp = null;
            }
        }
    }

    /** The id is being destroyed: undo every join. */
    void leaveAll(final CmBinding binding)
    {
        for (final MulticastJoin join : joins)
        {
            undo(binding, join);
        }
        joins.clear();
    }

    /**
     * A MULTICAST_JOIN event is being retrieved: attach the id's QP to the group, as librdmacm does
     * then; a failed attach turns the event into MULTICAST_ERROR. Send-only joins never attach.
     */
    static void attachOnRetrieve(final SoftCmEvent event, final MulticastJoin join, final QueuePair qp)
    {
        if (event.typeLocked() == CmEventType.MULTICAST_JOIN && !join.sendOnly() && qp != null &&
            join.attachedQp == null)
        {
            try
            {
                qp.attachMulticast(join.mgid, 0);
                join.attachedQp = qp;
            }
            catch (final RdmaException ex)
            {
                event.fail(CmEventType.MULTICAST_ERROR, -ex.errnoCode());
            }
        }
    }

    /**
     * @return a number that changes with what {@link #describeLocked} says: which joins are active. Read without
     *     the lock, as a hint; a join or leave under way may throw ConcurrentModificationException, which the stat
     *     sections count as a change.
     */
    long describeKey()
    {
        long key = 0;
        for (final MulticastJoin join : joins)
        {
            key = key * 31 + (join.active ? join.address.hashCode() * 2L + (join.sendOnly() ? 1 : 0) : 0);
        }
        return key;
    }

    /** Lock held: the groups joined, comma-separated, a send-only join marked so; empty when none. */
    String describeLocked()
    {
        final StringBuilder text = new StringBuilder();
        for (final MulticastJoin join : joins)
        {
            if (join.active)
            {
                text.append(text.isEmpty() ? "" : ",").append(join.address.getAddress().getHostAddress())
                    .append(join.sendOnly() ? "(send-only)" : "");
            }
        }
        return text.toString();
    }

    private MulticastJoin find(final InetSocketAddress group)
    {
        for (final MulticastJoin join : joins)
        {
            if (join.address.equals(group))
            {
                return join;
            }
        }
        return null;
    }

    /** Runs on the connection-manager thread: a join left (or an id destroyed) meanwhile reports nothing. */
    private void postIfActive(final MulticastJoin join, final SoftCmEvent event)
    {
        id.channel.lock.lock();
        try
        {
            if (join.active && !id.destroyingLocked())
            {
                id.channel.post(event);
            }
        }
        finally
        {
            id.channel.lock.unlock();
        }
    }

    /** Undo a join: drop its queued events, detach the QP and leave the IP group (neither for send-only). */
    private void undo(final CmBinding binding, final MulticastJoin join)
    {
        join.active = false;
        id.channel.removeQueued(event -> event.join() == join);
        if (join.attachedQp != null)
        {
            try
            {
                join.attachedQp.detachMulticast(join.mgid, 0);
            }
            catch (final RdmaException ex)
            {
                // the application destroyed or detached the QP itself: nothing left to undo
            }
            join.attachedQp = null;
        }
        if (!join.sendOnly())
        {
            binding.engine().link().leaveGroup(join.address.getAddress());
        }
    }
}
