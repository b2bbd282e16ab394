package io.rdma4j.rdmacore;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WaitDriver;

/**
 * What a native channel (completion channel, event channel) keeps for the {@link io.rdma4j.verbs.WaitSet} that holds
 * it: the set's watcher and the {@link DescriptorWait} the set's thread sleeps in, made when the channel first joins
 * a set. The channel's close ends both.
 */
public final class SetMembership
{
    private final String what;
    /** Guarded by {@code this}. */
    private Runnable watcher;
    /** Guarded by {@code this}. */
    private DescriptorWait wait;
    /** Guarded by {@code this}. */
    private boolean closed;

    /**
     * @param what the channel, as the errors name it ("the completion channel").
     */
    public SetMembership(final String what)
    {
        this.what = what;
    }

    /**
     * @param fd the channel's descriptor.
     * @return whether {@code poll} finds it readable now; false once closed.
     */
    public boolean isReady(final int fd)
    {
        final DescriptorWait readable;
        synchronized (this)
        {
            if (closed)
            {
                return false;
            }
            readable = descriptorWait();
        }
        return readable.isReadable(fd);
    }

    /**
     * @param setWatcher the set's watcher, or null.
     * @throws RdmaException EINVAL once closed; EBUSY if another set watches the channel.
     */
    public synchronized void watch(final Runnable setWatcher)
    {
        RdmaException.check(!closed, Errno.EINVAL, "watch: " + what + " is destroyed");
        if (setWatcher != null && watcher != null && watcher != setWatcher)
        {
            throw new RdmaException(Errno.EBUSY, what + " is in another WaitSet already");
        }
        watcher = setWatcher;
    }

    /**
     * @return the set's sleep in {@code poll(2)} over this channel's and the set's other descriptors; null once
     *     closed.
     */
    public synchronized WaitDriver driver()
    {
        return closed ? null : descriptorWait();
    }

    /**
     * Tell the watching set, if any, that the channel may be ready (a wake-up).
     */
    public void tell()
    {
        final Runnable told;
        synchronized (this)
        {
            told = watcher;
        }
        if (told != null)
        {
            told.run();
        }
    }

    /**
     * The channel is destroyed: a wait in its driver ends, and the watching set is told.
     */
    public void close()
    {
        final Runnable told;
        final DescriptorWait done;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            told = watcher;
            watcher = null;
            done = wait;
        }
        if (done != null)
        {
            done.close();
        }
        if (told != null)
        {
            told.run();
        }
    }

    private DescriptorWait descriptorWait()
    {
        if (wait == null)
        {
            wait = new DescriptorWait();
        }
        return wait;
    }
}
