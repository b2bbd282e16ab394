package io.rdma4j.soft.config;

import io.rdma4j.spi.Setting;
import io.rdma4j.stat.OwnerOnlyDirectory;
import io.rdma4j.stat.StatDirectory;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Turns the properties and the environment into {@link SoftSettings}, refusing a value a setting does not accept
 * with EINVAL and a sentence naming the setting and what it accepts: a typo fails where the devices are first
 * asked for, not as a device that quietly does something else.
 */
final class SettingsReader
{
    /** IPv4's loopback whatever the JVM prefers: {@code InetAddress.getLoopbackAddress()} may be ::1. */
    private static final String DEFAULT_ADDRESS = "127.0.0.1";

    private final UnaryOperator<String> properties;
    private final UnaryOperator<String> environment;

    private SettingsReader(final UnaryOperator<String> properties, final UnaryOperator<String> environment)
    {
        this.properties = properties;
        this.environment = environment;
    }

    /**
     * @param properties  looks a system property up (null when unset).
     * @param environment looks an environment variable up (null when unset).
     * @return the settings they give.
     * @throws RdmaException EINVAL for the first value a setting does not accept.
     */
    static SoftSettings read(final UnaryOperator<String> properties, final UnaryOperator<String> environment)
    {
        return new SettingsReader(properties, environment).read();
    }

    /**
     * @param properties the JVM's properties, for the user's name and the temporary directory.
     * @return a builder holding every default.
     */
    static SoftSettings.Builder defaults(final UnaryOperator<String> properties)
    {
        final String user = OwnerOnlyDirectory.userNamePart(properties);
        final Path shm = Path.of("/dev/shm");
        final List<Path> places = new ArrayList<>();
        places.add(Files.isDirectory(shm) && Files.isWritable(shm) ? shm.resolve("rdma4j-" + user) :
            OwnerOnlyDirectory.temporaryDirectory(properties).resolve("rdma4j-shm-" + user));
        // the first is in a directory every user may write, so another can make it first (after a reboot, before
        // this user's first device): the home directory is one nobody else can write in. Named by the boot, so
        // that two hosts sharing a home (NFS) never meet in one directory, nor take each other's live inboxes for
        // a dead process's
        final String home = properties.apply("user.home");
        if (home != null && !home.isEmpty() && Path.of(home).isAbsolute())
        {
            places.add(Path.of(home, ".rdma4j", "shm-" + bootId()));
        }
        return new SoftSettings.Builder(List.of(InetAddress.ofLiteral(DEFAULT_ADDRESS)), places,
            StatDirectory.defaultDirectory(properties));
    }

    private SoftSettings read()
    {
        final SoftSettings.Builder settings = defaults(properties);
        final String address = value(SoftSettings.ADDRESS);
        if (address != null)
        {
            settings.addresses(addresses(address));
        }
        final String loss = value(SoftSettings.LOSS);
        if (loss != null)
        {
            settings.loss(loss(loss));
        }
        final String seed = value(SoftSettings.LOSS_SEED);
        if (seed != null)
        {
            settings.lossSeed(seed(seed));
        }
        final String progress = value(SoftSettings.PROGRESS);
        if (progress != null)
        {
            switch (progress.toLowerCase(Locale.ROOT))
            {
                case "polling" -> settings.polling(true);
                case "waiting" -> settings.waitingMode();
                case "thread" -> settings.polling(false);
                default -> throw new RdmaException(Errno.EINVAL, SoftSettings.PROGRESS.property() + " '" +
                    progress + "' is none of 'polling' (polling or waiting for a CQ receives, the default), " +
                    "'waiting' (waiting for a CQ receives) and 'thread' (only the progress thread receives)");
            }
        }
        final String spin = value(SoftSettings.WAIT_SPIN);
        if (spin != null)
        {
            final long micros;
            try
            {
                micros = Long.parseLong(spin.trim());
            }
            catch (final NumberFormatException ex)
            {
                throw new RdmaException(Errno.EINVAL, SoftSettings.WAIT_SPIN.property() + " '" + spin +
                    "' is not a whole number of microseconds");
            }
            if (micros < 0 || micros > TimeUnit.SECONDS.toMicros(1))
            {
                throw new RdmaException(Errno.EINVAL, SoftSettings.WAIT_SPIN.property() + " '" + spin +
                    "' is not a spin of 0 to 1000000 microseconds");
            }
            settings.waitSpinMicros(micros);
        }
        final String keepalive = value(SoftSettings.KEEPALIVE);
        if (keepalive != null && !keepalive.trim().equalsIgnoreCase("off"))
        {
            final long millis;
            try
            {
                millis = Long.parseLong(keepalive.trim());
            }
            catch (final NumberFormatException ex)
            {
                throw new RdmaException(Errno.EINVAL, SoftSettings.KEEPALIVE.property() + " '" + keepalive +
                    "' is neither 'off' nor a whole number of milliseconds");
            }
            if (millis < 1 || millis > TimeUnit.DAYS.toMillis(1))
            {
                throw new RdmaException(Errno.EINVAL, SoftSettings.KEEPALIVE.property() + " '" + keepalive +
                    "' is not an idle time of 1 to 86400000 milliseconds ('off' turns keepalive off)");
            }
            settings.keepaliveMillis(millis);
        }
        final String socket = value(SoftSettings.SOCKET);
        if (socket != null)
        {
            settings.socket(switch (socket.toLowerCase(Locale.ROOT))
            {
                case "auto" -> SocketChoice.AUTO;
                case "nio" -> SocketChoice.NIO;
                case "linux" -> SocketChoice.LINUX;
                default -> throw new RdmaException(Errno.EINVAL, SoftSettings.SOCKET.property() + " '" + socket +
                    "' is none of 'auto' (the Linux socket where it loads, else NIO, the default), 'nio' and 'linux'");
            });
        }
        final String shm = value(SoftSettings.SHM);
        if (shm != null)
        {
            settings.sameHost(switch (shm.toLowerCase(Locale.ROOT))
            {
                case "auto" -> true;
                case "off" -> false;
                default -> throw new RdmaException(Errno.EINVAL, SoftSettings.SHM.property() + " '" + shm +
                    "' is neither 'auto' (devices of one host exchange datagrams through shared memory, the " +
                    "default) nor 'off' (UDP only)");
            });
        }
        final String shmDirectory = value(SoftSettings.SHM_DIR);
        if (shmDirectory != null)
        {
            settings.shmDirectories(places(shmDirectory));
        }
        final String stat = value(SoftSettings.STAT);
        if (stat != null)
        {
            settings.stat(switch (stat.toLowerCase(Locale.ROOT))
            {
                case "true" -> true;
                case "false" -> false;
                default -> throw new RdmaException(Errno.EINVAL, SoftSettings.STAT.property() + " '" + stat +
                    "' is neither 'true' (a counters file per device, the default) nor 'false' (none)");
            });
        }
        final String statDirectory = value(SoftSettings.STAT_DIR);
        if (statDirectory != null)
        {
            settings.statDirectory(path(SoftSettings.STAT_DIR, statDirectory));
        }
        return settings.build();
    }

