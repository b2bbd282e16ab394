package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.link.ShmDirectory;
import io.rdma4j.soft.stat.StatFile;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What a process leaves in the per-user directories, removed as it exits: its stat files and its same-host
 * inboxes. A device that is closed removes its own; a process that ends without closing them (it returns from
 * main or calls exit, or is sent SIGTERM, or Ctrl-C's SIGINT: the JVM runs its shutdown hooks for all three)
 * would leave them for the next device or reader to find dead, and `rdma4j stat` would list it meanwhile. Only
 * SIGKILL, which runs nothing, still leaves them so. The registry holds the process's one instance
 * ({@link SoftDevices#shared}); the hook is added with the first device opened.
 */
final class ExitCleanup
{
    private final Set<Path> statDirectories = new LinkedHashSet<>();
    private final Set<Path> inboxDirectories = new LinkedHashSet<>();
    private boolean hooked;

    /**
     * @return the process's one instance, from the registry.
     */
    static ExitCleanup get()
    {
        return SoftDevices.shared(ExitCleanup.class, ExitCleanup::new);
    }

    /**
     * Remove, at exit, what a device with these settings puts in their directories.
     *
     * @param settings a device's settings.
     */
    synchronized void watch(final SoftSettings settings)
    {
        if (settings.stat())
        {
            statDirectories.add(settings.statDirectory());
        }
        inboxDirectories.addAll(settings.shmDirectories());
        if (!hooked)
        {
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("rdma4j-exit-cleanup").unstarted(
                this::run));
            hooked = true;
        }
    }

    /** The hook: unlink (never unmap: other threads may still be writing) this process's files. */
    private synchronized void run()
    {
        statDirectories.forEach(StatFile::removeOwn);
        inboxDirectories.forEach(ShmDirectory::removeOwnInboxes);
    }
}
