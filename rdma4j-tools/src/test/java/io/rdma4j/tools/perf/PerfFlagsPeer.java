package io.rdma4j.tools.perf;

import io.rdma4j.soft.SoftDevice;
import io.rdma4j.tools.Main;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.Verbs;

import java.util.Set;
import java.util.TreeSet;

/**
 * Runs {@code rdma4j perf} in this JVM, then says what it left behind: the rdma4j system properties it set, and the
 * address and progress mode of the soft device the API finds. {@link PerfFlagsTest} starts it in a JVM of its own,
 * so that the default soft provider is first made by the command.
 */
public final class PerfFlagsPeer
{
    private PerfFlagsPeer()
    {
    }

    /**
     * @param args the perf arguments.
     */
    public static void main(final String[] args)
    {
        final Set<String> before = rdma4jProperties();
        final int status = Main.execute(args);
        final Set<String> set = rdma4jProperties();
        set.removeAll(before);
        System.out.println("status " + status);
        System.out.println("properties set " + set);
        for (final Device device : Verbs.getDeviceList())
        {
            if (device instanceof SoftDevice soft)
            {
                try (Context context = device.open())
                {
                    System.out.println("device " + soft.address().getHostAddress() + " " + context.progressMode());
                }
            }
        }
        System.out.flush();
    }

    private static Set<String> rdma4jProperties()
    {
        final Set<String> names = new TreeSet<>();
        for (final String name : System.getProperties().stringPropertyNames())
        {
            if (name.startsWith("rdma4j."))
            {
                names.add(name);
            }
        }
        return names;
    }
}
