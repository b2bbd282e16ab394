package io.rdma4j.tools;

import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Verbs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdma4j devices}: the devices of every provider, as {@code ibv_devices} lists them.
 */
@Command(name = "devices", mixinStandardHelpOptions = true,
    description = "List RDMA devices, like ibv_devices.")
public final class DevicesCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    /**
     * @return 0 when at least one device was listed, 1 when there were none.
     */
    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final List<Device> devices = Verbs.getDeviceList();
        // ibv_devices' two columns, then the engine behind each device (rdma4j's own)
        out.printf("    %-16s\t   node GUID\t\tengine%n", "device");
        out.printf("    %-16s\t----------------\t------%n", "------");
        for (final Device device : devices)
        {
            out.printf("    %-16s\t%016x\t%s%n", device.name(), device.guid(), device.provider());
        }
        out.flush();
        if (devices.isEmpty())
        {
            printWhyNone(spec.commandLine().getErr());
            return 1;
        }
        return 0;
    }

    /**
     * Tell the user why there is no device: each provider's own reason, or that there is none.
     *
     * @param err where to write.
     */
    static void printWhyNone(final PrintWriter err)
    {
        final List<RdmaProvider> providers = Verbs.providers();
        if (providers.isEmpty())
        {
            err.println("No RDMA devices: no provider on the class path (rdma4j-soft missing?)");
        }
        for (final RdmaProvider provider : providers)
        {
            final String reason = provider.unavailableReason();
            err.printf("No RDMA devices from provider '%s': %s%n", provider.name(),
                reason == null ? "it reports none" : reason);
        }
        err.flush();
    }
}
