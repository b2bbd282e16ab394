package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.LossyLink;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The software devices of this process, the registry behind the provider ({@code SoftProvider}), and the one
 * holder of what the process shares: its {@link SoftSettings}, read from the system properties and the environment
 * at first use (or given before it, {@link #configure}), and the publishing of every device's counters. Its
 * devices, one per address of {@link SoftSettings#ADDRESS} (127.0.0.1 by default), are made on first use, and the
 * connection manager adds one on demand for any local address an id is bound or resolved to. One process owns UDP
 * 4791 on one address, so processes on one machine each take their own: 127.0.0.2, 127.0.0.3, ... on loopback. An
 * IPv6 address ({@code ::1}, say) makes an IPv6 device: its GID is that address, not an IPv4-mapped one.
 * <p>
 * Every device made here gets the settings' progress mode ({@link SoftSettings#PROGRESS}) and, with
 * {@link SoftSettings#LOSS}, a link that drops that share of what it sends, chosen by a random generator seeded
 * from {@link SoftSettings#LOSS_SEED} when given: a way to try an application, or RC recovery between two
 * processes, on a lossy network without root. The drops are counted as {@value io.rdma4j.soft.verbs.SoftContext#DROP_INJECTED}, and a
 * warning is logged when a device is made with loss, so that it is not left on by mistake.
 */
public final class SoftDevices
{
    /** The provider's name, which its devices carry too. */
    public static final String NAME = "soft";

    /** Guards itself, the settings and whether their devices were made. */
    private static final List<SoftDevice> DEVICES = new ArrayList<>();
    private static final StatPublisher STAT = new StatPublisher();
    private static SoftSettings settings;
    private static boolean devicesMade;
    /** What the layers above keep for the whole provider (the connection manager's state), one of each type. */
    private static final Map<Class<?>, Object> SHARED = new HashMap<>();

    private SoftDevices()
    {
    }

    /**
     * @return the settings of this process's devices: read from the system properties and the environment on the
     *     first call, or those {@link #configure} was given; the same object from then on.
     * @throws io.rdma4j.verbs.RdmaException EINVAL naming a setting whose value it does not accept.
     */
    public static SoftSettings settings()
    {
        synchronized (DEVICES)
        {
            if (settings == null)
            {
                settings = SoftSettings.fromSystem();
            }
            return settings;
        }
    }

    /**
     * Give the registry its settings in code, instead of the system properties and the environment.
     *
     * @param given the settings every device of the process gets from now on.
     * @throws IllegalStateException if the settings were read already: devices made with the others may exist.
     */
    public static void configure(final SoftSettings given)
    {
        synchronized (DEVICES)
        {
            if (settings != null)
            {
                throw new IllegalStateException("the soft devices' settings were read already (" + settings +
                    "): configure them before the first device is asked for");
            }
            settings = Objects.requireNonNull(given, "settings");
        }
    }

    /**
     * The provider's one instance of a type a layer above keeps for the whole process (the connection manager,
     * its port table and its ids), so that the registry is the only process-wide state: made on first use.
     *
     * @param type  what is kept.
     * @param maker makes it; it must not ask for another shared object.
     * @param <T>   its type.
     * @return the instance.
     */
    public static <T> T shared(final Class<T> type, final java.util.function.Supplier<T> maker)
    {
        synchronized (SHARED)
        {
            Object kept = SHARED.get(type);
            if (kept == null)
            {
                kept = Objects.requireNonNull(maker.get(), "made");
                SHARED.put(type, kept);
            }
            return type.cast(kept);
        }
    }

    /**
     * @return the sections every device's stat file describes beside the device's own objects.
     */
    public static StatSections statSections()
    {
        return STAT.sections();
    }

    static StatPublisher statPublisher()
    {
        return STAT;
    }

    /**
     * @return every device: those the settings name, made on first use, and those added since.
     */
    public static List<SoftDevice> all()
    {
        synchronized (DEVICES)
        {
            makeDevices();
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
            makeDevices();
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
            makeDevices();
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

    private static void makeDevices()
    {
        if (devicesMade)
        {
            return;
        }
        final List<InetAddress> addresses = settings().addresses();
        devicesMade = true;
        for (final InetAddress address : addresses)
        {
            DEVICES.add(newDevice(address));
        }
    }

    private static SoftDevice newDevice(final InetAddress address)
    {
        final SoftSettings given = settings();
        final int index = DEVICES.size();
        final String name = "soft" + index;
        final SoftDevice.Builder builder = SoftDevice.builder(name, address).settings(given)
            .pollsInline(given.polling()).waitsInline(given.waiting()).waitSpin(given.waitSpinNs());
        if (given.loss().isPresent())
        {
            final double probability = given.loss().getAsDouble();
            final long seed = (given.lossSeed().isPresent() ? given.lossSeed().getAsLong() : System.nanoTime()) +
                index;
            System.getLogger(SoftDevices.class.getName()).log(System.Logger.Level.WARNING,
                "{0} on {1} drops {2} of the datagrams it sends ({3}, seed {4})", name, address.getHostAddress(),
                Double.toString(probability), SoftSettings.LOSS.property(), Long.toString(seed));
            final System.Logger logger = System.getLogger(SoftEngine.class.getName());
            // the loss outermost: it takes its share of what goes through an inbox too
            builder.link(a -> new LossyLink(SoftDevice.udpLink(a, given, given.sameHost(), logger), seed,
                probability));
        }
        return builder.build();
    }
}
