package io.rdma4j.netty;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WaitSet;
import io.rdma4j.verbs.Waitable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Netty's I/O for rdma4j channels on one event loop: the connection manager's events of the ids made on this
 * loop, and the completions of the connections' completion queues.
 * <p>
 * The loop thread sleeps in one {@link WaitSet} holding the completion channel of every device its connections
 * use and its connection manager's event channel, as an epoll loop sleeps on its descriptors: a completion or a
 * connection-manager event reaches the loop with no thread in between (on the software device the loop thread
 * receives for the first device itself while it waits), and Netty's {@link #wakeup()} and work queued from
 * elsewhere end that sleep through {@link WaitSet#wakeup()}. A channel the set cannot hold (the native provider's,
 * for now) is slept on by the loop itself when it is the loop's first and the set is empty, as before the set;
 * any other gets a small daemon thread of this handler that queues what it takes and wakes the loop. Idle,
 * nothing spins.
 */
public final class RdmaIoHandler implements IoHandler
{
    /** At most this many queued events are handled per {@link #run} before the loop turns to its tasks. */
    private static final int MAX_EVENTS_PER_RUN = 1024;
    /** The system property that gives {@link #newFactory()} its busy polls. */
    public static final String SPIN_POLLS_PROPERTY = "rdma4j.netty.spinPolls";
    private static final System.Logger LOG = System.getLogger(RdmaIoHandler.class.getName());

    private final ThreadAwareExecutor executor;
    /** Empty polls of the loop's CQs before it arms them and sleeps; see {@link #newFactory(int)}. */
    private final int spinPolls;
    /** Completion queues with new completions and connection-manager events, from the waiting threads. */
    private final ConcurrentLinkedQueue<Object> ready = new ConcurrentLinkedQueue<>();
    private final Set<Registration> registrations = new HashSet<>();
    private final Map<Context, CqWaiter> cqWaiters = new HashMap<>();
    private final Map<Context, DeviceMemory> memories = new HashMap<>();
    /** The completion channel the loop thread waits on itself, or null; written on the loop thread only. */
    private volatile CqWaiter own;
    /**
     * {@link #own} is a channel the set cannot hold (the native provider's): the loop sleeps in its
     * {@code getCqEvent}, as before the set, rather than hand its events over through a thread; written on the loop
     * thread only.
     */
    private volatile boolean ownOutsideSet;
    /** Every channel the loop sleeps on: completion channels and the event channel. */
    private final WaitSet waitSet = WaitSet.create();
    /** Where {@link WaitSet#await} puts the ready channels; the loop thread's only. */
    private final Waitable[] readyChannels = new Waitable[64];
    private final Map<CompletionQueue, CqConsumer> endpoints = new IdentityHashMap<>();
    /** The endpoints' snapshot that busy polls walk, rebuilt when one comes or goes (not per poll). */
    private CqConsumer[] polled = new CqConsumer[0];
    /** A CQ of the loop's own channel was drained by a busy poll and must be re-armed before the loop sleeps. */
    private boolean unarmed;
    /** The index in {@link #polled} that the busy poll takes next. */
    private int spinNext;
    /** Endpoints torn down whose CQ, device hold and id are still to be let go (see {@link #retire}). */
    private final List<CqConsumer> retiring = new ArrayList<>();
    private volatile Thread loopThread;
    private EventChannel eventChannel;
    private Thread cmWaiter;
    /** The pool tick ({@link PoolTrimmer}), from the first device memory on; null before. */
    private ScheduledFuture<?> poolTick;

