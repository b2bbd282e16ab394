package io.rdma4j.stat;

import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * Where the counters files are: one directory per user, which every writer (the soft device's settings, reliable
 * multicast's config) and {@code rdma4j stat} agree on unless told otherwise.
 */
public final class StatDirectory
{
    /** The system property naming the directory. */
    public static final String PROPERTY = "rdma4j.stat.dir";
    /** The environment variable naming it, when the property is unset. */
    public static final String ENVIRONMENT = "RDMA4J_STAT_DIR";
    /** The system property that turns the files off ({@code false}). */
    public static final String ENABLED_PROPERTY = "rdma4j.stat";
    /** The environment variable that does, when the property is unset. */
    public static final String ENABLED_ENVIRONMENT = "RDMA4J_STAT";

    private StatDirectory()
    {
    }

    /**
     * @param properties looks a system property up (null when unset): {@code user.name} and {@code java.io.tmpdir}.
     * @return {@code <java.io.tmpdir>/rdma4j-stat-USER}, the user's name with anything but letters, digits and
     *         {@code _.-} made {@code _}.
     */
    public static Path defaultDirectory(final UnaryOperator<String> properties)
    {
        return OwnerOnlyDirectory.temporaryDirectory(properties)
            .resolve("rdma4j-stat-" + OwnerOnlyDirectory.userNamePart(properties));
    }

    /**
     * @return the directory this process's properties and environment name, or the default.
     */
    public static Path fromSystem()
    {
        final String named = lookup(PROPERTY, ENVIRONMENT);
        return named != null && !named.isBlank() ? Path.of(named) : defaultDirectory(System::getProperty);
    }

    /**
     * @return false if this process's properties or environment turn the files off ({@code rdma4j.stat=false}),
     *         true if they say {@code true} or nothing.
     * @throws IllegalArgumentException for any other value, naming the setting and what it takes.
     */
    public static boolean enabledFromSystem()
    {
        final String value = lookup(ENABLED_PROPERTY, ENABLED_ENVIRONMENT);
        if (value == null || value.equalsIgnoreCase("true"))
        {
            return true;
        }
        if (value.equalsIgnoreCase("false"))
        {
            return false;
        }
        throw new IllegalArgumentException(ENABLED_PROPERTY + " '" + value +
            "' is neither 'true' (counters files for rdma4j stat, the default) nor 'false' (none)");
    }

    private static String lookup(final String property, final String environment)
    {
        final String value = System.getProperty(property);
        return value != null ? value : System.getenv(environment);
    }
}
