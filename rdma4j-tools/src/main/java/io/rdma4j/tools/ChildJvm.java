package io.rdma4j.tools;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command lines that run {@link Main} in a new JVM: the same Java, the same class path, and the
 * {@code rdma4j.*} system properties of this one, so a child sees the same devices and settings.
 */
public final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * @param args the rdma4j arguments, e.g. {@code mckey -s ...}.
     * @return a process builder for {@code java ... io.rdma4j.tools.Main args}, stderr merged into stdout.
     */
    public static ProcessBuilder main(final List<String> args)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        // Small heaps: five JVMs may share two cores and little memory.
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        for (final String name : System.getProperties().stringPropertyNames())
        {
            if (name.startsWith("rdma4j."))
            {
                command.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Main.class.getName());
        command.addAll(args);
        return new ProcessBuilder(command).redirectErrorStream(true);
    }
}
