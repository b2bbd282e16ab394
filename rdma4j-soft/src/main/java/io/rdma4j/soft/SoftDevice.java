package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.IpLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.LinkOpenException;
import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.stat.StatFile;
import io.rdma4j.soft.transport.TransportFactory;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.soft.verbs.SoftContext;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.agrona.concurrent.IdleStrategy;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A software RoCEv2 device on one IPv4 address, which is its GID. The link (UDP port 4791 on
 * that address by default) opens with the first context and closes with the last, so listing
 * devices touches no socket.
 */
public final class SoftDevice implements Device
{
    /** How long a waiting thread that just found work polls before it blocks, by default: see the builder. */
    public static final long DEFAULT_WAIT_SPIN_NS = SoftSettings.DEFAULT_WAIT_SPIN_MICROS * 1000;

    private final String name;
    private final InetAddress address;
    private final Function<InetAddress, Link> linkFactory;
    private final DeviceLimits limits;
    private final TransportFactory transportFactory;
    private final boolean pollsInline;
    private final boolean waitsInline;
    private final long waitSpinNs;
    private final IdleStrategy idleStrategy;
    private final LongSupplier clock;
    private final System.Logger logger;
    private final boolean progressThread;
    private final SoftSettings settings;
    /** The provider instance it belongs to: its stat publisher and exit cleanup are the device's. */
    private final SoftDevices registry;
    private SoftEngine engine;
    /** The counters file another process reads ({@code rdma4j stat}); null where it could not be made. */
    private StatFile statFile;
    private int contexts;

    private SoftDevice(final Builder builder)
    {
        this.name = builder.name;
        this.address = builder.address;
        // a device built alone gets a registry of its own, made with its settings, and is listed in none
        this.settings = builder.settings != null ? builder.settings :
            builder.registry != null ? builder.registry.settings() : SoftSettings.fromSystem();
        this.registry = builder.registry != null ? builder.registry : new SoftDevices(settings);
        if (builder.linkFactory != null)
        {
            this.linkFactory = builder.linkFactory;
        }
        else
        {
            final SoftSettings linkSettings = settings;
            final boolean sameHost = builder.sameHost != null ? builder.sameHost : linkSettings.sameHost();
            final System.Logger linkLogger = builder.logger;
            this.linkFactory = a -> udpLink(a, linkSettings, sameHost, linkLogger);
        }
        this.limits = builder.limits != null ? builder.limits : DeviceLimits.RXE.withEthernetMtu(mtuOf(address));
        this.transportFactory = builder.transportFactory;
        this.pollsInline = builder.pollsInline;
        this.waitsInline = builder.waitsInline != null ? builder.waitsInline : builder.pollsInline;
        this.waitSpinNs = builder.waitSpinNs;
        this.idleStrategy = builder.idleStrategy;
        this.clock = builder.clock;
        this.logger = builder.logger;
        this.progressThread = builder.progressThread;
    }

    /**
     * @param name    the device name.
     * @param address its IPv4 address.
     * @return a builder; by default the device has its registry's settings ({@link SoftDevices#settings()}, those
     *         of the system properties and the environment for a device built without one), the IP link {@code UdpLinks.open} chooses with them (with the same-host path of {@link SameHostLink}
     *         unless they turn it off), rxe's limits, and thread mode.
     */
    public static Builder builder(final String name, final InetAddress address)
    {
        return new Builder(name, address);
    }

    /**
     * The link a device uses by default: UDP on its address, with the same-host path unless it is off.
     *
     * @param address  the device's address.
     * @param settings the socket and the inbox directory.
     * @param sameHost true to add the same-host path ({@link SameHostLink}) when it can be had.
     * @param logger   where a same-host path that cannot be had is said, and a fallback to the NIO socket.
     * @return the link.
     */
    static Link udpLink(final InetAddress address, final SoftSettings settings, final boolean sameHost,
        final System.Logger logger)
    {
        final IpLink udp = UdpLinks.open(address, settings.socket(), logger);
        return sameHost ? SameHostLink.over(udp, settings.shmDirectories(), logger) : udp;
    }

    @Override
    public String name()
    {
        return name;
    }

    /**
     * @return the IP address the device owns.
     */
    public InetAddress address()
    {
        return address;
    }

    /**
     * @return the device's limits.
     */
    public DeviceLimits limits()
    {
        return limits;
    }

    /**
     * @return the settings the device was built with: its engine's stat file follows them.
     */
    SoftSettings settings()
    {
        return settings;
    }

