package io.rdma4j.soft;

import io.rdma4j.soft.link.LossyLink;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The software devices of this process, the registry behind the provider ({@code SoftProvider}). Its devices, one per IPv4 or IPv6 address, come from the system
 * property {@code rdma4j.soft.address} or the environment variable {@code RDMA4J_SOFT_ADDRESS}
 * (comma-separated; default 127.0.0.1), and the connection manager adds one on demand for any
 * local address an id is bound or resolved to. One process owns UDP 4791 on one address, so
 * processes on one machine each take their own: 127.0.0.2, 127.0.0.3, ... on loopback. An IPv6
 * address ({@code ::1}, say) makes an IPv6 device: its GID is that address, not an IPv4-mapped one.
 * <p>
 * {@code rdma4j.soft.loss} (or {@code RDMA4J_SOFT_LOSS}), a fraction in [0, 1), makes every
 * device of the process drop that share of the datagrams it sends, chosen by a random generator
 * seeded from {@code rdma4j.soft.loss.seed} ({@code RDMA4J_SOFT_LOSS_SEED}) when given: a way to
 * try an application, or RC recovery between two processes, on a lossy network without root.
 * The drops are counted as {@value SoftContext#DROP_INJECTED}, and a warning is logged when a
 * device is made with loss, so that it is not left on by mistake.
 * <p>
 * {@code rdma4j.soft.progress} ({@code RDMA4J_SOFT_PROGRESS}) {@code polling}, the default, puts the devices
 * in polling mode: a thread that polls an empty CQ receives from the network itself, and the progress thread
 * parks while one does, so a busy-polling application pays no thread hand-off and no second spinning thread;
 * {@code thread} leaves all receiving to each device's progress thread (a poll then only reads the CQ).
 * <p>
 * {@code rdma4j.soft.shm} ({@code RDMA4J_SOFT_SHM}) {@code off} keeps every datagram on UDP; {@code auto},
 * the default, sends unicast datagrams to the devices of other rdma4j processes of this user on this host
 * through their shared-memory inboxes ({@link io.rdma4j.soft.link.SameHostLink}).
 */
public final class SoftDevices
{
    /** The provider's name, which its devices carry too. */
    public static final String NAME = "soft";

    private static final List<SoftDevice> DEVICES = new ArrayList<>();
    private static boolean configured;

    private SoftDevices()
    {
    }

    /**
     * @return every device: those the settings name, made on first use, and those added since.
     */
    public static List<SoftDevice> all()
    {
        synchronized (DEVICES)
        {
            configure();
            return List.copyOf(DEVICES);
        }
    }

    /**
     * The device on an address, made (and listed) on first use.
     *
     * @param address a local IPv4 or IPv6 address.
     * @return its device.
     */
    public static SoftDevice deviceFor(final InetAddress address)
    {
        synchronized (DEVICES)
        {
            configure();
            for (final SoftDevice device : DEVICES)
            {
                if (device.address().equals(address))
                {
                    return device;
                }
            }
            final SoftDevice device = newDevice(address);
            DEVICES.add(device);
            return device;
        }
    }

    /**
     * Add a device built elsewhere (with a MemoryLink, say) so the connection manager finds it by
     * address.
     *
     * @param device the device.
     */
    public static void register(final SoftDevice device)
    {
        synchronized (DEVICES)
        {
            configure();
            DEVICES.removeIf(d -> d.address().equals(device.address()));
            DEVICES.add(device);
        }
    }

    /**
     * Forget a registered device.
     *
     * @param device the device.
     */
    public static void unregister(final SoftDevice device)
    {
        synchronized (DEVICES)
        {
            DEVICES.remove(device);
        }
    }

    private static void configure()
    {
        if (configured)
        {
            return;
        }
        configured = true;
        String spec = setting("rdma4j.soft.address", "RDMA4J_SOFT_ADDRESS");
        if (spec == null)
        {
            spec = "127.0.0.1";
        }
        for (final String part : spec.split(","))
        {
            final String text = part.trim();
            if (text.isEmpty())
            {
                continue;
            }
            try
            {
                final InetAddress address = InetAddress.ofLiteral(text);
                DEVICES.add(newDevice(address));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RdmaException(Errno.EINVAL, "rdma4j.soft.address entry '" + text +
                    "' is not an IP address literal", ex);
            }
        }
    }

    private static SoftDevice newDevice(final InetAddress address)
    {
        final String name = "soft" + DEVICES.size();
        final SoftDevice.Builder builder = SoftDevice.builder(name, address).pollsInline(pollingMode());
        final String loss = setting("rdma4j.soft.loss", "RDMA4J_SOFT_LOSS");
        if (loss != null)
        {
            final double probability = lossProbability(loss);
            final String seedText = setting("rdma4j.soft.loss.seed", "RDMA4J_SOFT_LOSS_SEED");
            final long seed = (seedText == null ? System.nanoTime() : lossSeed(seedText)) + DEVICES.size();
            System.getLogger(SoftDevices.class.getName()).log(System.Logger.Level.WARNING,
                "{0} on {1} drops {2} of the datagrams it sends (rdma4j.soft.loss, seed {3})", name,
                address.getHostAddress(), loss, Long.toString(seed));
            final boolean sameHost = sameHostPath();
            final System.Logger logger = System.getLogger(SoftEngine.class.getName());
            // the loss outermost: it takes its share of what goes through an inbox too
            builder.link(a -> new LossyLink(SoftDevice.udpLink(a, sameHost, logger), seed, probability));
        }
        return builder.build();
    }

    /**
     * @return false if {@code rdma4j.soft.progress} (or {@code RDMA4J_SOFT_PROGRESS}) asks for thread mode,
     * true for polling mode, the default.
     */
    static boolean pollingMode()
    {
        final String progress = setting("rdma4j.soft.progress", "RDMA4J_SOFT_PROGRESS");
        if (progress == null || progress.equals("polling"))
        {
            return true;
        }
        if (progress.equals("thread"))
        {
            return false;
        }
        throw new RdmaException(Errno.EINVAL, "rdma4j.soft.progress '" + progress +
            "' is neither 'polling' (polling a CQ receives, the default) nor 'thread' (only the progress thread " +
            "receives)");
    }

    /**
     * @return false if {@code rdma4j.soft.shm} (or {@code RDMA4J_SOFT_SHM}) is {@code off}, true if it is
     * {@code auto} or not given: devices on one host then exchange unicast datagrams through shared memory.
     */
    public static boolean sameHostPath()
    {
        final String shm = setting(io.rdma4j.soft.link.SameHostLink.SETTING, "RDMA4J_SOFT_SHM");
        if (shm == null || shm.equals("auto"))
        {
            return true;
        }
        if (shm.equals("off"))
        {
            return false;
        }
        throw new RdmaException(Errno.EINVAL, "rdma4j.soft.shm '" + shm + "' is neither 'auto' (devices of one " +
            "host exchange datagrams through shared memory, the default) nor 'off' (UDP only)");
    }

    public static String setting(final String property, final String environment)
    {
        final String value = System.getProperty(property);
        if (value != null && !value.isBlank())
        {
            return value.trim();
        }
        final String fromEnvironment = System.getenv(environment);
        return fromEnvironment == null || fromEnvironment.isBlank() ? null : fromEnvironment.trim();
    }

    private static double lossProbability(final String text)
    {
        try
        {
            final double probability = Double.parseDouble(text);
            if (probability >= 0 && probability < 1)
            {
                return probability;
            }
        }
        catch (final NumberFormatException ex)
        {
            // reported below with the limit
        }
        throw new RdmaException(Errno.EINVAL, "rdma4j.soft.loss '" + text +
            "' is not a fraction in [0, 1): give the share of sent datagrams to drop, e.g. 0.1");
    }

    private static long lossSeed(final String text)
    {
        try
        {
            return Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new RdmaException(Errno.EINVAL, "rdma4j.soft.loss.seed '" + text + "' is not a long integer", ex);
        }
    }
}
