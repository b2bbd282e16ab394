package io.rdma4j.soft;

import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.link.ShmDirectory;
import io.rdma4j.stat.StatFile;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What a process leaves in the per-user directories, removed as it exits: its stat files and its same-host
 * inboxes. A device that is closed removes its own; a process that ends without closing them (it returns from
 * main or calls exit, or is sent SIGTERM, or Ctrl-C's SIGINT: the JVM runs its shutdown hooks for all three)
 * would leave them for the next device or reader to find dead, and `rdma4j stat` would list it meanwhile. Only
 * SIGKILL, which runs nothing, still leaves them so. Each provider instance ({@link SoftDevices}) has one; its hook
 * is added when its first device opens and removed when its last closes, so that devices built and closed by the
 * hundred (tests, benchmarks) leave no hook behind.
 */
final class ExitCleanup
{
    private final Set<Path> statDirectories = new LinkedHashSet<>();
    private final Set<Path> inboxDirectories = new LinkedHashSet<>();
    private Thread hook;
    private int open;

    /**
     * Remove, at exit, what a device with these settings puts in their directories, until {@link #unwatch}.
     *
     * @param settings a device's settings, as it opens.
     */
    synchronized void watch(final SoftSettings settings)
    {
        if (settings.stat())
        {
            statDirectories.add(settings.statDirectory());
        }
        inboxDirectories.addAll(settings.shmDirectories());
        if (open++ == 0)
        {
            hook = Thread.ofPlatform().name("rdma4j-exit-cleanup").unstarted(this::run);
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }

    /**
     * A device {@link #watch}ed closed, having removed its own files: the last one takes the hook away.
     */
    synchronized void unwatch()
    {
        if (open > 0 && --open == 0)
        {
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException ex)
            {
                // the process is exiting: the hook runs, and finds nothing of the closed device's
            }
            hook = null;
        }
    }

    /** The hook: unlink (never unmap: other threads may still be writing) this process's files. */
    private synchronized void run()
    {
        statDirectories.forEach(StatFile::removeOwn);
        inboxDirectories.forEach(ShmDirectory::removeOwnInboxes);
    }
}
