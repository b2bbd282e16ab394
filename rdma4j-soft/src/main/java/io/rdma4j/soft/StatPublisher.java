package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.stat.CountersMBean;
import io.rdma4j.soft.stat.SoftStatFiles;
import io.rdma4j.stat.CounterValues;
import io.rdma4j.stat.StatFile;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps every open device's {@link StatFile} current: one daemon thread for the process copies the device's
 * counters into it every {@value #PERIOD_MS} ms ({@value #QUIET_PERIOD_MS} ms once no counter of any device moved for
 * {@value #QUIET_ROUNDS} rounds; a round where none moved writes nothing), and every second the describe
 * section too (its QPs, its groups and the {@link StatSections}' lines), which allocates. A file another
 * process truncated or replaced is abandoned, counted ({@code stat_file_abandoned}) and said once; the device
 * goes on. Also registers each device's counters as a JMX MBean ({@link CountersMBean}), from that thread, once
 * the process has an MBean server (a JMX agent, an attaching jconsole, the application's own
 * {@code getPlatformMBeanServer}): within a round of it, before that round's files. Making the platform MBean
 * server takes a few hundred milliseconds of class loading (JMX and every platform MXBean); it was a third of a
 * process's first connection when the opening thread paid it, and it competes with the connection for the CPU
 * on any thread. Off for a device whose
 * settings say {@code rdma4j.stat=false}. Each provider instance ({@link SoftDevices}) has its own; its thread runs
 * while it has a device to publish and ends after the last is removed, to start again with the next.
 */
final class StatPublisher
{
    private static final long PERIOD_MS = 100;
    /**
     * The period once no device's counters moved for {@value #QUIET_ROUNDS} rounds: an idle process's thread wakes
     * once a second, not ten times, and a device that starts moving shows it within this. Each wake-up of an idle
     * core costs far more than the round's work on a virtual machine (2026-12-02's 2-vCPU EPYC guest: 0.3-0.6 ms of
     * work a second against 4-7 ms of run time at two rounds a second).
     */
    private static final long QUIET_PERIOD_MS = 1000;
    private static final int QUIET_ROUNDS = 20;
    /**
     * Describes (once a second) that may be skipped while nothing moved. Packets, the QPs' and groups' keys and the
     * sections' ({@link StatSections#describeKey}) say what did; this is the refresh for what none of them covers.
     * Each refresh of an idle server with a hundred connections formatted 200 lines in code too rarely run to be
     * compiled: at one in five seconds, with the compilations it set off, half of the server's idle CPU.
     */
    private static final int REFRESH_EVERY = 60;
    private static final int DESCRIBE_EVERY = 10;
    private final List<Published> devices = new CopyOnWriteArrayList<>();
    private final StatSections sections = new StatSections();
    /** Whether the thread runs; guarded by {@link #devices}' monitor, with the decision to end it. */
    private boolean running;
    private final AtomicBoolean warned = new AtomicBoolean();
    /** The engines whose MBean is registered; guards registering against a device closing meanwhile. */
    private final Set<SoftEngine> registered = new HashSet<>();
    /** Whether the process has an MBean server: read and set by the publishing thread alone. */
    private boolean jmxInUse;

    StatPublisher()
    {
    }

    /**
     * @return what every device's describe section adds beside the device's own objects.
     */
    StatSections sections()
    {
        return sections;
    }

    /**
     * @return the device's stat file, or null if its settings turn files off or this one cannot be made (said
     *     once).
     */
    StatFile openFile(final SoftSettings settings, final String deviceName, final String address,
        final System.Logger logger)
    {
        if (!settings.stat())
        {
            return null;
        }
        try
        {
            return SoftStatFiles.create(settings.statDirectory(), deviceName, address);
        }
        catch (final IOException | RuntimeException ex)
        {
            if (warned.compareAndSet(false, true))
            {
                logger.log(System.Logger.Level.WARNING, "rdma4j: no counters file for rdma4j stat in " +
                    settings.statDirectory() + ": " + ex.getMessage());
            }
            return null;
        }
    }

    /**
     * Publish an open device from now until {@link #remove}.
     *
     * @param device the device.
     * @param engine its running engine, whose counters and objects the file shows.
     * @param file   its counters file, from {@link #openFile}.
     */
    void add(final SoftDevice device, final SoftEngine engine, final StatFile file)
    {
        final Published published = new Published(device, engine, file);
        devices.add(published);
        // the device's own part only: the opening thread may hold a connection manager's lock, which a section
        // takes, and a device just opened has no ids on it yet
        publish(published, engine.describe());
        synchronized (devices)
        {
            if (!running)
            {
                running = true;
                Thread.ofPlatform().daemon().name("rdma4j-stat").start(this::run);
            }
        }
    }

    /**
     * @param engine an engine {@link #add}ed, which is closing: its file is no longer written.
     */
    void remove(final SoftEngine engine)
    {
        synchronized (registered)
        {
            devices.removeIf(published -> published.engine == engine);
            if (registered.remove(engine))
            {
                jmx(engine, false);
            }
        }
    }

    /**
     * Register the MBean of every device published and not yet registered, once the process has an MBean server:
     * on the publishing thread alone.
     */
    private void registerNew()
    {
        if (!jmxInUse)
        {
            // lists the servers made so far, makes none
            if (MBeanServerFactory.findMBeanServer(null).isEmpty())
            {
                return;
            }
            jmxInUse = true;
        }
        synchronized (registered)
        {
            for (final Published published : devices)
            {
                if (registered.add(published.engine))
                {
                    jmx(published.engine, true);
                }
            }
        }
    }

    /** Register (or unregister) the device's counters with the platform MBean server. */
    private static void jmx(final SoftEngine engine, final boolean register)
    {
        try
        {
            final ObjectName name = CountersMBean.objectName(engine.name(), engine.address().getHostAddress());
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            if (register)
            {
                server.registerMBean(new CountersMBean(engine.counters(), engine.name()), name);
            }
            else if (server.isRegistered(name))
            {
                server.unregisterMBean(name);
            }
        }
        catch (final JMException ex)
        {
            // the same device name and address twice in one process (tests reopen devices): the first stays
        }
    }

    /** The device's QPs and groups, then what the {@link StatSections} add (the connection manager's ids). */
    private String describeWithSections(final Published published)
    {
        final StringBuilder text = new StringBuilder(published.engine.describe());
        sections.describe(published.device, text);
        return text.toString();
    }

    private static void publish(final Published published, final String describe)
    {
        final StatFile file = published.file;
        final SoftEngine engine = published.engine;
        if (file.abandoned() == null && !file.publish(published.values, describe) && file.abandoned() != null)
        {
            engine.counters().increment(SoftCounter.STAT_FILE_ABANDONED);
            System.getLogger("io.rdma4j.soft").log(System.Logger.Level.WARNING, "rdma4j: " + file.abandoned());
        }
    }

    private void run()
    {
        // at once for the first device, then before each round's files: a reader with an MBean server that saw
        // a device's counters move in its file finds its MBean
        registerNew();
        long periodMs = PERIOD_MS;
        // time in busy periods, so that describes and refreshes keep their pace in time whatever the period
        long tick = 0;
        long nextDescribe = DESCRIBE_EVERY;
        long nextRefresh = (long)DESCRIBE_EVERY * REFRESH_EVERY;
        while (true)
        {
            try
            {
                TimeUnit.MILLISECONDS.sleep(periodMs);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            synchronized (devices)
            {
                // an add after this sees running false and starts a new thread
                if (devices.isEmpty())
                {
                    running = false;
                    return;
                }
            }
            registerNew();
            tick += periodMs / PERIOD_MS;
            final boolean describe = tick >= nextDescribe;
            if (describe)
            {
                nextDescribe = tick + DESCRIBE_EVERY;
            }
            // what no key covers is written at least every REFRESH_EVERY describes
            final boolean refresh = describe && tick >= nextRefresh;
            if (refresh)
            {
                nextRefresh = tick + (long)DESCRIBE_EVERY * REFRESH_EVERY;
            }
            boolean quiet = true;
            for (final Published published : devices)
            {
                try
                {
                    final boolean lines = describe && (published.moved(sections) || refresh);
                    publish(published, lines ? describeWithSections(published) : null);
                    quiet &= published.file.unchangedRounds() >= QUIET_ROUNDS;
                }
                catch (final RuntimeException ex)
                {
                    // a device closing under us: the next round no longer has it
                }
            }
            periodMs = quiet ? QUIET_PERIOD_MS : PERIOD_MS;
        }
    }

    /** An open device, the engine running it and the file it is published in. */
    private record Published(SoftDevice device, SoftEngine engine, StatFile file, CounterValues values,
        long[] lastDescribed)
    {
        Published(final SoftDevice device, final SoftEngine engine, final StatFile file)
        {
            this(device, engine, file, SoftStatFiles.values(engine.counters()), new long[] {-1, -1});
        }

        /**
         * @return true if packets moved, QPs came, went or changed state, a group's members changed, or a section's
         *     key changed (an id's state: what moves no packet) since the last describe: the lines are written
         *     again then, and otherwise every {@link #REFRESH_EVERY} describes, where an idle server with a hundred
         *     connections wrote a line per QP and per id each second.
         */
        boolean moved(final StatSections sections)
        {
            final long packets =
                engine.counters().get(SoftCounter.SENT_PKTS) + engine.counters().get(SoftCounter.RCVD_PKTS);
            final long described = engine.describeKey() * 31 + sections.describeKey();
            if (packets == lastDescribed[0] && described == lastDescribed[1])
            {
                return false;
            }
            lastDescribed[0] = packets;
            lastDescribed[1] = described;
            return true;
        }
    }
}
