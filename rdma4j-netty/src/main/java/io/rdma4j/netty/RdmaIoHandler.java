package io.rdma4j.netty;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WaitSet;
import io.rdma4j.verbs.Waitable;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Netty's I/O for rdma4j channels on one event loop, in Netty's registration model: each channel's unsafe is an
 * {@link RdmaIoHandle} registered here ({@link RdmaIoRegistration}); the CQ it submits ({@link RdmaIoOps}) and the
 * connection manager's events of its ids reach its {@code handle} as {@link RdmaIoEvent}s, where its read loop
 * runs, as an io_uring channel's does. This class only waits and dispatches.
 * <p>
 * The loop thread sleeps in one {@link WaitSet} holding the completion channel of every device its connections
 * use and its connection manager's event channel ({@link LoopDevices}), as an epoll loop sleeps on its
 * descriptors: a completion or a connection-manager event reaches the loop with no thread in between (on the
 * software device the loop thread receives for the first device itself while it waits), and Netty's
 * {@link #wakeup()} and work queued from elsewhere end that sleep through {@link WaitSet#wakeup()}. The native
 * provider's channels are members too: the set then sleeps in {@code poll(2)} over their descriptors. A channel of
 * a provider that no set can hold is slept on by the loop itself when it is the loop's first and the set is empty;
 * any other such gets a small daemon thread that queues what it takes and wakes the loop. Idle, nothing spins.
 */
public final class RdmaIoHandler implements IoHandler
{
    /** At most this many queued events are handled per {@link #run} before the loop turns to its tasks. */
    private static final int MAX_EVENTS_PER_RUN = 1024;
    /** The system property that gives {@link #newFactory()} its busy polls. */
    public static final String SPIN_POLLS_PROPERTY = "rdma4j.netty.spinPolls";
    private static final System.Logger LOG = System.getLogger(RdmaIoHandler.class.getName());
    /** How soon a release that had to wait is tried again. */
    private static final long RELEASE_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ThreadAwareExecutor executor;
    /** Empty polls of the loop's CQs before it arms them and sleeps; see {@link #newFactory(int)}. */
    private final int spinPolls;
    /** Completion queues with new completions and connection-manager events, from the waiting threads. */
    private final ConcurrentLinkedQueue<Object> ready = new ConcurrentLinkedQueue<>();
    private final Set<RdmaIoRegistration> registrations = new HashSet<>();
    /** The registration of each CQ submitted, as io_uring's handler finds a completion's by its id. */
    private final Map<CompletionQueue, RdmaIoRegistration> watched = new IdentityHashMap<>();
    /** The registrations of {@link #watched}, which busy polls walk: rebuilt when one comes or goes. */
    private RdmaIoRegistration[] polled = new RdmaIoRegistration[0];
    /** Registrations whose endpoint waits for its SENDs before it lets its CQ go. */
    private final List<RdmaIoRegistration> lingering = new ArrayList<>();
    /** Registrations whose endpoint's last teardown step must be tried again. */
    private final List<RdmaIoRegistration> releasing = new ArrayList<>();
    /** Every channel the loop sleeps on: completion channels and the event channel. */
    private final WaitSet waitSet = WaitSet.create();
    /** Where {@link WaitSet#await} puts the ready channels; the loop thread's only. */
    private final Waitable[] readyChannels = new Waitable[64];
    private final LoopDevices devices;
    private final CreditWatch creditWatch = new CreditWatch();
    /** A CQ was drained by a busy poll and must be re-armed before the loop sleeps. */
    private boolean unarmed;
    /** The index in {@link #polled} that the busy poll takes next. */
    private int spinNext;
    private volatile Thread loopThread;

    private RdmaIoHandler(final ThreadAwareExecutor executor, final int spinPolls)
    {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.spinPolls = spinPolls;
        this.devices = new LoopDevices(executor, waitSet, this::offer, this::threadName);
    }

    /**
     * @return the factory to give {@code MultiThreadIoEventLoopGroup}, with the busy polls of
     *     {@code -Drdma4j.netty.spinPolls} (0 when unset).
     */
    public static IoHandlerFactory newFactory()
    {
        return newFactory(Integer.getInteger(SPIN_POLLS_PROPERTY, 0));
    }

    /**
     * @param spinPolls empty polls of the loop's CQs, unarmed, before the loop arms them and sleeps on the
     *                  completion channel; 0 never polls busy. In the software device's polling mode a busy poll
     *                  receives on the loop thread, so a message reaches the loop with no thread hand-off at all
     *                  (ping-pong p50 about 5 us where sleeping gives about 80); the price is a core spinning
     *                  after each burst, which on a few shared cores costs the tail and the pipelined rate, and in
     *                  thread mode it only competes with the progress thread. Busy polls apply while the loop's
     *                  connections use one device.
     * @return the factory to give {@code MultiThreadIoEventLoopGroup}.
     * @throws IllegalArgumentException if spinPolls is negative.
     */
    public static IoHandlerFactory newFactory(final int spinPolls)
    {
        if (spinPolls < 0)
        {
            throw new IllegalArgumentException("spinPolls must be 0 or more, not " + spinPolls);
        }
        return executor -> new RdmaIoHandler(executor, spinPolls);
    }

    /**
     * @return the credit timeouts of the loop's connections, watched by one task.
     */
    CreditWatch creditWatch()
    {
        return creditWatch;
    }

    /**
     * @return what the loop has made per device, and its event channel; on the loop.
     */
    LoopDevices devices()
    {
        return devices;
    }

    @Override
    public int run(final IoHandlerContext context)
    {
        if (loopThread == null)
        {
            loopThread = Thread.currentThread();
        }
        int handled = handleReady() + takeReady(0) + takeOwnOutsideSet(0);
        if (handled == 0 && busyPolls())
        {
            handled = spin(context);
        }
        if (handled == 0 && context.canBlock())
        {
            long parkNanos = context.delayNanos(System.nanoTime());
            final long lingerNanos = nextDeadline() - System.nanoTime();
            parkNanos = Math.min(parkNanos, Math.max(0, lingerNanos));
            if (parkNanos > 0 && ready.isEmpty())
            {
                if (unarmed)
                {
                    // arm, then take what came before the arm: nothing is left unannounced while we sleep
                    handled += armAll();
                }
                if (handled == 0)
                {
                    // wakeLoop() ends this wait; a wake-up left from an earlier turn only makes it return at once
                    handled += devices.ownOutsideSet() ? takeOwnOutsideSet(parkNanos) : takeReady(parkNanos);
                }
            }
            handled += handleReady();
        }
        expireLingering();
        retryReleases();
        return handled;
    }

    /**
     * Wait in the set until a channel is ready, then take what the ready ones hold and dispatch it.
     *
     * @param waitNanos how long to wait; 0 takes only what is there already.
     * @return the events taken.
     */
    private int takeReady(final long waitNanos)
    {
        int handled = 0;
        try
        {
            final int ready = waitSet.await(readyChannels, waitNanos, TimeUnit.NANOSECONDS);
            for (int i = 0; i < ready; i++)
            {
                final Waitable channel = readyChannels[i];
                readyChannels[i] = null;
                if (channel instanceof final CompletionChannel completions)
                {
                    handled += takeCqEvents(completions, 0);
                }
                else if (channel instanceof final EventChannel events)
                {
                    handled += takeCmEvents(events);
                }
            }
        }
        catch (final InterruptedException ex)
        {
            // an interrupt of the loop thread is not ours to act on; Netty's own loops swallow it too
            LOG.log(System.Logger.Level.DEBUG, "the event loop thread was interrupted while waiting");
        }
        return handled;
    }

    /**
     * Take the connection-manager events the loop's channel holds, each acknowledged before it is dispatched.
     */
    private int takeCmEvents(final EventChannel events) throws InterruptedException
    {
        int handled = 0;
        try
        {
            CmEvent event;
            while (handled < MAX_EVENTS_PER_RUN && (event = events.getEvent(0, TimeUnit.SECONDS)) != null)
            {
                final CmNotice notice;
                try
                {
                    notice = CmNotice.of(event);
                }
                finally
                {
                    event.ack();
                }
                dispatch(notice);
                handled++;
            }
        }
        catch (final RdmaException ex)
        {
            // EINVAL: the channel was closed under us, as the loop goes away
            if (ex.errno() != Errno.EINVAL)
            {
                throw ex;
            }
        }
        return handled;
    }

    /**
     * Where the loop's own channel is one the set cannot hold: wait in its {@code getCqEvent} (the set's other
     * channels and the waiting threads wake it through {@link #wakeLoop}), and take its events.
     *
     * @param waitNanos how long to wait for the first event; 0 takes only those there.
     * @return the events taken.
     */
    private int takeOwnOutsideSet(final long waitNanos)
    {
        final CompletionChannel own = devices.own();
        if (!devices.ownOutsideSet() || own == null)
        {
            return 0;
        }
        try
        {
            return takeCqEvents(own, waitNanos);
        }
        catch (final InterruptedException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "the event loop thread was interrupted while waiting");
            return 0;
        }
    }

    /**
     * Take the CQ events a completion channel holds and dispatch each to its CQ's registration.
     *
     * @param waitNanos how long to wait for the first; 0 takes only those there.
     * @return the events taken.
     */
    private int takeCqEvents(final CompletionChannel channel, final long waitNanos) throws InterruptedException
    {
        int handled = 0;
        try
        {
            CompletionQueue cq;
            long timeout = waitNanos;
            // a handle may destroy the channel (its endpoint the last on the device): then getCqEvent is EINVAL
            while (handled < MAX_EVENTS_PER_RUN && (cq = channel.getCqEvent(timeout, TimeUnit.NANOSECONDS)) != null)
            {
                timeout = 0;
                // acknowledged before the handle runs, so that a CQ its endpoint releases can close at once
                cq.ackEvents(1);
                final RdmaIoRegistration registration = watched.get(cq);
                if (registration != null)
                {
                    if (busyPolls())
                    {
                        // left unarmed, so that the busy polls after it receive in the software device's polling
                        // mode; armed again before the loop sleeps
                        registration.dispatch(CqReady.Kind.POLLED);
                        unarmed = true;
                    }
                    else
                    {
                        registration.dispatch(CqReady.Kind.NOTIFIED);
                    }
                }
                handled++;
            }
        }
        catch (final RdmaException ex)
        {
            if (ex.errno() != Errno.EINVAL)
            {
                throw ex;
            }
        }
        return handled;
    }

    /**
     * @return true if the loop busy-polls its CQs before it sleeps: asked for, and all of them on its own channel.
     */
    private boolean busyPolls()
    {
        return spinPolls > 0 && devices.own() != null && devices.deviceCount() == 1;
    }

    /**
     * Poll the CQs in turn, unarmed, until one has completions, something else is queued for the loop, or
     * {@code spinPolls} empty polls passed.
     *
     * @return the registrations whose handle took completions.
     */
    private int spin(final IoHandlerContext context)
    {
        final RdmaIoRegistration[] registered = polled;
        if (registered.length == 0)
        {
            return 0;
        }
        for (int i = 0; i < spinPolls; i++)
        {
            // one CQ a round: in polling mode each empty poll also receives for the whole device, so polling them
            // all every round would cost one receive call per CQ where one serves them all
            spinNext = spinNext + 1 < registered.length ? spinNext + 1 : 0;
            if (registered[spinNext].dispatch(CqReady.Kind.POLLED))
            {
                unarmed = true;
                return 1;
            }
            if (!ready.isEmpty() || !context.canBlock())
            {
                return 0;
            }
            Thread.onSpinWait();
        }
        return 0;
    }

    /**
     * @return the registrations whose handle took completions as their CQs were re-armed.
     */
    private int armAll()
    {
        unarmed = false;
        int took = 0;
        for (final RdmaIoRegistration registration : polled)
        {
            if (registration.dispatch(CqReady.Kind.NOTIFIED))
            {
                took++;
            }
        }
        return took;
    }

    private int handleReady()
    {
        int handled = 0;
        Object item;
        for (int i = 0; i < MAX_EVENTS_PER_RUN && (item = ready.poll()) != null; i++)
        {
            if (item instanceof CompletionQueue cq)
            {
                final RdmaIoRegistration registration = watched.get(cq);
                if (registration != null)
                {
                    registration.dispatch(CqReady.Kind.NOTIFIED);
                    handled++;
                }
            }
            else if (item instanceof CmNotice notice)
            {
                dispatch(notice);
                handled++;
            }
        }
        return handled;
    }

    /**
     * Hand a connection-manager event to its id's context: a channel, which takes it to its registration.
     */
    private static void dispatch(final CmNotice notice)
    {
        final Object target = notice.target();
        if (target instanceof CmSink sink)
        {
            sink.cmEvent(notice);
        }
        else if (notice.type() == CmEventType.CONNECT_REQUEST)
        {
            // a request for a listener already gone: refuse it rather than leave the peer waiting
            Teardown.closeId(notice.id(), true);
        }
    }

    @Override
    public void wakeup()
    {
        if (!executor.isExecutorThread(Thread.currentThread()))
        {
            wakeLoop();
        }
    }

    private void offer(final Object item)
    {
        ready.offer(item);
        wakeLoop();
    }

    /**
     * End the loop thread's wait, or its next one.
     */
    private void wakeLoop()
    {
        waitSet.wakeup();
        devices.wakeOwn();
    }

    @Override
    public void prepareToDestroy()
    {
        closeAll();
    }

    /** Close every channel still registered; a channel closed already is left as it is. */
    private void closeAll()
    {
        for (final RdmaIoRegistration registration : new ArrayList<>(registrations))
        {
            registration.handle().closeNow();
        }
    }

    @Override
    public void destroy()
    {
        // Netty calls prepareToDestroy only on a turn that began after the shutdown did: one begun during a turn's
        // tasks, with no quiet period, ends the loop with this call alone, and a channel left open would keep its
        // queued writes forever
        closeAll();
        // endpoints still waiting for their SENDs tear down now
        for (final RdmaIoRegistration registration : new ArrayList<>(watched.values()))
        {
            registration.dispatch(CqReady.Kind.EXPIRED);
        }
        devices.stopWaiting();
        // the waiting threads are gone, so no CQ event can be held unacknowledged any more
        retryReleases();
        for (final RdmaIoRegistration registration : releasing)
        {
            LOG.log(System.Logger.Level.WARNING, "a connection's completion queue could not be closed: " +
                registration);
        }
        waitSet.close();
        devices.close();
    }

    @Override
    public IoRegistration register(final IoHandle handle)
    {
        if (!(handle instanceof RdmaIoHandle rdmaHandle))
        {
            throw new IllegalArgumentException("not an rdma4j handle: " + handle.getClass().getName());
        }
        final RdmaIoRegistration registration = new RdmaIoRegistration(this, rdmaHandle);
        registrations.add(registration);
        handle.registered();
        return registration;
    }

    @Override
    public boolean isCompatible(final Class<? extends IoHandle> handleType)
    {
        return RdmaIoHandle.class.isAssignableFrom(handleType);
    }

    private String threadName()
    {
        final Thread thread = loopThread;
        return thread == null ? "loop" : thread.getName();
    }

    /**
     * @return whether the caller is the loop's thread.
     */
    boolean inLoop()
    {
        return executor.isExecutorThread(Thread.currentThread());
    }

    /**
     * @param task work for the loop's thread.
     */
    void execute(final Runnable task)
    {
        executor.execute(task);
    }

    /**
     * @param cq           a CQ just submitted.
     * @param registration its registration, which gets its events from now on.
     */
    void watch(final CompletionQueue cq, final RdmaIoRegistration registration)
    {
        watched.put(cq, registration);
        polled = watched.values().toArray(new RdmaIoRegistration[0]);
    }

    /**
     * @param cq           a CQ whose endpoint is torn down.
     * @param registration its registration, which gets no more of its events.
     */
    void unwatch(final CompletionQueue cq, final RdmaIoRegistration registration)
    {
        if (cq != null && watched.remove(cq, registration))
        {
            polled = watched.values().toArray(new RdmaIoRegistration[0]);
        }
        lingering.remove(registration);
    }

    /**
     * @param registration its endpoint lingers until {@link RdmaIoRegistration#lingerDeadline()}.
     */
    void lingering(final RdmaIoRegistration registration)
    {
        if (!lingering.contains(registration))
        {
            lingering.add(registration);
        }
    }

    /**
     * @param registration its release is to be tried again on a later turn.
     */
    void releaseLater(final RdmaIoRegistration registration)
    {
        if (!releasing.contains(registration))
        {
            releasing.add(registration);
        }
    }

    /**
     * @param registration cancelled and with nothing outstanding: gone from this handler.
     */
    void removed(final RdmaIoRegistration registration)
    {
        registrations.remove(registration);
        releasing.remove(registration);
    }

    /**
     * @return when the loop must wake for a linger that runs out or a release to retry ({@link System#nanoTime()}),
     *     or {@link Long#MAX_VALUE}.
     */
    private long nextDeadline()
    {
        long deadline = Long.MAX_VALUE;
        for (int i = 0; i < lingering.size(); i++)
        {
            deadline = Math.min(deadline, lingering.get(i).lingerDeadline());
        }
        if (!releasing.isEmpty())
        {
            deadline = Math.min(deadline, System.nanoTime() + RELEASE_RETRY_NANOS);
        }
        return deadline;
    }

    private void expireLingering()
    {
        if (lingering.isEmpty())
        {
            return;
        }
        final long now = System.nanoTime();
        // from the end: an expired endpoint's teardown takes its registration off the list
        for (int i = lingering.size() - 1; i >= 0; i--)
        {
            if (i < lingering.size() && now - lingering.get(i).lingerDeadline() >= 0)
            {
                // off the list first, so that a handle that fails to tear down is not expired on every turn
                lingering.remove(i).dispatch(CqReady.Kind.EXPIRED);
            }
        }
    }

    private void retryReleases()
    {
        for (int i = releasing.size() - 1; i >= 0; i--)
        {
            if (i < releasing.size())
            {
                final RdmaIoRegistration registration = releasing.get(i);
                if (registration.retryRelease())
                {
                    // by identity: a release that removed its registration took it off already
                    releasing.remove(registration);
                }
            }
        }
    }
}
