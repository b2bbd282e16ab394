package io.rdma4j.netty;

import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.rdma4j.verbs.CompletionQueue;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A handle's registration with an {@link RdmaIoHandler}: what the handler dispatches to the handle, and the work
 * outstanding on it. Its attachment is itself: Netty's loop hands the channel a wrapper of it, whose
 * {@code attachment()} is how the channel reaches this registration and, through {@link #handler()}, its loop's
 * resources.
 * <p>
 * A submitted CQ ({@link RdmaIoOps}) is outstanding work, as an io_uring submission is: a cancelled registration
 * stays with its handler, still dispatching that CQ's events to its handle, until the handle's endpoint has let
 * the CQ go ({@link #release}); only then is it removed and told {@code unregistered()}. So an endpoint that
 * lingers on its SENDs after its channel closed and deregistered lives on in its registration, not in a registry
 * of the handler's own. Used on the loop's thread, but for {@link #cancel} and {@link #cmEvent}.
 */
final class RdmaIoRegistration implements IoRegistration
{
    private final RdmaIoHandler handler;
    private final RdmaIoHandle handle;
    /** Filled again for every dispatch of the CQ. */
    private final CqReady ready = new CqReady();
    private final AtomicBoolean canceled = new AtomicBoolean();
    /** The CQ submitted and not yet released, or null. */
    private CompletionQueue cq;
    /** Submissions not yet released: the registration stays until none is left. */
    private int outstanding;
    private boolean removed;
    /** When the endpoint stops waiting for its SENDs ({@link System#nanoTime()}), while it lingers. */
    private long lingerDeadline;
    /** The endpoint's last teardown step, until it succeeds; null otherwise. */
    private Release release;

    /** An endpoint's last teardown step, which may have to wait (a CQ event not yet acknowledged). */
    @FunctionalInterface
    interface Release
    {
        /**
         * @return true when done; false to be tried again on the loop's next turn.
         */
        boolean finish();
    }

    RdmaIoRegistration(final RdmaIoHandler handler, final RdmaIoHandle handle)
    {
        this.handler = handler;
        this.handle = handle;
    }

    /**
     * @return the handle.
     */
    RdmaIoHandle handle()
    {
        return handle;
    }

    /**
     * @return the handler it is registered with.
     */
    RdmaIoHandler handler()
    {
        return handler;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T attachment()
    {
        return (T)this;
    }

    /**
     * {@inheritDoc}
     * <p>
     * Takes an {@link RdmaIoOps}: from now on the CQ's events reach the handle, until {@link #release}. A
     * registration has one CQ at a time; on the loop's thread.
     *
     * @throws IllegalArgumentException if the ops are not rdma4j's.
     * @throws IllegalStateException    if a CQ is submitted already, or the registration was removed.
     */
    @Override
    public long submit(final IoOps ops)
    {
        if (!(ops instanceof RdmaIoOps rdma))
        {
            throw new IllegalArgumentException("an rdma4j registration takes RdmaIoOps, not " +
                (ops == null ? "null" : ops.getClass().getName()));
        }
        if (removed)
        {
            throw new IllegalStateException("the registration was removed from its handler: it takes no CQ");
        }
        if (cq != null)
        {
            throw new IllegalStateException("the registration has a CQ already (" + cq + "): one at a time");
        }
        cq = rdma.cq();
        outstanding++;
        handler.watch(cq, this);
        return outstanding;
    }

    @Override
    public boolean isValid()
    {
        return !canceled.get();
    }

    /**
     * {@inheritDoc}
     * <p>
     * The registration is removed once no submitted CQ is outstanding; until then its handle still gets the CQ's
     * events, so that its endpoint can drain.
     */
    @Override
    public boolean cancel()
    {
        if (!canceled.compareAndSet(false, true))
        {
            return false;
        }
        if (handler.inLoop())
        {
            removeIfDone();
        }
        else
        {
            handler.execute(this::removeIfDone);
        }
        return true;
    }

    /**
     * @return whether it is still with its handler: not cancelled, or cancelled with work outstanding.
     */
    boolean registered()
    {
        return !removed;
    }

    /**
     * @return the CQ submitted and not yet released, or null.
     */
    CompletionQueue cq()
    {
        return cq;
    }

    private void removeIfDone()
    {
        if (removed || outstanding > 0)
        {
            return;
        }
        removed = true;
        handler.removed(this);
        handle.unregistered();
    }

    /**
     * Hand the handle its CQ; on the loop.
     *
     * @param why why.
     * @return whether the handle took a completion.
     */
    boolean dispatch(final CqReady.Kind why)
    {
        handle.handle(this, ready.reset(why));
        return ready.wasFound();
    }

    /**
     * Hand the handle a connection-manager event of its channel's ids, on the registration's loop, whichever
     * loop's event channel had it; not once the registration is removed.
     *
     * @param notice the event, acknowledged.
     */
    public void cmEvent(final CmNotice notice)
    {
        if (handler.inLoop())
        {
            deliver(notice);
        }
        else
        {
            // an accepted id's events arrive on its listener's loop
            handler.execute(() -> deliver(notice));
        }
    }

    private void deliver(final CmNotice notice)
    {
        if (!removed)
        {
            handle.handle(this, notice);
        }
    }

    /**
     * The endpoint waits for its SENDs before it lets the CQ go; at the deadline the handle gets
     * {@link CqReady.Kind#EXPIRED}.
     *
     * @param deadline {@link System#nanoTime()} when the wait ends regardless.
     */
    void linger(final long deadline)
    {
        lingerDeadline = deadline;
        handler.lingering(this);
    }

    /**
     * @return when the linger ends ({@link System#nanoTime()}); meaningful while the endpoint lingers.
     */
    long lingerDeadline()
    {
        return lingerDeadline;
    }

    /**
     * The endpoint has torn its QP down: its CQ's events stop; once {@code last} succeeds (at once, or on a later
     * turn of the loop) the CQ is no longer outstanding, and a cancelled registration is removed.
     *
     * @param last the endpoint's last step: closing the CQ, giving back its holds and closing its id.
     */
    void release(final Release last)
    {
        handler.unwatch(cq, this);
        release = last;
        retryRelease();
    }

    /**
     * @return true when the release is done; false if it waits for a later turn.
     */
    boolean retryRelease()
    {
        final Release last = release;
        if (last == null)
        {
            return true;
        }
        if (!last.finish())
        {
            handler.releaseLater(this);
            return false;
        }
        release = null;
        cq = null;
        outstanding--;
        if (canceled.get())
        {
            removeIfDone();
        }
        return true;
    }

    @Override
    public String toString()
    {
        return "RdmaIoRegistration[" + handle + (canceled.get() ? ", cancelled" : "") +
            (outstanding > 0 ? ", outstanding " + outstanding : "") + "]";
    }
}