    private String value(final Setting setting)
    {
        return setting.read(properties, environment);
    }

    static List<InetAddress> addresses(final String spec)
    {
        final List<InetAddress> addresses = new ArrayList<>();
        for (final String part : spec.split(","))
        {
            final String text = part.trim();
            if (text.isEmpty())
            {
                continue;
            }
            try
            {
                addresses.add(InetAddress.ofLiteral(text));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RdmaException(Errno.EINVAL, SoftSettings.ADDRESS.property() + " entry '" + text +
                    "' is not an IP address literal", ex);
            }
        }
        return addresses;
    }

    private static double loss(final String text)
    {
        try
        {
            return checkedLoss(Double.parseDouble(text), text);
        }
        catch (final NumberFormatException ex)
        {
            return checkedLoss(Double.NaN, text);
        }
    }

    /**
     * @param probability the share asked for.
     * @param text        as it was given, for the sentence.
     * @return the share, if in [0, 1).
     * @throws RdmaException EINVAL if it is not.
     */
    static double checkedLoss(final double probability, final String text)
    {
        if (probability >= 0 && probability < 1)
        {
            return probability;
        }
        throw new RdmaException(Errno.EINVAL, SoftSettings.LOSS.property() + " '" + text +
            "' is not a fraction in [0, 1): give the share of sent datagrams to drop, e.g. 0.1");
    }

    private static long seed(final String text)
    {
        try
        {
            return Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new RdmaException(Errno.EINVAL, SoftSettings.LOSS_SEED.property() + " '" + text +
                "' is not a long integer", ex);
        }
    }

    /**
     * @param places the same-host inboxes' places.
     * @return them, if there is one at least.
     * @throws RdmaException EINVAL if there is none.
     */
    static List<Path> checkedPlaces(final List<Path> places)
    {
        return checkedPlaces(places, places.toString());
    }

    private static List<Path> checkedPlaces(final List<Path> places, final String given)
    {
        if (places.isEmpty())
        {
            throw new RdmaException(Errno.EINVAL, SoftSettings.SHM_DIR.property() + " '" + given + "' names no " +
                "directory: give one at least, or turn the same-host path off with " + SoftSettings.SHM.property() +
                "=off");
        }
        return places;
    }

    private static List<Path> places(final String spec)
    {
        final List<Path> places = new ArrayList<>();
        for (final String part : spec.split(java.io.File.pathSeparator))
        {
            if (!part.isBlank())
            {
                places.add(path(SoftSettings.SHM_DIR, part.strip()));
            }
        }
        return checkedPlaces(places, spec);
    }

    /** This boot of this host: the same for every process until the next reboot, and another host's is another. */
    private static String bootId()
    {
        try
        {
            final String id = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip()
                .replaceAll("[^0-9a-f-]", "");
            return id.isEmpty() ? "host" : id;
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            return "host";
        }
    }

    private static Path path(final Setting setting, final String text)
    {
        try
        {
            return Path.of(text);
        }
        catch (final InvalidPathException ex)
        {
            throw new RdmaException(Errno.EINVAL, setting.property() + " '" + text + "' is not a directory path: " +
                ex.getReason(), ex);
        }
    }
}
