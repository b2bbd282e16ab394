package io.rdma4j.soft.config;

import io.rdma4j.spi.Setting;
import io.rdma4j.stat.StatDirectory;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * The software device's settings, as Aeron's {@code MediaDriver.Context} holds its driver's: every setting
 * declared once here (property, variable, default, values, cost), read once per process by the registry
 * ({@link #fromSystem()}: the property wins over the variable), and passed down to the devices, their links and
 * their stat files, so that nothing below reads a property later and finds something else. Immutable; a program
 * or a test that configures in code starts from {@link #builder()} or {@link #toBuilder()}.
 */
public final class SoftSettings
{
    /** The registry's devices, one per address. */
    public static final Setting ADDRESS = new Setting("rdma4j.soft.address", "RDMA4J_SOFT_ADDRESS", "`127.0.0.1`",
        "IPv4 or IPv6 literals, comma-separated",
        "One device per address, each owning UDP 4791 on it, so processes on one host each take their own " +
        "(127.0.0.2, 127.0.0.3, ... on loopback); the connection manager adds a device for any other local " +
        "address an id is bound or resolved to.");

    /** A share of sent datagrams the registry's devices drop. */
    public static final Setting LOSS = new Setting("rdma4j.soft.loss", "RDMA4J_SOFT_LOSS", "none",
        "a fraction in [0, 1)",
        "Every device the provider makes drops that share of the datagrams it sends (`drop_injected`), one " +
        "random draw per datagram, and logs a warning when it is made: RC recovery on a lossy network without root.");

    /** The seed of the loss's draws. */
    public static final Setting LOSS_SEED = new Setting("rdma4j.soft.loss.seed", "RDMA4J_SOFT_LOSS_SEED",
        "`System.nanoTime()`", "a long integer",
        "Seeds the loss's draws (plus the device's index among the provider's), so that a run drops the same " +
        "datagrams again.");

    /** Who receives: a polling or waiting application thread, or the progress thread alone. */
    public static final Setting PROGRESS = new Setting("rdma4j.soft.progress", "RDMA4J_SOFT_PROGRESS",
        "`polling`", "`polling`, `waiting`, `thread`",
        "`polling`: a thread polling an empty CQ, or waiting for a CQ event or a completion, receives itself and " +
        "the progress thread parks meanwhile, so a busy poller pays no hand-off and a sleeping one wakes once per " +
        "datagram, as on a blocking socket. `waiting`: only waiting threads receive (a poll reads the CQ). " +
        "`thread`: only the progress thread receives, a core of its own beside the application's polling and a " +
        "wake-up per burst. All idle at no CPU. For the provider's devices; `SoftDevice.builder` takes " +
        "`pollsInline` and `waitsInline`.");

    /**
     * A waiting thread's spin budget by default, in microseconds: hadroNIO's 20 us, which on 2026-12-02's EPYC
     * (2 vCPUs, quiet) took a same-host RC {@code perf send_lat -e} from 18.7 to 2.5 us; its spins stop while they
     * do not pay (loaded, a peer slow to answer), so a busy machine loses nothing by it.
     */
    public static final long DEFAULT_WAIT_SPIN_MICROS = 20;

    /** How long a waiting thread that found work polls before it blocks. */
    public static final Setting WAIT_SPIN = new Setting("rdma4j.soft.wait.spin", "RDMA4J_SOFT_WAIT_SPIN",
        "`" + DEFAULT_WAIT_SPIN_MICROS + "`", "microseconds, 0 or more",
        "In `polling` and `waiting` modes a thread that waits for an event and receives itself polls the socket " +
        "up to this long before it blocks, when its last wait found work: a reply within that time costs no " +
        "wake-up. Spins that run out, or end more than twice the budget late (the thread lost its core " +
        "meanwhile), make the next waits block at once (up to 64 of them, fewer as spins pay " +
        "again), so a loaded machine or a slow peer costs little spinning. After a wait that found nothing it " +
        "blocks at once, so nothing spins while idle. 0 never spins. `rdma4j stat` counts the spins " +
        "(`wait_spins`) and those that paid (`wait_spins_paid`).");

    /** How long an idle RC connection waits before it probes its peer. */
    public static final Setting KEEPALIVE = new Setting("rdma4j.soft.keepalive", "RDMA4J_SOFT_KEEPALIVE", "`off`",
        "`off`, or milliseconds from 1 to 86 400 000",
        "An RC QP in RTS that heard nothing from its peer for this long, with nothing outstanding, sends a probe " +
        "(a duplicate of its last PSN, which any RC responder re-acknowledges without a completion, " +
        "`keepalive_probes`), as a TCP socket with `SO_KEEPALIVE` does; an unanswered probe is sent again every " +
        "ACK timeout, retry_cnt times (7 counts as 7), then the QP goes to ERR and flushes " +
        "(`keepalive_timeouts`), so a peer whose host vanished is noticed on an idle connection. Off: as a " +
        "socket, a raw RC QP keeps no watch unless asked.");

    /** The socket under the device. */
    public static final Setting SOCKET = new Setting("rdma4j.soft.socket", "RDMA4J_SOFT_SOCKET", "`auto`",
        "`auto`, `nio`, `linux`",
        "`linux`: `recvmmsg`/`sendmmsg`, UDP GSO and GRO through the FFM API (needs native access). `nio`: a " +
        "`DatagramChannel`, one datagram per system call, several times slower. `auto`: Linux where it loads, " +
        "else NIO with a warning saying why.");

    /** The same-host path. */
    public static final Setting SHM = new Setting("rdma4j.soft.shm", "RDMA4J_SOFT_SHM", "`auto`", "`auto`, `off`",
        "`auto`: unicast to devices of this user on this host goes through their shared-memory inboxes (a 4 MiB " +
        "ring file per device) instead of the kernel's UDP stack. `off`: UDP only.");

    /** Where the same-host inboxes are. */
    public static final Setting SHM_DIR = new Setting("rdma4j.soft.shm.dir", "RDMA4J_SOFT_SHM_DIR",
        "`/dev/shm/rdma4j-USER:~/.rdma4j/shm-BOOT_ID` (`<java.io.tmpdir>/rdma4j-shm-USER` first without `/dev/shm`)",
        "directories separated by `:`, each to be this user's alone (`rwx------`)",
        "Where the same-host inboxes are: a device puts its inbox in the first of these directories that is this " +
        "user's alone (made if missing, in a parent nobody else may rename it in) and looks for its peers' in " +
        "each. One that is not (made first by another user, open to others, a link) is refused with a warning " +
        "naming it and its owner (`shm_dir_refused`); with all refused the device speaks UDP only and says so of " +
        "each connection to a peer on this host (`shm_unprotected_peer`). The second default, in the home " +
        "directory, is one no other user can make first.");

    /** Whether devices publish their counters. */
    public static final Setting STAT = new Setting(StatDirectory.ENABLED_PROPERTY,
        StatDirectory.ENABLED_ENVIRONMENT, "`true`", "`true`, `false`",
        "`true`: each device maps a counters file for `rdma4j stat` and registers a JMX MBean, and one daemon " +
        "thread copies the counters into the files ten times a second. `false`: no file, no MBean, no thread.");

    /** Where the counters files are. */
    public static final Setting STAT_DIR = new Setting(StatDirectory.PROPERTY, StatDirectory.ENVIRONMENT,
        "`<java.io.tmpdir>/rdma4j-stat-USER`", "a directory, this user's alone (`rwx------`)",
        "Where the devices' counters files are and where `rdma4j stat` looks; a directory that is not this " +
        "user's alone is refused, and the devices run without a file.");

    /** Every setting of the software device, in the order the README's table lists them. */
    public static final List<Setting> DECLARED =
        List.of(ADDRESS, LOSS, LOSS_SEED, PROGRESS, WAIT_SPIN, KEEPALIVE, SOCKET, SHM, SHM_DIR, STAT, STAT_DIR);

    private final List<InetAddress> addresses;
    private final OptionalDouble loss;
    private final OptionalLong lossSeed;
    private final boolean polling;
    private final boolean waiting;
    private final long waitSpinNs;
    private final long keepaliveIdleNs;
    private final SocketChoice socket;
    private final boolean sameHost;
    private final List<Path> shmDirectories;
    private final boolean stat;
    private final Path statDirectory;

    private SoftSettings(final Builder builder)
    {
        this.addresses = List.copyOf(builder.addresses);
        this.loss = builder.loss;
        this.lossSeed = builder.lossSeed;
        this.polling = builder.polling;
        this.waiting = builder.waiting;
        this.waitSpinNs = builder.waitSpinNs;
        this.keepaliveIdleNs = builder.keepaliveIdleNs;
        this.socket = builder.socket;
        this.sameHost = builder.sameHost;
        this.shmDirectories = builder.shmDirectories;
        this.stat = builder.stat;
        this.statDirectory = builder.statDirectory;
    }

    /**
     * @return the settings this process is given, from the system properties and the environment.
     * @throws io.rdma4j.verbs.RdmaException EINVAL naming the first setting whose value is not one it accepts.
     */
    public static SoftSettings fromSystem()
    {
        return from(System::getProperty, System::getenv);
    }

    /**
     * @param properties  looks a system property up (null when unset): the JVM's, or a view of them that hides
     *                    the settings a program gives in code.
     * @param environment looks an environment variable up (null when unset).
     * @return the settings they give, read as {@link #fromSystem()} reads the process's.
     * @throws io.rdma4j.verbs.RdmaException EINVAL naming the first setting whose value is not one it accepts.
     */
    public static SoftSettings from(final UnaryOperator<String> properties, final UnaryOperator<String> environment)
    {
        return SettingsReader.read(properties, environment);
    }

    /**
     * @return a builder holding every default, the directories this user's under this JVM's temporary directory
     *     (and {@code /dev/shm}).
     */
    public static Builder builder()
    {
        return SettingsReader.defaults(System::getProperty);
    }

    /**
     * @return a builder holding these settings, to change some.
     */
    public Builder toBuilder()
    {
        return new Builder(this);
    }

    /**
     * @return the addresses of the registry's devices ({@link #ADDRESS}).
     */
    public List<InetAddress> addresses()
    {
        return addresses;
    }

    /**
     * @return the share of sent datagrams the registry's devices drop, or empty for none ({@link #LOSS}).
     */
    public OptionalDouble loss()
    {
        return loss;
    }

    /**
     * @return the loss's seed, or empty for one from the clock ({@link #LOSS_SEED}).
     */
    public OptionalLong lossSeed()
    {
        return lossSeed;
    }

    /**
     * @return true for polling mode, false for thread mode ({@link #PROGRESS}).
     */
    public boolean polling()
    {
        return polling;
    }

    /**
     * @return the socket asked for ({@link #SOCKET}).
     */
    public SocketChoice socket()
    {
        return socket;
    }

    /**
     * @return true to give a device's default link the same-host path ({@link #SHM}).
     */
    public boolean sameHost()
    {
        return sameHost;
    }

    /**
     * @return the first place of the same-host inboxes ({@link #SHM_DIR}): where a device puts its inbox when it
     *     is this user's alone.
     */
    public Path shmDirectory()
    {
        return shmDirectories.getFirst();
    }

    /**
     * @return every place of the same-host inboxes, in order ({@link #SHM_DIR}): never empty.
     */
    public List<Path> shmDirectories()
    {
        return shmDirectories;
    }

    /**
     * @return true if devices publish their counters ({@link #STAT}).
     */
    public boolean stat()
    {
        return stat;
    }

    /**
     * @return where the counters files are ({@link #STAT_DIR}).
     */
    public Path statDirectory()
    {
        return statDirectory;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof SoftSettings that && addresses.equals(that.addresses) && loss.equals(that.loss) &&
            lossSeed.equals(that.lossSeed) && polling == that.polling && waiting == that.waiting &&
            waitSpinNs == that.waitSpinNs && keepaliveIdleNs == that.keepaliveIdleNs && socket == that.socket &&
            sameHost == that.sameHost && shmDirectories.equals(that.shmDirectories) && stat == that.stat &&
            statDirectory.equals(that.statDirectory);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(addresses, loss, lossSeed, polling, waiting, waitSpinNs, keepaliveIdleNs, socket,
            sameHost,
            shmDirectories, stat, statDirectory);
    }

    @Override
    public String toString()
    {
        return ADDRESS.property() + "=" + addresses.stream().map(InetAddress::getHostAddress).toList() + ", " +
            LOSS.property() + "=" + (loss.isPresent() ? loss.getAsDouble() : "none") + ", " +
            LOSS_SEED.property() + "=" + (lossSeed.isPresent() ? lossSeed.getAsLong() : "clock") + ", " +
            PROGRESS.property() + "=" + progressName() + ", " +
            WAIT_SPIN.property() + "=" + TimeUnit.NANOSECONDS.toMicros(waitSpinNs) + ", " +
            KEEPALIVE.property() + "=" +
            (keepaliveIdleNs == 0 ? "off" : Long.toString(TimeUnit.NANOSECONDS.toMillis(keepaliveIdleNs))) + ", " +
            SOCKET.property() + "=" + socket.name().toLowerCase(java.util.Locale.ROOT) + ", " +
            SHM.property() + "=" + (sameHost ? "auto" : "off") + ", " + SHM_DIR.property() + "=" +
            shmDirectories.stream().map(Path::toString).collect(java.util.stream.Collectors.joining(":")) + ", " +
            STAT.property() + "=" + stat + ", " + STAT_DIR.property() + "=" + statDirectory;
    }

    /**
     * @return the progress mode's name, as {@link #PROGRESS} takes it.
     */
    public String progressName()
    {
        return polling ? "polling" : waiting ? "waiting" : "thread";
    }

    /**
     * @return true where a thread waiting for an event or a completion receives itself: polling and waiting modes
     *     ({@link #PROGRESS}).
     */
    public boolean waiting()
    {
        return waiting;
    }

    /**
     * @return how long such a thread polls before it blocks, when its last wait found work ({@link #WAIT_SPIN}).
     */
    public long waitSpinNs()
    {
        return waitSpinNs;
    }

    /**
     * @return how long an RC QP hears nothing from its peer before it probes it ({@link #KEEPALIVE}); 0 for off.
     */
    public long keepaliveIdleNs()
    {
        return keepaliveIdleNs;
    }

    /**
     * Settings made in code; each setter checks its value as the property's is checked.
     */
    public static final class Builder
    {
        private List<InetAddress> addresses;
        private OptionalDouble loss;
        private OptionalLong lossSeed;
        private boolean polling;
        private boolean waiting;
        private long waitSpinNs;
        private long keepaliveIdleNs;
        private SocketChoice socket;
        private boolean sameHost;
        private List<Path> shmDirectories;
        private boolean stat;
        private Path statDirectory;

        private Builder(final SoftSettings from)
        {
            addresses = from.addresses;
            loss = from.loss;
            lossSeed = from.lossSeed;
            polling = from.polling;
            waiting = from.waiting;
            waitSpinNs = from.waitSpinNs;
            keepaliveIdleNs = from.keepaliveIdleNs;
            socket = from.socket;
            sameHost = from.sameHost;
            shmDirectories = from.shmDirectories;
            stat = from.stat;
            statDirectory = from.statDirectory;
        }

        Builder(final List<InetAddress> addresses, final List<Path> shmDirectories, final Path statDirectory)
        {
            this.addresses = addresses;
            this.loss = OptionalDouble.empty();
            this.lossSeed = OptionalLong.empty();
            this.polling = true;
            this.waiting = true;
            this.waitSpinNs = TimeUnit.MICROSECONDS.toNanos(DEFAULT_WAIT_SPIN_MICROS);
            this.socket = SocketChoice.AUTO;
            this.sameHost = true;
            this.shmDirectories = List.copyOf(shmDirectories);
            this.stat = true;
            this.statDirectory = statDirectory;
        }

        /**
         * @param deviceAddresses the addresses of the registry's devices.
         * @return this.
         */
        public Builder addresses(final List<InetAddress> deviceAddresses)
        {
            addresses = List.copyOf(deviceAddresses);
            return this;
        }

        /**
         * @param literals the addresses of the registry's devices as {@link #ADDRESS} takes them: IP literals,
         *                 comma-separated.
         * @return this.
         * @throws io.rdma4j.verbs.RdmaException EINVAL naming an entry that is not an IP address literal.
         */
        public Builder addresses(final String literals)
        {
            addresses = List.copyOf(SettingsReader.addresses(Objects.requireNonNull(literals, "addresses")));
            return this;
        }

        /**
         * @param probability the share of sent datagrams to drop, in [0, 1).
         * @return this.
         * @throws io.rdma4j.verbs.RdmaException EINVAL outside [0, 1).
         */
        public Builder loss(final double probability)
        {
            loss = OptionalDouble.of(SettingsReader.checkedLoss(probability, Double.toString(probability)));
            return this;
        }

        /**
         * @return this, dropping nothing.
         */
        public Builder noLoss()
        {
            loss = OptionalDouble.empty();
            return this;
        }

        /**
         * @param seed the seed of the loss's draws.
         * @return this.
         */
        public Builder lossSeed(final long seed)
        {
            lossSeed = OptionalLong.of(seed);
            return this;
        }

        /**
         * @param pollingMode true for polling mode, false for thread mode.
         * @return this.
         */
        public Builder polling(final boolean pollingMode)
        {
            polling = pollingMode;
            waiting = pollingMode;
            return this;
        }

        /**
         * Waiting mode: only a thread waiting for an event or a completion receives, besides the progress thread.
         *
         * @return this.
         */
        public Builder waitingMode()
        {
            polling = false;
            waiting = true;
            return this;
        }

        /**
         * @param micros how long a waiting thread that found work polls before it blocks ({@link #WAIT_SPIN}).
         * @return this.
         * @throws io.rdma4j.verbs.RdmaException EINVAL if negative.
         */
        public Builder waitSpinMicros(final long micros)
        {
            io.rdma4j.verbs.RdmaException.check(micros >= 0 && micros <= TimeUnit.SECONDS.toMicros(1),
                io.rdma4j.verbs.Errno.EINVAL, WAIT_SPIN.property() + " " + micros +
                " is not a spin of 0 to 1 000 000 microseconds");
            waitSpinNs = TimeUnit.MICROSECONDS.toNanos(micros);
            return this;
        }

        /**
         * @param millis how long an idle RC QP waits before it probes its peer ({@link #KEEPALIVE}); 0 for off.
         * @return this.
         * @throws io.rdma4j.verbs.RdmaException EINVAL outside 0 to 86 400 000 (a day).
         */
        public Builder keepaliveMillis(final long millis)
        {
            io.rdma4j.verbs.RdmaException.check(millis >= 0 && millis <= TimeUnit.DAYS.toMillis(1),
                io.rdma4j.verbs.Errno.EINVAL, KEEPALIVE.property() + " " + millis +
                " is not an idle time of 1 to 86 400 000 milliseconds (0: off)");
            keepaliveIdleNs = TimeUnit.MILLISECONDS.toNanos(millis);
            return this;
        }

        /**
         * @param choice the socket to ask for.
         * @return this.
         */
        public Builder socket(final SocketChoice choice)
        {
            socket = Objects.requireNonNull(choice, "socket");
            return this;
        }

        /**
         * @param enabled true for the same-host path where it can be had, false for UDP only.
         * @return this.
         */
        public Builder sameHost(final boolean enabled)
        {
            sameHost = enabled;
            return this;
        }

        /**
         * @param directory the one place of the same-host inboxes: none other is tried when it is refused.
         * @return this.
         */
        public Builder shmDirectory(final Path directory)
        {
            shmDirectories = List.of(Objects.requireNonNull(directory, "shmDirectory"));
            return this;
        }

        /**
         * @param directories the places of the same-host inboxes, in order ({@link #SHM_DIR}).
         * @return this.
         * @throws io.rdma4j.verbs.RdmaException EINVAL if there is none.
         */
        public Builder shmDirectories(final List<Path> directories)
        {
            shmDirectories = SettingsReader.checkedPlaces(List.copyOf(directories));
            return this;
        }

        /**
         * @param enabled true for counters files and MBeans.
         * @return this.
         */
        public Builder stat(final boolean enabled)
        {
            stat = enabled;
            return this;
        }

        /**
         * @param directory where the counters files are.
         * @return this.
         */
        public Builder statDirectory(final Path directory)
        {
            statDirectory = Objects.requireNonNull(directory, "statDirectory");
            return this;
        }

        /**
         * @return the settings.
         */
        public SoftSettings build()
        {
            return new SoftSettings(this);
        }
    }
}