    private RdmaIoHandler(final ThreadAwareExecutor executor, final int spinPolls)
    {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.spinPolls = spinPolls;
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
            final long lingerNanos = nextLingerDeadline() - System.nanoTime();
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
                    handled += ownOutsideSet ? takeOwnOutsideSet(parkNanos) : takeReady(parkNanos);
                }
            }
            handled += handleReady();
        }
        expireLingering();
        retryRetiring();
        return handled;
    }

    /**
     * Wait in the set until a channel is ready, then take what the ready ones hold and drive their endpoints.
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
                    handled += takeCqEvents(completions);
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
        final CqWaiter waiter = own;
        if (!ownOutsideSet || waiter == null)
        {
            return 0;
        }
        try
        {
            return takeCqEvents(waiter.channel, waitNanos);
        }
        catch (final InterruptedException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "the event loop thread was interrupted while waiting");
            return 0;
        }
    }

    private int takeCqEvents(final CompletionChannel channel) throws InterruptedException
    {
        return takeCqEvents(channel, 0);
    }

    /**
     * Take the CQ events a completion channel holds and drive their endpoints.
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
            // an endpoint that runs may destroy the channel (the last one on the device): then getCqEvent is EINVAL
            while (handled < MAX_EVENTS_PER_RUN && (cq = channel.getCqEvent(timeout, TimeUnit.NANOSECONDS)) != null)
            {
                timeout = 0;
                // acknowledged before the endpoint runs, so that a CQ it retires can close at once
                cq.ackEvents(1);
                final CqConsumer endpoint = endpoints.get(cq);
                if (endpoint != null)
                {
                    if (busyPolls())
                    {
                        // left unarmed, so that the busy polls after it receive in the software device's polling
                        // mode; armed again before the loop sleeps
                        endpoint.pollCompletions();
                        unarmed = true;
                    }
                    else
                    {
                        endpoint.onCompletions();
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
        return spinPolls > 0 && own != null && cqWaiters.size() == 1;
    }

    /**
     * Poll the CQs in turn, unarmed, until one has completions, something else is queued for the loop, or
     * {@code spinPolls} empty polls passed.
     *
     * @return the endpoints that had completions.
     */
    private int spin(final IoHandlerContext context)
    {
        final CqConsumer[] consumers = polled;
        if (consumers.length == 0)
        {
            return 0;
        }
        for (int i = 0; i < spinPolls; i++)
        {
            // one CQ a round: in polling mode each empty poll also receives for the whole device, so polling them
            // all every round would cost one receive call per CQ where one serves them all
            spinNext = spinNext + 1 < consumers.length ? spinNext + 1 : 0;
            if (consumers[spinNext].pollCompletions())
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
     * @return the endpoints that had completions when their CQs were re-armed.
     */
    private int armAll()
    {
        unarmed = false;
        int took = 0;
        final CqConsumer[] consumers = polled;
        for (final CqConsumer consumer : consumers)
        {
            if (consumer.onCompletions())
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
                final CqConsumer endpoint = endpoints.get(cq);
                if (endpoint != null)
                {
                    endpoint.onCompletions();
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
            closeQuietly(notice.id(), true);
        }
    }

    /**
     * Close an id, whatever fails.
     *
     * @param id     the id.
     * @param reject refuse its connection request first.
     */
    static void closeQuietly(final CmId id, final boolean reject)
    {
        if (reject)
        {
            Teardown.quietly(LOG, System.Logger.Level.DEBUG, "reject failed", () -> id.reject(null));
        }
        Teardown.quietly(LOG, System.Logger.Level.DEBUG, "closing a connection-manager id failed", id::close);
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
     * End the loop thread's wait in its set, or its next one.
     */
    private void wakeLoop()
    {
        waitSet.wakeup();
        final CqWaiter waiter = own;
        if (ownOutsideSet && waiter != null)
        {
            try
            {
                waiter.channel.wakeup();
            }
            catch (final RdmaException ex)
            {
                // destroyed under us by the loop, which looks at its queue before it waits again
            }
        }
    }

    @Override
    public void prepareToDestroy()
    {
        for (final Registration registration : new ArrayList<>(registrations))
        {
            registration.handle.closeNow();
        }
    }

    @Override
    public void destroy()
    {
        if (poolTick != null)
        {
            poolTick.cancel(false);
        }
        for (final CqConsumer endpoint : new ArrayList<>(endpoints.values()))
        {
            endpoint.forceClose();
        }
        if (cmWaiter != null)
        {
            stop(cmWaiter);
        }
        for (final CqWaiter waiter : cqWaiters.values())
        {
            if (waiter.thread != null)
            {
                stop(waiter.thread);
            }
        }
        own = null;
        // the waiting threads are gone, so no CQ event can be held unacknowledged any more
        retryRetiring();
        for (final CqConsumer endpoint : retiring)
        {
            LOG.log(System.Logger.Level.WARNING, "a connection's completion queue could not be closed: " + endpoint);
        }
        waitSet.close();
        for (final CqWaiter waiter : cqWaiters.values())
        {
            closeChannel(waiter);
        }
        cqWaiters.clear();
        if (eventChannel != null)
        {
            // ids of accepted connections live on their listener's channel and may outlive this loop's
            Teardown.quietly(LOG, System.Logger.Level.WARNING, "closing the event channel failed", eventChannel::close);
        }
    }

    private static void stop(final Thread thread)
    {
        thread.interrupt();
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public IoRegistration register(final IoHandle handle)
    {
        if (!(handle instanceof RdmaIoHandle rdmaHandle))
        {
            throw new IllegalArgumentException("not an rdma4j handle: " + handle.getClass().getName());
        }
        final Registration registration = new Registration(rdmaHandle);
        registrations.add(registration);
        handle.registered();
        return registration;
    }

    @Override
    public boolean isCompatible(final Class<? extends IoHandle> handleType)
    {
        return RdmaIoHandle.class.isAssignableFrom(handleType);
    }

    /**
     * @return this loop's event channel, made on first use with its waiting thread.
     */
    EventChannel eventChannel()
    {
        if (eventChannel == null)
        {
            eventChannel = RdmaCm.createEventChannel();
            final EventChannel channel = eventChannel;
            if (!joinWaitSet(channel))
            {
                cmWaiter = waiter("cm", "connection-manager events", () -> nextNotice(channel));
                cmWaiter.start();
            }
        }
        return eventChannel;
    }

    private String threadName()
    {
        final Thread thread = loopThread;
        return thread == null ? "loop" : thread.getName();
    }

    /**
     * @param kind   what the thread's name says it waits on.
     * @param what   what it waits for, for the log.
     * @param source the channel's next announcement.
     * @return a waiting thread, not started.
     */
    private Thread waiter(final String kind, final String what, final Source source)
    {
        return Thread.ofPlatform().daemon().name("rdma4j-netty-" + kind + "-" + threadName())
            .unstarted(() -> waitFor(what, source));
    }

    /**
     * The body of a waiting thread: take what the channel announces and queue it for the loop, until the loop
     * goes away.
     *
     * @param what   what it waits for, for the log.
     * @param source the channel's next announcement, already acknowledged, or null if there was none.
     */
    private void waitFor(final String what, final Source source)
    {
        try
        {
            while (!Thread.currentThread().isInterrupted())
            {
                final Object item = source.next();
                if (item != null)
                {
                    offer(item);
                }
            }
        }
        catch (final InterruptedException ex)
        {
            // the loop is going away
        }
        catch (final RdmaException ex)
        {
            // EINVAL: the channel was destroyed under us, which also means the loop is going away
            if (ex.errno() != Errno.EINVAL)
            {
                LOG.log(System.Logger.Level.ERROR, "waiting for " + what + " failed", ex);
            }
        }
    }

    private static CmNotice nextNotice(final EventChannel channel) throws InterruptedException
    {
        final CmEvent event = channel.getEvent(-1, TimeUnit.SECONDS);
        if (event == null)
        {
            return null;
        }
        try
        {
            return CmNotice.of(event);
        }
        finally
        {
            event.ack();
        }
    }

    private static CompletionQueue nextCq(final CompletionChannel channel) throws InterruptedException
    {
        final CompletionQueue cq = channel.getCqEvent(-1, TimeUnit.SECONDS);
        if (cq != null)
        {
            cq.ackEvents(1);
        }
        return cq;
    }

    /**
     * Take a hold on this loop's completion channel of a device, made with its waiting thread on the first hold.
     * Every hold is given back with {@link #releaseCompletionChannel}: the channel must be gone before the last
     * connection-manager id on the device is closed, or the device's context cannot close with it.
     *
     * @param verbs a device.
     * @return the completion channel.
     */
    CompletionChannel holdCompletionChannel(final Context verbs)
    {
        CqWaiter waiter = cqWaiters.get(verbs);
        if (waiter == null)
        {
            final CompletionChannel channel = verbs.createCompChannel();
            // every device's channel in the loop's set; of those the set cannot hold, the loop sleeps on the first
            // itself (while the set is empty) and each further one has a thread of its own
            final boolean inSet = joinWaitSet(channel);
            final boolean direct = !inSet && own == null && waitSet.channels().length == 0;
            final Thread thread = inSet || direct ? null : waiter("cq", "completions", () -> nextCq(channel));
            waiter = new CqWaiter(channel, thread);
            cqWaiters.put(verbs, waiter);
            if (own == null && thread == null)
            {
                own = waiter;
                ownOutsideSet = direct;
            }
            if (thread != null)
            {
                thread.start();
            }
        }
        waiter.holds++;
        return waiter.channel;
    }

    /**
     * Give back a hold; the last one stops the waiting thread and destroys the channel.
     *
     * @param verbs the device given to {@link #holdCompletionChannel}.
     */
    void releaseCompletionChannel(final Context verbs)
    {
        final CqWaiter waiter = cqWaiters.get(verbs);
        if (waiter != null && --waiter.holds == 0)
        {
            cqWaiters.remove(verbs);
            if (waiter.thread != null)
            {
                stop(waiter.thread);
            }
            else
            {
                waitSet.remove(waiter.channel);
            }
            if (own == waiter)
            {
                own = null;
                ownOutsideSet = false;
            }
            closeChannel(waiter);
        }
    }

    /**
     * Take a hold on this loop's protection domain of a device and the chunks registered in it, made on the first
     * hold. Every hold is given back with {@link #releaseMemory}, after the holder's QP and regions are gone: the
     * domain must be gone before the last connection-manager id on the device is closed.
     *
     * @param verbs a device.
     * @return the loop's memory on it.
     */
    DeviceMemory holdMemory(final Context verbs)
    {
        DeviceMemory memory = memories.get(verbs);
        if (memory == null)
        {
            memory = new DeviceMemory(verbs);
            memories.put(verbs, memory);
            startPoolTick();
        }
        memory.hold();
        return memory;
    }

    /**
     * From the loop's first RDMA resources on, for its life: the pools' idle chunks go back, even once this loop's
     * last connection is gone, and the loop's regions of them are closed. On the loop, so no thread of its own.
     */
    private void startPoolTick()
    {
        if (poolTick == null && executor instanceof ScheduledExecutorService loop)
        {
            poolTick = loop.scheduleWithFixedDelay(this::poolTick, PoolTrimmer.TICK_MILLIS, PoolTrimmer.TICK_MILLIS,
                TimeUnit.MILLISECONDS);
        }
    }

    private void poolTick()
    {
        PoolTrimmer.trimAll(System.nanoTime());
        for (final DeviceMemory memory : memories.values())
        {
            memory.dropRetired();
        }
        PoolTrimmer.releaseFreed();
    }

    /**
     * Give back a hold; the last one deregisters the chunks and closes the domain.
     *
     * @param verbs the device given to {@link #holdMemory}.
     */
    void releaseMemory(final Context verbs)
    {
        final DeviceMemory memory = memories.get(verbs);
        if (memory != null && memory.release())
        {
            memories.remove(verbs);
        }
    }

    /**
     * @return true if the loop's set holds the channel now; false if its provider cannot be waited on in a set
     *     (EOPNOTSUPP), or the loop sleeps on such a channel itself, when a thread must wait on it instead.
     */
    private boolean joinWaitSet(final Waitable channel)
    {
        if (ownOutsideSet)
        {
            // the loop sleeps in its own channel's getCqEvent, where the set's watchers cannot reach it: a thread
            // of its own for this one too, which wakes the loop through that channel
            return false;
        }
        try
        {
            waitSet.add(channel);
            return true;
        }
        catch (final RdmaException ex)
        {
            if (ex.errno() != Errno.EOPNOTSUPP)
            {
                throw ex;
            }
            return false;
        }
    }

    private static void closeChannel(final CqWaiter waiter)
    {
        Teardown.quietly(LOG, System.Logger.Level.WARNING, "closing a completion channel failed",
            waiter.channel::close);
    }

    /** Start handling an endpoint's completions; on the loop thread. */
    void add(final CqConsumer endpoint)
    {
        endpoints.put(endpoint.cq(), endpoint);
        polled = endpoints.values().toArray(new CqConsumer[0]);
    }

    /**
     * Stop handling an endpoint's completions and let the rest of it go: its CQ as soon as no waiting thread can
     * still hold an unacknowledged event of it (a thread that has just taken one makes the close EBUSY until it
     * acknowledges), then its hold on the completion channel, then its id.
     */
    void retire(final CqConsumer endpoint)
    {
        if (endpoints.remove(endpoint.cq()) != null)
        {
            polled = endpoints.values().toArray(new CqConsumer[0]);
            retiring.add(endpoint);
            retryRetiring();
        }
    }

    private void retryRetiring()
    {
        for (final Iterator<CqConsumer> it = retiring.iterator(); it.hasNext(); )
        {
            if (it.next().finishRetiring())
            {
                it.remove();
            }
        }
    }

    private long nextLingerDeadline()
    {
        long deadline = Long.MAX_VALUE;
        for (final CqConsumer endpoint : endpoints.values())
        {
            if (endpoint.lingering())
            {
                deadline = Math.min(deadline, endpoint.lingerDeadline());
            }
        }
        if (!retiring.isEmpty())
        {
            deadline = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1));
        }
        return deadline;
    }

    private void expireLingering()
    {
        if (endpoints.isEmpty())
        {
            return;
        }
        final long now = System.nanoTime();
        for (final CqConsumer endpoint : new ArrayList<>(endpoints.values()))
        {
            if (endpoint.lingering() && now - endpoint.lingerDeadline() >= 0)
            {
                endpoint.forceClose();
            }
        }
    }

    /** What a waiting thread waits on. */
    @FunctionalInterface
    private interface Source
    {
        /**
         * @return the next item for the loop, already acknowledged, or null if none came.
         * @throws InterruptedException if the loop is going away.
         */
        Object next() throws InterruptedException;
    }

    /**
     * A completion channel of one device, the thread that waits on it (null for the one the loop waits on itself)
     * and the endpoints that use it.
     */
    private static final class CqWaiter
    {
        final CompletionChannel channel;
        final Thread thread;
        int holds;

        CqWaiter(final CompletionChannel channel, final Thread thread)
        {
            this.channel = channel;
            this.thread = thread;
        }
    }

    /** A channel's registration; its attachment is this handler, which the channel asks for its resources. */
    private final class Registration implements IoRegistration
    {
        private final RdmaIoHandle handle;
        private final AtomicBoolean canceled = new AtomicBoolean();

        Registration(final RdmaIoHandle handle)
        {
            this.handle = handle;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T attachment()
        {
            return (T)RdmaIoHandler.this;
        }

        @Override
        public long submit(final IoOps ops)
        {
            // readiness comes from the completion queues and the event channel, not from interest ops
            throw new UnsupportedOperationException("rdma4j channels submit no IoOps");
        }

        @Override
        public boolean isValid()
        {
            return !canceled.get();
        }

        @Override
        public boolean cancel()
        {
            if (!canceled.compareAndSet(false, true))
            {
                return false;
            }
            if (executor.isExecutorThread(Thread.currentThread()))
            {
                cancelNow();
            }
            else
            {
                executor.execute(this::cancelNow);
            }
            return true;
        }

        private void cancelNow()
        {
            if (registrations.remove(this))
            {
                handle.unregistered();
            }
        }
    }
}
