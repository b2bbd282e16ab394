package io.rdma4j.rdmacore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The kernel's list of verbs devices, {@code /sys/class/infiniband_verbs} (under {@code $SYSFS_PATH} when set, as
 * libibverbs reads it): one {@code uverbsN} entry per device a process can open. libibverbs builds its device
 * list from these entries, so where there are none the native provider has no device, and it says so without
 * loading libibverbs' providers or binding its functions (hundreds of milliseconds at a process's first
 * connection).
 */
final class UverbsDirectory
{
    /** Where libibverbs looks, below the sysfs root. */
    static final String CLASS_DIRECTORY = "class/infiniband_verbs";

    private UverbsDirectory()
    {
    }

    /**
     * @return the directory on this host: {@code $SYSFS_PATH/class/infiniband_verbs}, {@code /sys/...} without it.
     */
    static Path onThisHost()
    {
        final String root = System.getenv("SYSFS_PATH");
        return Path.of(root == null || root.isEmpty() ? "/sys" : root).resolve(CLASS_DIRECTORY);
    }

    /**
     * @param directory a verbs class directory.
     * @return why no device can be there (a sentence naming the directory), or null if it lists one or cannot be
     *     read (then libibverbs itself is asked).
     */
    static String noDeviceReason(final Path directory)
    {
        if (!Files.exists(directory))
        {
            return "no RDMA device: " + directory + " does not exist (the kernel's ib_uverbs is not loaded): load " +
                "a NIC's driver, or add Soft-RoCE with 'rdma link add rxe0 type rxe netdev eth0'";
        }
        try (Stream<Path> entries = Files.list(directory))
        {
            if (entries.noneMatch(entry -> entry.getFileName().toString().startsWith("uverbs")))
            {
                return "no RDMA device: " + directory + " lists none: load a NIC's driver, or add Soft-RoCE with " +
                    "'rdma link add rxe0 type rxe netdev eth0'";
            }
            return null;
        }
        catch (final IOException | SecurityException ex)
        {
            return null;
        }
    }
}
