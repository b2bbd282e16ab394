package io.rdma4j.soft.cm;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.StatSections;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connection manager's ids in {@code rdma4j stat}: each live id is a line in the stat file of the device it
 * is on (bound, resolved, or hearing requests for a wildcard listener). The connection managers belong to the
 * provider, not to a device, but every id that has an address or a connection has a device, and that is where a
 * reader looks for it. An id with no device yet (created, nothing bound) has nothing on the wire and is not
 * shown. Ids of every connection manager of a provider instance are kept here, from creation to destruction
 * ({@link CmShared} holds the instance's one).
 */
final class CmStat
{
    /** Weak: an id its application dropped without destroying it is not kept alive for the stat file's sake. */
    private final Set<SoftCmId> ids = Collections.newSetFromMap(new WeakHashMap<>());
    /** The ids' numbers in {@code rdma4j stat}: in creation order, unique in the process. */
    private final AtomicLong numbers = new AtomicLong();

    CmStat(final StatSections sections)
    {
        sections.add(new StatSections.Section()
        {
            @Override
            public void describe(final SoftDevice device, final StringBuilder text)
            {
                CmStat.this.describe(device, text);
            }

            @Override
            public long describeKey()
            {
                return CmStat.this.describeKey();
            }
        });
    }

    /** @return a number that changes when an id comes, goes or changes what its line says. */
    private long describeKey()
    {
        final List<SoftCmId> live = live();
        long key = live.size();
        for (final SoftCmId id : live)
        {
            // summed, not chained: the set's order is not the ids'
            key += id.describeKey() * 0x9E3779B97F4A7C15L;
        }
        return key;
    }

    /**
     * @return the next id's number.
     */
    long nextNumber()
    {
        return numbers.incrementAndGet();
    }

    void track(final SoftCmId id)
    {
        synchronized (ids)
        {
            ids.add(id);
        }
    }

    void untrack(final SoftCmId id)
    {
        synchronized (ids)
        {
            ids.remove(id);
        }
    }

    /** @return the ids tracked now, a copy the stat thread may go through holding no lock. */
    private List<SoftCmId> live()
    {
        synchronized (ids)
        {
            return new ArrayList<>(ids);
        }
    }

    /** On the stat thread, holding no lock: each id takes its channel's lock in turn. */
    private void describe(final SoftDevice device, final StringBuilder text)
    {
        final List<SoftCmId> live = live();
        live.sort(Comparator.comparingLong(SoftCmId::number));
        for (final SoftCmId id : live)
        {
            id.describeOn(device, text);
        }
    }
}
