package io.rdma4j.tools;

import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.tools.common.GidText;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Verbs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdma4j devices}: the devices of every provider, as {@code ibv_devices} lists them, with the engine of each
 * and the IP address (the GID) of each software device.
 */
@Command(name = "devices", mixinStandardHelpOptions = true,
    description = "List RDMA devices, like ibv_devices, with each one's engine and a software device's address.")
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
        // ibv_devices' two columns, then rdma4j's own: the engine behind each device, and the address a software
        // device is (what --address, -b or -a name on the other tools); last, as its width varies
        out.printf("    %-16s\t   node GUID\t\tengine\taddress%n", "device");
        out.printf("    %-16s\t----------------\t------\t-------%n", "------");
        for (final Device device : devices)
        {
            out.printf("    %-16s\t%016x\t%s\t%s%n", device.name(), device.guid(), device.provider(),
                addressText(device.address()));
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
     * @param address a device's address, or null.
     * @return IPv4 in dotted decimal, IPv6 as inet_ntop writes it ({@code ::1}, {@code fd77::3}), so that it reads
     *     as the other tools take it; {@code -} for a device with none of its own (a native one: see devinfo's GIDs).
     */
    static String addressText(final InetAddress address)
    {
        if (address == null)
        {
            return "-";
        }
        return address instanceof Inet4Address ? address.getHostAddress() : GidText.of(Gid.fromInet(address));
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