    @Override
    public long guid()
    {
        // an EUI-64 made from the IPv4 address, as rxe makes one from the MAC
        final byte[] a = address.getAddress();
        return 0x0200_00FF_FE00_0000L | ((long)(a[0] & 0xFF) << 48) | ((long)(a[1] & 0xFF) << 16) |
            ((long)(a[2] & 0xFF) << 8) | (a[3] & 0xFF) | ((long)(a[1] & 0xFF) << 40);
    }

    @Override
    public String provider()
    {
        return SoftDevices.NAME;
    }

    @Override
    public synchronized Context open()
    {
        if (engine == null)
        {
            final Link link;
            registry.exitCleanup().watch(settings);
            try
            {
                link = linkFactory.apply(address);
            }
            catch (final RuntimeException ex)
            {
                registry.exitCleanup().unwatch();
                // the link's errno when it has one (an address in use, one this host lacks, no native access)
                throw new RdmaException(ex instanceof LinkOpenException refused ? refused.errno() : Errno.EIO,
                    "cannot open " + name + " on " + address.getHostAddress() + ": " + ex.getMessage(), ex);
            }
            statFile = registry.statPublisher().openFile(settings, name, address.getHostAddress(), logger);
            try
            {
                engine = new SoftEngine(name, link, limits, transportFactory, pollsInline, waitsInline,
                    waitSpinNs, clock,
                    logger,
                    progressThread, idleStrategy);
                engine.keepaliveIdleNs(settings.keepaliveIdleNs());
            }
            catch (final RuntimeException | Error ex)
            {
                link.close();
                closeStatFile(null);
                registry.exitCleanup().unwatch();
                throw ex;
            }
            if (statFile != null)
            {
                registry.statPublisher().add(this, engine, statFile);
            }
        }
        contexts++;
        final SoftEngine openedOn = engine;
        return new SoftContext(this, engine, context -> release(openedOn));
    }

    /** A context on {@code openedOn} closed: the last one closes the engine, unless it was shut down already. */
    private synchronized void release(final SoftEngine openedOn)
    {
        if (openedOn != engine)
        {
            return;
        }
        contexts--;
        if (contexts == 0)
        {
            shutdown();
        }
    }

    /**
     * Close the running engine, its link and its counters file now, whatever contexts are still open: what a
     * test does to a device it leaves objects on, or to see its peer vanish. The old contexts' objects fail as
     * on a closed device; the next {@link #open()} starts a new engine.
     */
    public synchronized void shutdown()
    {
        if (engine != null)
        {
            engine.close();
            closeStatFile(engine);
            registry.exitCleanup().unwatch();
            engine = null;
            contexts = 0;
        }
    }

    private void closeStatFile(final SoftEngine published)
    {
        if (statFile != null)
        {
            if (published != null)
            {
                registry.statPublisher().remove(published);
            }
            statFile.close();
            statFile = null;
        }
    }

    /**
     * @return the running engine, or null when no context is open.
     */
    public synchronized SoftEngine engineIfOpen()
    {
        return engine;
    }

    private static int mtuOf(final InetAddress address)
    {
        try
        {
            final NetworkInterface nif = NetworkInterface.getByInetAddress(address);
            if (nif != null && nif.getMTU() > 0)
            {
                return nif.getMTU();
            }
            if (address.isLoopbackAddress())
            {
                return 65536;
            }
        }
        catch (final SocketException ignored)
        {
            // fall through to Ethernet's
        }
        return 1500;
    }

    @Override
    public String toString()
    {
        return name + " (" + address.getHostAddress() + ")";
    }

    /**
     * Configures a device.
     */
    public static final class Builder
    {
        private final String name;
        private final InetAddress address;
        private Function<InetAddress, Link> linkFactory;
        private Boolean sameHost;
        private SoftSettings settings;
        private SoftDevices registry;
        private DeviceLimits limits;
        private TransportFactory transportFactory;
        private boolean pollsInline;
        private Boolean waitsInline;
        private long waitSpinNs = DEFAULT_WAIT_SPIN_NS;
        private IdleStrategy idleStrategy;
        private LongSupplier clock = System::nanoTime;
        private System.Logger logger = System.getLogger(SoftEngine.class.getName());
        private boolean progressThread = true;

        private Builder(final String name, final InetAddress address)
        {
            this.name = Objects.requireNonNull(name, "name");
            this.address = Objects.requireNonNull(address, "address");
        }

        /**
         * @param factory makes the link for the device's address (a MemoryNetwork's attach, say).
         * @return this.
         */
        public Builder link(final Function<InetAddress, Link> factory)
        {
            linkFactory = Objects.requireNonNull(factory);
            return this;
        }

