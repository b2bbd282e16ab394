package io.rdma4j.tools;

import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.Verbs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdma4j devinfo}: device and port attributes laid out as {@code ibv_devinfo} does.
 */
@Command(name = "devinfo", mixinStandardHelpOptions = true,
    description = "Print device and port attributes, like ibv_devinfo.")
public final class DevinfoCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEVICE", description = "use this device (default: all)")
    private String deviceName;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", defaultValue = "0",
        description = "query only this port (default: all)")
    private int port;

    @Option(names = {"-v", "--verbose"}, description = "print all the attributes of the device")
    private boolean verbose;

    @Option(names = {"-l", "--list"}, description = "print only the device names")
    private boolean list;

    /**
     * @return the device name given with -d, or null.
     */
    public String deviceName()
    {
        return deviceName;
    }

    /**
     * @return the port given with -i, 0 for all.
     */
    public int port()
    {
        return port;
    }

    /**
     * @return true with -v.
     */
    public boolean verbose()
    {
        return verbose;
    }

    /**
     * @return true with -l.
     */
    public boolean list()
    {
        return list;
    }

    /**
     * @return 0, or 1 when the device or port does not exist or there are no devices.
     */
    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final List<Device> devices = Verbs.getDeviceList();
        if (list)
        {
            out.printf("%d HCA%s found:%n", devices.size(), devices.size() == 1 ? "" : "s");
            for (final Device device : devices)
            {
                out.printf("\t%s%n", device.name());
            }
            out.flush();
            return 0;
        }
        if (devices.isEmpty())
        {
            err.println("No IB devices found");
            DevicesCommand.printWhyNone(err);
            return 1;
        }
        int status = 0;
        boolean found = false;
        for (final Device device : devices)
        {
            if (deviceName != null && !deviceName.equals(device.name()))
            {
                continue;
            }
            found = true;
            try (Context ctx = device.open())
            {
                if (port > ctx.queryDevice().physPortCnt() || port < 0)
                {
                    err.printf("Invalid port requested for device %s%n", device.name());
                    status = 1;
                    continue;
                }
                out.print(DevinfoFormatter.format(ctx, port, verbose));
            }
            catch (final RdmaException ex)
            {
                err.printf("Failed to query device %s: %s%n", device.name(), ex.getMessage());
                status = 1;
            }
        }
        if (!found)
        {
            err.printf("IB device '%s' wasn't found%n", deviceName);
            status = 1;
        }
        out.flush();
        err.flush();
        return status;
    }
}
