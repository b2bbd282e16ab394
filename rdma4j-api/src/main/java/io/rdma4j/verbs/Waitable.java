package io.rdma4j.verbs;

/**
 * A channel a {@link WaitSet} waits on: a completion channel, or the connection manager's event channel. In
 * rdma-core each has a file descriptor ({@code comp_channel->fd}, {@code rdma_event_channel->fd}) that a program
 * hands to {@code poll(2)} or {@code epoll}; here a channel says whether it is ready and tells the set when it may
 * have become so.
 */
public interface Waitable
{
    /**
     * @return true if an event can be taken from the channel now without waiting. Cheap; allocates nothing.
     * @throws RdmaException EOPNOTSUPP for a channel whose provider cannot tell.
     */
    default boolean isReady()
    {
        throw new RdmaException(Errno.EOPNOTSUPP, getClass().getSimpleName() + " cannot be waited on in a WaitSet " +
            "yet: wait on the channel itself");
    }

    /**
     * For {@link WaitSet}: from now on tell {@code watcher}, from whichever thread makes it so, each time the channel
     * may have become ready (an event queued, a wake-up, the close); null stops. One watcher at a time: a channel is
     * in one set at most.
     *
     * @param watcher what to run, quickly and without blocking; or null.
     * @throws RdmaException EOPNOTSUPP for a channel whose provider cannot tell; EBUSY if another set watches it.
     */
    default void watch(final Runnable watcher)
    {
        throw new RdmaException(Errno.EOPNOTSUPP, getClass().getSimpleName() + " cannot be waited on in a WaitSet " +
            "yet: wait on the channel itself");
    }

    /**
     * @return how a thread waiting for this channel can do its device's work itself, or null where the device
     *     works on its own or the events come from elsewhere (the connection manager's thread).
     */
    default WaitDriver waitDriver()
    {
        return null;
    }

    /**
     * @return a file descriptor that {@code poll(2)} reports readable while the channel may be ready, for a channel
     *     whose readiness only the kernel knows (the native provider's {@code comp_channel->fd}, the event channel's
     *     descriptor); -1 for one that tells its {@link #watch watcher} instead. A {@link WaitSet} holding such a
     *     channel sleeps in {@code poll(2)} through that channel's {@link #waitDriver}, and its watchers' wake-ups end
     *     that sleep.
     */
    default int descriptor()
    {
        return -1;
    }
}
