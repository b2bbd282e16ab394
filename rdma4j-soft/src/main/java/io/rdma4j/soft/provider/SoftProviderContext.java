package io.rdma4j.soft.provider;

import io.rdma4j.soft.config.SocketChoice;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.spi.Setting;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.ProgressMode;
import io.rdma4j.verbs.RdmaException;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Everything a software provider instance is made with, in code, as Aeron's {@code MediaDriver.Context} holds a
 * driver's: the devices' addresses, the progress mode and its wait spin, the socket, the same-host path and its
 * directories, the counters files, and injected loss. Each setter is one {@code rdma4j.soft.*} setting
 * ({@link SoftSettings#DECLARED}) and checks its value as the property's is checked. What is not set in code
 * comes from the system properties and the environment exactly as for the default provider, read when the
 * context is concluded; a property whose setting is given in code is not read at all, so a bad one there is no
 * error. {@link SoftProvider#launch} concludes the context; from then on it is the instance's and cannot change.
 * Not thread-safe: one thread fills it in.
 */
public final class SoftProviderContext
{
    private final UnaryOperator<String> properties;
    private final UnaryOperator<String> environment;
    /** What the code set, applied in order over what the system gives. */
    private final List<Consumer<SoftSettings.Builder>> given = new ArrayList<>();
    private final Set<Setting> overridden = new HashSet<>();
    /** Each setter's value checked at once, on a builder of the defaults. */
    private final SoftSettings.Builder check = SoftSettings.builder();
    private SoftSettings concluded;

    /**
     * A context whose settings not given in code come from the system properties and the environment.
     */
    public SoftProviderContext()
    {
        this(System::getProperty, System::getenv);
    }

    /**
     * @param properties  looks a system property up (tests give their own).
     * @param environment looks an environment variable up.
     */
    SoftProviderContext(final UnaryOperator<String> properties, final UnaryOperator<String> environment)
    {
        this.properties = properties;
        this.environment = environment;
    }

    /**
     * @param literals the devices' addresses as {@link SoftSettings#ADDRESS} takes them: IP literals, comma-separated,
     *                 one device each.
     * @return this.
     * @throws RdmaException EINVAL naming an entry that is not an IP address literal.
     */
    public SoftProviderContext addresses(final String literals)
    {
        return set(SoftSettings.ADDRESS, b -> b.addresses(literals));
    }

    /**
     * @param addresses the devices' addresses, one device each.
     * @return this.
     */
    public SoftProviderContext addresses(final List<InetAddress> addresses)
    {
        final List<InetAddress> copy = List.copyOf(addresses);
        return set(SoftSettings.ADDRESS, b -> b.addresses(copy));
    }

    /**
     * @param mode who receives ({@link SoftSettings#PROGRESS}): {@link ProgressMode#POLLING}, {@link ProgressMode#WAITING}
     *             or {@link ProgressMode#THREAD}.
     * @return this.
     * @throws RdmaException EINVAL for {@link ProgressMode#DEVICE}, which is an RDMA NIC's.
     */
    public SoftProviderContext progress(final ProgressMode mode)
    {
        Objects.requireNonNull(mode, "mode");
        return set(SoftSettings.PROGRESS, switch (mode)
        {
            case POLLING -> b -> b.polling(true);
            case WAITING -> SoftSettings.Builder::waitingMode;
            case THREAD -> b -> b.polling(false);
            case DEVICE -> throw new RdmaException(Errno.EINVAL, "progress " + mode + " is an RDMA NIC's; a soft " +
                "device's is POLLING, WAITING or THREAD (" + SoftSettings.PROGRESS.property() + ")");
        });
    }

    /**
     * @param micros how long a waiting thread that found work polls before it blocks ({@link SoftSettings#WAIT_SPIN}).
     * @return this.
     * @throws RdmaException EINVAL outside 0 to 1 000 000.
     */
    public SoftProviderContext waitSpinMicros(final long micros)
    {
        return set(SoftSettings.WAIT_SPIN, b -> b.waitSpinMicros(micros));
    }

    /**
     * @param millis how long an RC connection may be idle before its device probes the peer
     *               ({@link SoftSettings#KEEPALIVE}); 0 turns the probes off.
     * @return this.
     * @throws RdmaException EINVAL for a value the setting refuses.
     */
    public SoftProviderContext keepaliveMillis(final long millis)
    {
        return set(SoftSettings.KEEPALIVE, b -> b.keepaliveMillis(millis));
    }

    /**
     * @param socket the socket under the devices ({@link SoftSettings#SOCKET}).
     * @return this.
     */
    public SoftProviderContext socket(final SocketChoice socket)
    {
        Objects.requireNonNull(socket, "socket");
        return set(SoftSettings.SOCKET, b -> b.socket(socket));
    }

    /**
     * @param enabled true for the same-host path where it can be had, false for UDP only ({@link SoftSettings#SHM}).
     * @return this.
     */
    public SoftProviderContext sameHost(final boolean enabled)
    {
        return set(SoftSettings.SHM, b -> b.sameHost(enabled));
    }

    /**
     * @param directories the places of the same-host inboxes, in order ({@link SoftSettings#SHM_DIR}).
     * @return this.
     * @throws RdmaException EINVAL if there is none.
     */
    public SoftProviderContext shmDirectories(final List<Path> directories)
    {
        final List<Path> copy = List.copyOf(directories);
        return set(SoftSettings.SHM_DIR, b -> b.shmDirectories(copy));
    }

    /**
     * @param enabled true for counters files and MBeans ({@link SoftSettings#STAT}).
     * @return this.
     */
    public SoftProviderContext stat(final boolean enabled)
    {
        return set(SoftSettings.STAT, b -> b.stat(enabled));
    }

    /**
     * @param directory where the counters files are ({@link SoftSettings#STAT_DIR}).
     * @return this.
     */
    public SoftProviderContext statDirectory(final Path directory)
    {
        Objects.requireNonNull(directory, "statDirectory");
        return set(SoftSettings.STAT_DIR, b -> b.statDirectory(directory));
    }

    /**
     * @param probability the share of sent datagrams every device drops, in [0, 1) ({@link SoftSettings#LOSS}).
     * @return this.
     * @throws RdmaException EINVAL outside [0, 1).
     */
    public SoftProviderContext loss(final double probability)
    {
        return set(SoftSettings.LOSS, b -> b.loss(probability));
    }

    /**
     * @return this, dropping nothing whatever {@link SoftSettings#LOSS} says.
     */
    public SoftProviderContext noLoss()
    {
        return set(SoftSettings.LOSS, SoftSettings.Builder::noLoss);
    }

    /**
     * @param seed the seed of the loss's draws ({@link SoftSettings#LOSS_SEED}).
     * @return this.
     */
    public SoftProviderContext lossSeed(final long seed)
    {
        return set(SoftSettings.LOSS_SEED, b -> b.lossSeed(seed));
    }

    /**
     * Fix the settings: what the code gave over what the system properties and the environment give, read now.
     * {@link SoftProvider#launch} calls it.
     *
     * @return this.
     * @throws RdmaException EINVAL if it was concluded already (a context makes one instance), or naming a
     *     setting not given in code whose property or variable has a value it does not accept.
     */
    public SoftProviderContext conclude()
    {
        RdmaException.check(concluded == null, Errno.EINVAL, "this soft provider context was concluded already " +
            "(it made an instance, with " + concluded + "): make a new one for another instance");
        final SoftSettings.Builder settings = SoftSettings.from(hide(properties, false), hide(environment, true))
            .toBuilder();
        given.forEach(setting -> setting.accept(settings));
        concluded = settings.build();
        return this;
    }

    /**
     * @return the concluded settings.
     * @throws RdmaException EINVAL if {@link #conclude} was not called.
     */
    public SoftSettings settings()
    {
        RdmaException.check(concluded != null, Errno.EINVAL, "this soft provider context is not concluded yet: " +
            "its settings are read from the system when it is (SoftProvider.launch, or conclude)");
        return concluded;
    }

    private SoftProviderContext set(final Setting setting, final Consumer<SoftSettings.Builder> value)
    {
        RdmaException.check(concluded == null, Errno.EINVAL, "this soft provider context was concluded (it made " +
            "an instance, with " + concluded + "): " + setting.property() + " can no longer change");
        value.accept(check);
        overridden.add(setting);
        given.add(value);
        return this;
    }

    /** The lookup without the names of the settings given in code: those are not read. */
    private UnaryOperator<String> hide(final UnaryOperator<String> lookup, final boolean variables)
    {
        final Set<String> hidden = new HashSet<>();
        for (final Setting setting : overridden)
        {
            hidden.add(variables ? setting.environment() : setting.property());
        }
        return name -> hidden.contains(name) ? null : lookup.apply(name);
    }
}
