package io.rdma4j.soft.verbs;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

/**
 * A channel's {@link io.rdma4j.verbs.WaitSet} watcher ({@link io.rdma4j.verbs.Waitable#watch}): at most one set at a
 * time, told from whichever thread makes the channel ready. Shared by the completion channel and the connection
 * manager's event channel.
 */
public final class WaitWatcher
{
    private final String channel;
    private volatile Runnable watcher;

    /**
     * @param channel what the channel is, for the EBUSY sentence.
     */
    public WaitWatcher(final String channel)
    {
        this.channel = channel;
    }

    /**
     * @param setWatcher the set's watcher, or null to stop.
     * @throws RdmaException EBUSY if another set watches the channel.
     */
    public void set(final Runnable setWatcher)
    {
        final Runnable current = watcher;
        RdmaException.check(setWatcher == null || current == null || current == setWatcher, Errno.EBUSY,
            "the " + channel + " is in another WaitSet");
        watcher = setWatcher;
    }

    /**
     * The channel may have become ready: tell the set, if one watches. Quick and lock-free (an unpark, or a
     * device's wake-up), so a caller may hold the channel's lock.
     */
    public void tell()
    {
        final Runnable told = watcher;
        if (told != null)
        {
            told.run();
        }
    }
}
