package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.LossyLink;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The software devices of one provider instance and what they share: its {@link SoftSettings}, the publishing of
 * their counters ({@link StatPublisher}) and the removal of their files at exit ({@link ExitCleanup}). Nothing
 * here is process-wide: two instances with different settings live side by side in one JVM, each with its own
 * devices. Its devices, one per address of {@link SoftSettings#ADDRESS} (127.0.0.1 by default), are made on
 * first use, and the connection manager adds one on demand for any local address an id is bound or resolved to.
 * One device owns UDP 4791 on one address, so processes (and instances) on one machine each take their own:
 * 127.0.0.2, 127.0.0.3, ... on loopback. An IPv6 address ({@code ::1}, say) makes an IPv6 device: its GID is that
 * address, not an IPv4-mapped one.
 * <p>
 * Every device made here gets the settings' progress mode ({@link SoftSettings#PROGRESS}) and, with
 * {@link SoftSettings#LOSS}, a link that drops that share of what it sends, chosen by a random generator seeded
 * from {@link SoftSettings#LOSS_SEED} when given: a way to try an application, or RC recovery between two
 * processes, on a lossy network without root. The drops are counted as {@value io.rdma4j.soft.verbs.SoftContext#DROP_INJECTED}, and a
 * warning is logged when a device is made with loss, so that it is not left on by mistake.
 */
public final class SoftDevices implements AutoCloseable
{
    /** The provider's name, which its devices carry too. */
    public static final String NAME = "soft";

    private final SoftSettings settings;
    private final StatPublisher stat = new StatPublisher();
    private final ExitCleanup exitCleanup = new ExitCleanup();
    /** Guards itself and the flags below. */
    private final List<SoftDevice> devices = new ArrayList<>();
    private boolean devicesMade;
    private boolean closed;

    /**
     * @param settings what its devices are made with; read nothing later.
     */
    public SoftDevices(final SoftSettings settings)
    {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /**
     * @return the settings its devices are made with.
     */
    public SoftSettings settings()
    {
        return settings;
    }

    /**
     * @return the sections every device's stat file describes beside the device's own objects.
     */
    public StatSections statSections()
    {
        return stat.sections();
    }

    StatPublisher statPublisher()
    {
        return stat;
    }

    ExitCleanup exitCleanup()
    {
        return exitCleanup;
    }

    /**
     * @return every device: those the settings name, made on first use, and those added since.
     * @throws RdmaException ENODEV if {@link #close} was called.
     */
    public List<SoftDevice> all()
    {
        synchronized (devices)
        {
            makeDevices();
            return List.copyOf(devices);
        }
    }

    /**
     * The device on an address, made (and listed) on first use.
     *
     * @param address a local IPv4 or IPv6 address.
     * @return its device.
     * @throws RdmaException ENODEV if {@link #close} was called.
     */
    public SoftDevice deviceFor(final InetAddress address)
    {
        synchronized (devices)
        {
            makeDevices();
            for (final SoftDevice device : devices)
            {
                if (device.address().equals(address))
                {
                    return device;
                }
            }
            final SoftDevice device = newDevice(address);
            devices.add(device);
            return device;
        }
    }

    /**
     * Add a device built elsewhere (with a MemoryLink, say) so the connection manager finds it by
     * address.
     *
     * @param device the device.
     * @throws RdmaException ENODEV if {@link #close} was called.
     */
    public void register(final SoftDevice device)
    {
        Objects.requireNonNull(device, "device");
        synchronized (devices)
        {
            makeDevices();
            devices.removeIf(d -> d.address().equals(device.address()));
            devices.add(device);
        }
    }

    /**
     * Forget a registered device.
     *
     * @param device the device.
     */
    public void unregister(final SoftDevice device)
    {
        synchronized (devices)
        {
            devices.remove(device);
        }
    }

    /**
     * Shut every device down ({@link SoftDevice#shutdown}) and list none from now on: the end of a provider
     * instance. Their stat files and inboxes go with them; the stat thread ends once it has no file to write.
     */
    @Override
    public void close()
    {
        final List<SoftDevice> made;
        synchronized (devices)
        {
            closed = true;
            made = List.copyOf(devices);
            devices.clear();
        }
        made.forEach(SoftDevice::shutdown);
    }

    private void makeDevices()
    {
        RdmaException.check(!closed, Errno.ENODEV, "this soft provider instance is closed: it lists no device");
        if (devicesMade)
        {
            return;
        }
        devicesMade = true;
        for (final InetAddress address : settings.addresses())
        {
            devices.add(newDevice(address));
        }
    }

    private SoftDevice newDevice(final InetAddress address)
    {
        final int index = devices.size();
        final String name = "soft" + index;
        final SoftDevice.Builder builder = SoftDevice.builder(name, address).registry(this).settings(settings)
            .pollsInline(settings.polling()).waitsInline(settings.waiting()).waitSpin(settings.waitSpinNs());
        if (settings.loss().isPresent())
        {
            final double probability = settings.loss().getAsDouble();
            final long seed = (settings.lossSeed().isPresent() ? settings.lossSeed().getAsLong() : System.nanoTime()) +
                index;
            System.getLogger(SoftDevices.class.getName()).log(System.Logger.Level.WARNING,
                "{0} on {1} drops {2} of the datagrams it sends ({3}, seed {4})", name, address.getHostAddress(),
                Double.toString(probability), SoftSettings.LOSS.property(), Long.toString(seed));
            final System.Logger logger = System.getLogger(SoftEngine.class.getName());
            // the loss outermost: it takes its share of what goes through an inbox too
            builder.link(a -> new LossyLink(SoftDevice.udpLink(a, settings, settings.sameHost(), logger), seed,
                probability));
        }
        return builder.build();
    }
}
