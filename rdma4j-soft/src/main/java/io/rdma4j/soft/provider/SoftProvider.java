package io.rdma4j.soft.provider;

import io.rdma4j.cm.EventChannel;
import io.rdma4j.soft.SoftDevice;
import io.rdma4j.soft.SoftDevices;
import io.rdma4j.soft.cm.ConnectionManager;
import io.rdma4j.soft.cm.SoftEventChannel;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.spi.Setting;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.util.List;
import java.util.Objects;

/**
 * The software device as an {@link RdmaProvider}. An instance owns its devices (the settings that make them are
 * described in {@link SoftDevices}), their stat publisher and its connection manager, whose event channels its
 * ids share. A program makes its own from a context in code, as Aeron's {@code MediaDriver.launch} does:
 * <pre>{@code
 * try (SoftProvider soft = SoftProvider.launch(new SoftProviderContext()
 *     .addresses("127.0.0.5").progress(ProgressMode.WAITING)))
 * {
 *     Context verbs = soft.devices().getFirst().open();
 *     EventChannel cm = soft.createEventChannel();
 * }
 * }</pre>
 * Two instances with different settings (on different addresses) live side by side in one JVM. The one
 * {@link java.util.ServiceLoader} makes, with the no-argument constructor, is a view of the process's default
 * instance ({@code DefaultProvider}, the module's one process-wide state), made on first use from the system
 * properties and the environment, or from a context handed in before that ({@link #launchDefault}); that is the
 * one {@code Verbs.getDeviceList()} and {@code RdmaCm.createEventChannel()} use.
 * <p>
 * The top of the engine: it is the one class that sees both the devices and the connection manager above them.
 */
public final class SoftProvider implements RdmaProvider, AutoCloseable
{
    /** The instance's own stack, or null for the default view, which looks the default up on each call. */
    private final SoftStack own;

    /**
     * The default instance's view, for {@link java.util.ServiceLoader}: it makes nothing until a device or a
     * channel is asked for.
     */
    public SoftProvider()
    {
        this.own = null;
    }

    private SoftProvider(final SoftStack own)
    {
        this.own = own;
    }

    /**
     * A provider instance of the program's own, with its own devices, stat publisher and connection manager.
     *
     * @param context its settings; concluded here, and unchangeable from now on.
     * @return the instance, which makes its devices when they are first asked for; close it to shut them down.
     * @throws RdmaException EINVAL naming a setting whose value (in code, a property or a variable) it does not
     *     accept, or if the context was concluded already (one context per instance).
     */
    public static SoftProvider launch(final SoftProviderContext context)
    {
        return new SoftProvider(new SoftStack(Objects.requireNonNull(context, "context").conclude().settings()));
    }

    /**
     * Make the process's default instance, the one {@link java.util.ServiceLoader} gives the API, from a
     * context in code: what a program (the rdma4j tools) does instead of setting {@code rdma4j.soft.*}
     * properties. Call it before the first device or event channel is asked for.
     *
     * @param context its settings; concluded here, and unchangeable from now on.
     * @return a view of the default instance.
     * @throws RdmaException EBUSY if the default instance was made already with other settings; EINVAL as
     *     {@link #launch} says.
     */
    public static SoftProvider launchDefault(final SoftProviderContext context)
    {
        DefaultProvider.launch(Objects.requireNonNull(context, "context").conclude().settings());
        return new SoftProvider();
    }

    private SoftStack stack()
    {
        return own != null ? own : DefaultProvider.stack();
    }

    @Override
    public String name()
    {
        return SoftDevices.NAME;
    }

    @Override
    public int priority()
    {
        return 100;
    }

    @Override
    public List<Device> devices()
    {
        return List.copyOf(stack().devices().all());
    }

    @Override
    public String unavailableReason()
    {
        return devices().isEmpty() ? "no soft device is configured (" + SoftSettings.ADDRESS.property() + ")" : null;
    }

    /**
     * @return a new event channel on this instance's connection manager: its ids bind and resolve to this
     *     instance's devices alone.
     */
    @Override
    public EventChannel createEventChannel()
    {
        return SoftEventChannel.create(manager());
    }

    /**
     * @return this instance's connection manager, started on first use.
     */
    ConnectionManager manager()
    {
        return stack().cm().manager();
    }

    /**
     * Declared in {@link SoftSettings}; an instance reads them once, when its context is concluded.
     */
    @Override
    public List<Setting> settings()
    {
        return SoftSettings.DECLARED;
    }

    /**
     * @return the settings this instance's devices are made with (the default instance's are made on first
     *     use).
     */
    public SoftSettings softSettings()
    {
        return stack().devices().settings();
    }

    /**
     * Add a device built in code (on a link of its own, such as a test's in-memory network) so that this
     * instance lists it and its connection manager finds it by address; one it listed on that address goes.
     *
     * @param device a software device.
     * @throws RdmaException EINVAL if it is not a software device; ENODEV if this instance is closed.
     */
    public void register(final Device device)
    {
        stack().devices().register(soft(device));
    }

    /**
     * Forget a device {@link #register}ed.
     *
     * @param device the device.
     * @throws RdmaException EINVAL if it is not a software device.
     */
    public void unregister(final Device device)
    {
        stack().devices().unregister(soft(device));
    }

    private static SoftDevice soft(final Device device)
    {
        if (device instanceof SoftDevice soft)
        {
            return soft;
        }
        throw new RdmaException(Errno.EINVAL, "the soft provider registers software devices only, not " + device +
            (device == null ? "" : " of provider '" + device.provider() + "'"));
    }

    /**
     * Shut an instance of the program's own down: its connection manager's ids with a connection say goodbye,
     * then its devices close, whatever contexts are still open on them (their objects fail as on a closed
     * device), and it lists none from now on. The default instance lives as long as the process: closing its
     * view does nothing, since every {@code ServiceLoader} lookup shares it.
     */
    @Override
    public void close()
    {
        if (own != null)
        {
            own.close();
        }
    }

    @Override
    public String toString()
    {
        return "soft provider (" + (own != null ? "its own" : "the default") + ")";
    }
}