        /**
         * @param deviceSettings the socket, same-host path and directories of the default link, and the stat
         *                       file's; the registry's ({@link SoftDevices#settings()}) when none is given. The
         *                       progress mode stays {@link #pollsInline}'s.
         * @return this.
         */
        public Builder settings(final SoftSettings deviceSettings)
        {
            settings = Objects.requireNonNull(deviceSettings);
            return this;
        }

        /**
         * @param owner the provider instance's devices this one belongs to: its counters are published with
         *              theirs and its files removed at exit with theirs. It is not listed there until
         *              {@link SoftDevices#register}ed. Without one the device has a registry of its own.
         * @return this.
         */
        public Builder registry(final SoftDevices owner)
        {
            registry = Objects.requireNonNull(owner, "registry");
            return this;
        }

        /**
         * @param enabled for the default link (no {@link #link} given): true to send to devices of this host
         *                through their shared-memory inboxes ({@link SameHostLink}), false for UDP only; by
         *                default as the settings' {@code rdma4j.soft.shm} says.
         * @return this.
         */
        public Builder sameHost(final boolean enabled)
        {
            sameHost = enabled;
            return this;
        }

        /**
         * @param deviceLimits the limits.
         * @return this.
         */
        public Builder limits(final DeviceLimits deviceLimits)
        {
            limits = deviceLimits;
            return this;
        }

        /**
         * @param factory makes each QP's transport (tests).
         * @return this.
         */
        public Builder transports(final TransportFactory factory)
        {
            transportFactory = factory;
            return this;
        }

        /**
         * @param inline true for polling mode: a thread polling a CQ of the device and finding it
         *               empty receives from the network itself, for the lowest latency at the cost
         *               of that thread's CPU. The progress thread still runs timers and receives
         *               when nobody polls.
         * @return this.
         */
        public Builder pollsInline(final boolean inline)
        {
            pollsInline = inline;
            return this;
        }

        /**
         * @param inline true for a thread that waits for a CQ event or a completion (a completion channel's
         *               {@code getCqEvent}, a CQ's poll with a timeout) to receive from the network itself
         *               while no other thread does, so that a datagram wakes it once, as a blocking socket's
         *               read does, instead of waking the progress thread which then wakes it. By default as
         *               {@link #pollsInline} is.
         * @return this.
         */
        public Builder waitsInline(final boolean inline)
        {
            waitsInline = inline;
            return this;
        }

        /**
         * @param spinNanos how long a waiting thread that receives ({@link #waitsInline}), when its last wait found
         *                  work, polls the link before it blocks on it: a reply within that time costs no wake-up.
         *                  After a wait that found nothing it blocks at once, so nothing spins while idle. 0 never
         *                  spins; spins that run out make the next waits block at once ({@code WaitSpin}'s backoff).
         *                  {@value #DEFAULT_WAIT_SPIN_NS} ns by default.
         * @return this.
         * @throws IllegalArgumentException if negative.
         */
        public Builder waitSpin(final long spinNanos)
        {
            if (spinNanos < 0)
            {
                throw new IllegalArgumentException("the wait's spin must be 0 ns or more, not " + spinNanos);
            }
            waitSpinNs = spinNanos;
            return this;
        }

        /**
         * @param strategy what the progress thread does after a cycle that found no work: an Agrona idle
         *                 strategy, e.g. {@code BusySpinIdleStrategy} for a thread on a core of its own, or
         *                 {@code BackoffIdleStrategy}; null (the default) waits on the socket until a datagram,
         *                 a wake-up or the next timer, using no CPU while idle.
         * @return this.
         */
        public Builder idleStrategy(final IdleStrategy strategy)
        {
            idleStrategy = strategy;
            return this;
        }

        /**
         * @param nanoClock the device's clock in nanoseconds, for its timers (tests advance their own);
         *                  {@link System#nanoTime} by default.
         * @return this.
         */
        public Builder clock(final LongSupplier nanoClock)
        {
            clock = Objects.requireNonNull(nanoClock);
            return this;
        }

        /**
         * @param errorLogger where the device reports what its progress loop survived; the
         *                    {@code io.rdma4j.soft.engine.SoftEngine} system logger by default.
         * @return this.
         */
        public Builder logger(final System.Logger errorLogger)
        {
            logger = Objects.requireNonNull(errorLogger);
            return this;
        }

        /**
         * @param start false for a device without a progress thread, driven by whoever calls
         *              {@link SoftEngine#doWork} (Agrona's invoker mode; tests that step time with
         *              {@link #clock}); true by default.
         * @return this.
         */
        public Builder progressThread(final boolean start)
        {
            progressThread = start;
            return this;
        }

        /**
         * @return the device.
         */
        public SoftDevice build()
        {
            return new SoftDevice(this);
        }
    }
}
