package io.rdma4j.tools;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command lines that run {@link Main} in a new JVM: the same Java, the same class path (or module path, when
 * this JVM runs the tools as a module), and the {@code rdma4j.*} system properties of this one, so a child sees
 * the same devices and settings.
 */
public final class ChildJvm
{
    /** The modules that call C: the native provider, and the software device for its Linux socket. */
    private static final List<String> NATIVE_MODULES = List.of("io.rdma4j.rdmacore", "io.rdma4j.soft");

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
        final Module tools = Main.class.getModule();
        // the engines' modules where this JVM runs from the module path and has them there
        final List<String> nativeModules = NATIVE_MODULES.stream()
            .filter(name -> ModuleLayer.boot().findModule(name).isPresent()).toList();
        command.add("--enable-native-access=" +
            (nativeModules.isEmpty() ? "ALL-UNNAMED" : String.join(",", nativeModules)));
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
        final String classPath = System.getProperty("java.class.path", "");
        if (!classPath.isEmpty())
        {
            command.add("-cp");
            command.add(classPath);
        }
        if (tools.isNamed())
        {
            command.add("-p");
            command.add(System.getProperty("jdk.module.path"));
            command.add("-m");
            command.add(tools.getName() + "/" + Main.class.getName());
        }
        else
        {
            command.add(Main.class.getName());
        }
        command.addAll(args);
        return new ProcessBuilder(command).redirectErrorStream(true);
    }
}
