package io.rdma4j.soft.mcast;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.RdmaException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A device's multicast groups. Two objects, as in rxe: a group per MGID, made by its first
 * attach and freed by its last detach, and an attachment per (group, QP).
 * <p>
 * Attaching a QP twice is a no-op, so it still gets one copy of each message and one detach undoes
 * it. Going over a limit fails with ENOMEM and changes nothing. Readers on the receive path take
 * a group's member array without a lock: each change publishes a new array.
 *
 * @param <Q> the member type (the device's QP).
 */
public final class McastGroupTable<Q>
{
    private final Map<Gid, McastGroup<Q>> groups = new ConcurrentHashMap<>();
    private final int maxGroups;
    private final int maxQpPerGroup;
    private final int maxTotalAttach;
    private int totalAttach;

    /**
     * @param maxGroups      max_mcast_grp; 0 means the device has no multicast.
     * @param maxQpPerGroup  max_mcast_qp_attach.
     * @param maxTotalAttach max_total_mcast_qp_attach.
     */
    public McastGroupTable(final int maxGroups, final int maxQpPerGroup, final int maxTotalAttach)
    {
        this.maxGroups = maxGroups;
        this.maxQpPerGroup = maxQpPerGroup;
        this.maxTotalAttach = maxTotalAttach;
    }

    /**
     * @return a number that changes when a group comes or goes or its membership's size changes, for the stat
     *     file's publisher; allocates an iterator.
     */
    public long groupsKey()
    {
        long key = 0;
        for (final Map.Entry<Gid, McastGroup<Q>> entry : groups.entrySet())
        {
            // summed: the map's order is not fixed
            key += (entry.getKey().hashCode() * 31L + entry.getValue().members().length) * 0x9E3779B97F4A7C15L;
        }
        return key;
    }

    /**
     * @return each group's MGID and how many QPs are attached to it, for the stat tool; allocates.
     */
    public Map<Gid, Integer> groupSizes()
    {
        final Map<Gid, Integer> sizes = new java.util.TreeMap<>(java.util.Comparator.comparing(Gid::toString));
        groups.forEach((gid, group) -> sizes.put(gid, group.members().length));
        return sizes;
    }

    /**
     * Attach a member to a group, creating the group on first use.
     *
     * @param gid    the multicast GID (checked by the caller).
     * @param member the QP.
     * @return true if the member was added, false if it was attached already.
     */
    public synchronized boolean attach(final Gid gid, final Q member)
    {
        if (maxGroups == 0)
        {
            throw new RdmaException(Errno.ENOSYS, "this device has no multicast support (max_mcast_grp is 0)");
        }
        McastGroup<Q> group = groups.get(gid);
        if (group != null && group.contains(member))
        {
            return false;
        }
        if (group == null && groups.size() >= maxGroups)
        {
            throw new RdmaException(Errno.ENOMEM, "cannot create multicast group " + gid + ": the device has " +
                groups.size() + " groups, max_mcast_grp is " + maxGroups);
        }
        if (group != null && group.size() >= maxQpPerGroup)
        {
            throw new RdmaException(Errno.ENOMEM, "multicast group " + gid + " has " + group.size() +
                " QPs attached, max_mcast_qp_attach is " + maxQpPerGroup);
        }
        if (totalAttach >= maxTotalAttach)
        {
            throw new RdmaException(Errno.ENOMEM, "the device has " + totalAttach +
                " multicast attachments, max_total_mcast_qp_attach is " + maxTotalAttach);
        }
        if (group == null)
        {
            if (maxQpPerGroup == 0)
            {
                throw new RdmaException(Errno.ENOMEM, "max_mcast_qp_attach is 0: no QP can attach to " + gid);
            }
            group = new McastGroup<>(gid);
            groups.put(gid, group);
        }
        group.add(member);
        totalAttach++;
        return true;
    }

    /**
     * Detach a member; the group goes when its last member does.
     *
     * @param gid    the GID given to attach.
     * @param member the QP.
     * @throws RdmaException EINVAL if the member is not attached to that group.
     */
    public synchronized void detach(final Gid gid, final Q member)
    {
        final McastGroup<Q> group = groups.get(gid);
        if (group == null || !group.contains(member))
        {
            throw new RdmaException(Errno.EINVAL, "the QP is not attached to multicast group " + gid);
        }
        group.remove(member);
        totalAttach--;
        if (group.size() == 0)
        {
            groups.remove(gid);
        }
    }

    /**
     * Detach a member from every group it is in, as destroying a QP does.
     *
     * @param member the QP.
     * @return the groups it left.
     */
    public synchronized List<Gid> detachAll(final Q member)
    {
        final List<Gid> left = new ArrayList<>();
        for (final McastGroup<Q> group : new ArrayList<>(groups.values()))
        {
            if (group.contains(member))
            {
                group.remove(member);
                totalAttach--;
                left.add(group.gid());
                if (group.size() == 0)
                {
                    groups.remove(group.gid());
                }
            }
        }
        return left;
    }

    /**
     * @param gid a multicast GID.
     * @return the members now, an array not to be changed (empty if no group).
     */
    public Object[] members(final Gid gid)
    {
        final McastGroup<Q> group = groups.get(gid);
        return group == null ? McastGroup.NO_MEMBERS : group.members();
    }

    /**
     * @param gid a multicast GID.
     * @return true if the group exists on this device.
     */
    public boolean hasGroup(final Gid gid)
    {
        return groups.containsKey(gid);
    }

    /**
     * @return groups in existence.
     */
    public int groupCount()
    {
        return groups.size();
    }

    /**
     * @return attachments in all.
     */
    public synchronized int totalAttachments()
    {
        return totalAttach;
    }

    /**
     * One group: its MGID and members, published as a fresh array on each change.
     *
     * @param <Q> the member type.
     */
    static final class McastGroup<Q>
    {
        static final Object[] NO_MEMBERS = new Object[0];

        private final Gid gid;
        private volatile Object[] members = NO_MEMBERS;

        McastGroup(final Gid gid)
        {
            this.gid = gid;
        }

        Gid gid()
        {
            return gid;
        }

        Object[] members()
        {
            return members;
        }

        int size()
        {
            return members.length;
        }

        boolean contains(final Q member)
        {
            for (final Object m : members)
            {
                if (m == member)
                {
                    return true;
                }
            }
            return false;
        }

        void add(final Q member)
        {
            final Object[] grown = Arrays.copyOf(members, members.length + 1);
            grown[members.length] = member;
            members = grown;
        }

        void remove(final Q member)
        {
            final Object[] current = members;
            final Object[] shrunk = new Object[current.length - 1];
            int j = 0;
            for (final Object m : current)
            {
                if (m != member)
                {
                    shrunk[j++] = m;
                }
            }
            members = shrunk;
        }
    }
}
