package io.rdma4j.verbs;

import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.spi.Setting;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Where devices are found: the providers on the class path, in priority order.
 * <p>
 * The system property {@value #PROVIDER_PROPERTY} (or the environment variable {@code RDMA4J_PROVIDER}) chooses
 * the engine: {@code auto} (the default) uses every provider on the class path, those with devices first;
 * a provider's name ({@code native}, {@code soft}) uses that one alone.
 */
public final class Verbs
{
    /** The system property that chooses the provider: {@code auto}, {@code native} or {@code soft}. */
    public static final String PROVIDER_PROPERTY = "rdma4j.provider";

    /** The environment variable read when the property is not set. */
    public static final String PROVIDER_ENVIRONMENT = "RDMA4J_PROVIDER";

    /** The choice that uses every provider. */
    public static final String AUTO = "auto";

    /**
     * The provider choice, read on every device lookup rather than once: this module is below the providers and
     * holds no configuration object of theirs, and a test or a tool may choose again before it looks.
     */
    public static final Setting PROVIDER = new Setting(PROVIDER_PROPERTY, PROVIDER_ENVIRONMENT, "`" + AUTO + "`",
        "`auto`, or a provider's name: `native`, `soft`",
        "`auto` uses every provider on the class path, those with devices first; a name uses that provider alone, " +
        "and a name no provider has is ENODEV.");

    private Verbs()
    {
    }

    /**
     * @return the provider choice: {@value #AUTO} or a provider's name, from {@value #PROVIDER_PROPERTY} or
     *     {@code RDMA4J_PROVIDER}.
     */
    public static String providerChoice()
    {
        final String choice = PROVIDER.read();
        return choice == null ? AUTO : choice;
    }

    /**
     * @return every setting rdma4j reads with the providers on the class path: {@link #PROVIDER}, then each
     *     provider's ({@link RdmaProvider#settings()}) in priority order; the README's table is rendered from it.
     */
    public static List<Setting> settings()
    {
        final List<RdmaProvider> all = new ArrayList<>();
        ServiceLoader.load(RdmaProvider.class).forEach(all::add);
        all.sort(Comparator.comparingInt(RdmaProvider::priority));
        final List<Setting> settings = new ArrayList<>(List.of(PROVIDER));
        all.forEach(provider -> settings.addAll(provider.settings()));
        return List.copyOf(settings);
    }

    /**
     * @return the providers the choice ({@link #providerChoice()}) allows, preferred first: with {@code auto},
     *     those that have devices before those that have none, then by priority.
     * @throws RdmaException ENODEV if the choice names a provider that is not on the class path.
     */
    public static List<RdmaProvider> providers()
    {
        final String choice = providerChoice();
        final List<RdmaProvider> all = new ArrayList<>();
        for (final RdmaProvider provider : ServiceLoader.load(RdmaProvider.class))
        {
            all.add(provider);
        }
        if (!choice.equals(AUTO))
        {
            for (final RdmaProvider provider : all)
            {
                if (provider.name().equals(choice))
                {
                    return new ArrayList<>(List.of(provider));
                }
            }
            throw new RdmaException(Errno.ENODEV, PROVIDER_PROPERTY + "=" + choice + " names no provider on the " +
                "class path; there are " + all.stream().map(RdmaProvider::name).toList() + " (or 'auto')");
        }
        all.sort(Comparator.comparingInt((RdmaProvider provider) -> hasDevices(provider) ? 0 : 1)
            .thenComparingInt(RdmaProvider::priority));
        return all;
    }

    private static boolean hasDevices(final RdmaProvider provider)
    {
        try
        {
            return provider.unavailableReason() == null;
        }
        catch (final RuntimeException ex)
        {
            // a provider's configuration error is reported where its devices are asked for, not while sorting
            return true;
        }
    }

    /**
     * @param name a provider name, e.g. {@code soft}.
     * @return that provider, whatever {@value #PROVIDER_PROPERTY} chooses.
     * @throws RdmaException ENODEV if no such provider is on the class path.
     */
    public static RdmaProvider provider(final String name)
    {
        for (final RdmaProvider provider : ServiceLoader.load(RdmaProvider.class))
        {
            if (provider.name().equals(name))
            {
                return provider;
            }
        }
        throw new RdmaException(Errno.ENODEV, "no RDMA provider named '" + name + "' on the class path");
    }

    /**
     * @return every device of every provider the choice allows ({@code ibv_get_device_list}); empty if none.
     */
    public static List<Device> getDeviceList()
    {
        final List<Device> devices = new ArrayList<>();
        for (final RdmaProvider provider : providers())
        {
            devices.addAll(provider.devices());
        }
        return devices;
    }

    /**
     * @param name a device name.
     * @return that device.
     * @throws RdmaException ENODEV if there is none by that name.
     */
    public static Device getDevice(final String name)
    {
        for (final Device device : getDeviceList())
        {
            if (device.name().equals(name))
            {
                return device;
            }
        }
        throw new RdmaException(Errno.ENODEV, "no RDMA device named '" + name + "'; devices: " +
            getDeviceList().stream().map(Device::name).toList());
    }
}
