package io.rdma4j.soft;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The default provider's holder ({@code provider.DefaultProvider}, what the API's ServiceLoader lookup finds) is the
 * device's only process-wide state: no other class of the module keeps a mutable static (a non-final field, or a
 * final collection, map or atomic that can change), so what a device, a link or the connection manager knows comes
 * from the provider instance it was made by, and two instances live side by side. Two log-once flags stay, by
 * choice: a warning printed once per process is what they are for.
 */
class ProcessStateTest
{
    private static final Set<String> ALLOWED = Set.of(
        "io.rdma4j.soft.provider.DefaultProvider.stack",
        "io.rdma4j.soft.link.SameHostLink.WARNED", "io.rdma4j.soft.link.socket.UdpLinks.FALLBACK_SAID",
        // where the host lists its RDMA devices (/sys/class/infiniband), which only tests point elsewhere
        "io.rdma4j.soft.link.PortInUse.rdmaDevices");

    @Test
    void shouldKeepProcessWideStateInTheRegistryAlone() throws Exception
    {
        final List<String> found = new ArrayList<>();
        for (final Class<?> type : mainClasses())
        {
            for (final Field field : type.getDeclaredFields())
            {
                final int modifiers = field.getModifiers();
                if (!Modifier.isStatic(modifiers) || field.isSynthetic() || field.isEnumConstant())
                {
                    continue;
                }
                final String name = type.getName() + "." + field.getName();
                if (isMutable(field, modifiers))
                {
                    found.add(name);
                }
            }
        }
        found.removeAll(ALLOWED);
        assertEquals(List.of(), found, "process-wide mutable statics outside the registry");
    }

    @Test
    void shouldSeeTheDefaultHoldersOwnState() throws Exception
    {
        // the check finds what it looks for: the holder's field is a mutable static, allowed by name
        final Class<?> holder = Class.forName("io.rdma4j.soft.provider.DefaultProvider");
        final List<String> registry = new ArrayList<>();
        for (final Field field : holder.getDeclaredFields())
        {
            if (Modifier.isStatic(field.getModifiers()) && isMutable(field, field.getModifiers()))
            {
                registry.add(holder.getName() + "." + field.getName());
            }
        }
        assertEquals(List.of("io.rdma4j.soft.provider.DefaultProvider.stack"), registry);
    }

    private static boolean isMutable(final Field field, final int modifiers)
    {
        if (!Modifier.isFinal(modifiers))
        {
            return true;
        }
        final Class<?> type = field.getType();
        if (!Collection.class.isAssignableFrom(type) && !Map.class.isAssignableFrom(type) &&
            !type.getName().startsWith("java.util.concurrent.atomic."))
        {
            return false;
        }
        if (type.getName().startsWith("java.util.concurrent.atomic."))
        {
            return true;
        }
        try
        {
            field.setAccessible(true);
            final Object value = field.get(null);
            // List.of, Set.of, Map.of and the unmodifiable views are constants
            final String kind = value == null ? "" : value.getClass().getName();
            return !kind.startsWith("java.util.ImmutableCollections") && !kind.contains("Unmodifiable");
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            return true;
        }
    }

    private static List<Class<?>> mainClasses() throws IOException, URISyntaxException, ClassNotFoundException
    {
        final Path root = Path.of(SoftDevice.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        final List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root))
        {
            for (final Path file : files.filter(p -> p.toString().endsWith(".class")).toList())
            {
                final String relative = root.relativize(file).toString();
                if (relative.equals("module-info.class") || relative.endsWith("package-info.class"))
                {
                    continue;
                }
                final String name = relative.substring(0, relative.length() - ".class".length())
                    .replace(java.io.File.separatorChar, '.');
                classes.add(Class.forName(name, false, SoftDevice.class.getClassLoader()));
            }
        }
        return classes;
    }
}
