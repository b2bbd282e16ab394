package io.rdma4j.rmcast;

import io.rdma4j.stat.CounterValues;
import io.rdma4j.stat.StatCounter;
import io.rdma4j.stat.StatFile;
import io.rdma4j.stat.StatFilePublisher;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * A publication's or subscription's counters in a counters file of its own, where {@code rdma4j stat} shows them
 * beside the devices', as AeronStat shows a client's publication and subscription positions: its
 * {@link RmcastCounter}s, then gauges read as they stand (a publication's position and members, a subscription's
 * images and largest lag). One daemon thread of the process copies them in while the object is open; the object's
 * own thread only counts, as before, in plain fields the copying thread reads a moment late.
 */
final class RmcastStat
{
    /** The publication's position, in window slots: what {@link Publication#position()} says. */
    static final int PUBLICATION_POSITION_ID = 1090;
    /** Its members counted in flow control: {@link Publication#memberCount()}. */
    static final int PUBLICATION_MEMBERS_ID = 1091;
    /** The subscription's sessions being delivered: {@link Subscription#imageCount()}. */
    static final int SUBSCRIPTION_IMAGES_ID = 1190;
    /** Its largest lag behind a session's newest fragment: {@link Subscription#maxLag()}. */
    static final int SUBSCRIPTION_MAX_LAG_ID = 1191;

    private static final StatFilePublisher PUBLISHER =
        new StatFilePublisher("rdma4j-rmcast-stat", System.getLogger("io.rdma4j.rmcast"));
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private RmcastStat()
    {
    }

    /**
     * @param config   the object's settings: whether and where its file goes.
     * @param name     the object's name in {@code rdma4j stat} ({@code rmcast-pub-SESSION}).
     * @param address  its group, as text.
     * @param group    {@code publication} or {@code subscription}: the counters' group in the file.
     * @param counters its counters.
     * @param first    its first counter.
     * @param last     its last counter.
     * @param gauges   its gauges: ids, names and where each is read.
     * @param describe its describe line.
     * @return the file being published, which the object closes as it closes; null if its config turns files
     *         off, or the file cannot be made (said once: the object works on without).
     */
    static StatFilePublisher.Registration open(final MulticastConfig config, final String name, final String address,
        final String group, final Counters counters, final RmcastCounter first, final RmcastCounter last,
        final List<Gauge> gauges, final String describe)
    {
        if (!config.stat())
        {
            return null;
        }
        final RmcastCounter[] all = RmcastCounter.values();
        final int count = last.ordinal() - first.ordinal() + 1;
        final List<StatCounter> table = new ArrayList<>(count + gauges.size());
        for (int i = first.ordinal(); i <= last.ordinal(); i++)
        {
            table.add(new StatCounter(all[i].id(), group, all[i].label()));
        }
        final LongSupplier[] readers = new LongSupplier[gauges.size()];
        for (int i = 0; i < readers.length; i++)
        {
            final Gauge gauge = gauges.get(i);
            table.add(new StatCounter(gauge.id(), group, gauge.name()));
            readers[i] = gauge.value();
        }
        final int offset = first.ordinal();
        final CounterValues values = index -> index < count ? counters.get(all[offset + index]) :
            readers[index - count].getAsLong();
        try
        {
            return PUBLISHER.add(StatFile.create(config.statDirectory(), name, address, table), values, describe);
        }
        catch (final IOException | RuntimeException ex)
        {
            if (WARNED.compareAndSet(false, true))
            {
                System.getLogger("io.rdma4j.rmcast").log(System.Logger.Level.WARNING, "rdma4j: no counters file " +
                    "for rdma4j stat in " + config.statDirectory() + ": " + ex.getMessage());
            }
            return null;
        }
    }

    /**
     * @return how many files the process publishes now.
     */
    static int published()
    {
        return PUBLISHER.size();
    }

    /**
     * A value read as it stands, not counted.
     *
     * @param id    its id in the file.
     * @param name  its name.
     * @param value where it is read: on the publishing thread, so only plain fields, never a lock.
     */
    record Gauge(int id, String name, LongSupplier value)
    {
    }
}
