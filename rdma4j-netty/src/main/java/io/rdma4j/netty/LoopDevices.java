package io.rdma4j.netty;

import io.netty.util.concurrent.ThreadAwareExecutor;
import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WaitSet;
import io.rdma4j.verbs.Waitable;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What one event loop makes per device, shared by every channel of the loop on that device: a completion channel
 * (and its place in the loop's {@link WaitSet}, or the thread that waits on it where the set cannot hold it), a
 * protection domain with the chunks registered in it ({@link DeviceMemory}), and, from the first of those on, the
 * pool tick; and the loop's connection-manager event channel. Each is made on the first hold and let go with the
 * last. Used on the loop's thread alone, but for {@link #wakeOwn}, the waiting threads, and the release of an
 * adopted id ({@link #adoptId}).
 */
final class LoopDevices
{
    private static final System.Logger LOG = System.getLogger(LoopDevices.class.getName());

    private final ThreadAwareExecutor executor;
    private final WaitSet waitSet;
    /** Where a waiting thread puts what it took (an acknowledged CQ or a {@link CmNotice}), waking the loop. */
    private final Consumer<Object> handOff;
    private final Supplier<String> loopName;
    private final Map<Context, DeviceChannel> channels = new HashMap<>();
    private final Map<Context, DeviceMemory> memories = new HashMap<>();
    /** The completion channel the loop thread waits on itself, or null; written on the loop thread only. */
    private volatile DeviceChannel own;
    /**
     * {@link #own} is a channel the set cannot hold (a provider's whose channels are no {@code Waitable}s; both of
     * rdma4j's are): the loop sleeps in its
     * {@code getCqEvent}, as before the set, rather than hand its events over through a thread.
     */
    private volatile boolean ownOutsideSet;
    private EventChannel eventChannel;
    /**
     * Holds on {@link #eventChannel}: the loop's own, until it is gone, and one for each id of a connection request
     * that a channel took ({@link #adoptId}), perhaps on another loop, until that channel closes it. Whoever lets
     * go of the last closes the channel.
     */
    private final AtomicInteger eventChannelHolds = new AtomicInteger();
    private Thread cmWaiter;
    /** The pool tick ({@link PoolTrimmer}), from the first device memory on; null before. */
    private ScheduledFuture<?> poolTick;

    /**
     * @param executor the loop.
     * @param waitSet  the set the loop sleeps in.
     * @param handOff  where waiting threads put what they took.
     * @param loopName the loop thread's name, for the waiting threads' names.
     */
    LoopDevices(final ThreadAwareExecutor executor, final WaitSet waitSet, final Consumer<Object> handOff,
        final Supplier<String> loopName)
    {
        this.executor = executor;
        this.waitSet = waitSet;
        this.handOff = handOff;
        this.loopName = loopName;
    }

    /**
     * @return the loop's event channel, made on first use (with a waiting thread where the set cannot hold it).
     */
    EventChannel eventChannel()
    {
        if (eventChannel == null)
        {
            eventChannel = RdmaCm.createEventChannel();
            eventChannelHolds.set(1);
            final EventChannel channel = eventChannel;
            if (!joinWaitSet(channel))
            {
                cmWaiter = waiter("cm", "connection-manager events", () -> nextNotice(channel));
                cmWaiter.start();
            }
        }
        return eventChannel;
    }

    /**
     * A connection request that came on the loop's event channel became a channel, which may be another loop's
     * and outlive this one: the event channel stays until that channel has closed the request's id. On the loop.
     *
     * @return what the channel runs once it has closed the id, on whichever thread; running it again does nothing.
     */
    Runnable adoptId()
    {
        final EventChannel channel = eventChannel;
        eventChannelHolds.incrementAndGet();
        final AtomicBoolean released = new AtomicBoolean();
        return () ->
        {
            if (released.compareAndSet(false, true))
            {
                releaseEventChannel(channel);
            }
        };
    }

    /**
     * Let go of a hold on the event channel; the last closes it.
     *
     * @param channel the loop's event channel.
     */
    private void releaseEventChannel(final EventChannel channel)
    {
        if (eventChannelHolds.decrementAndGet() == 0)
        {
            Teardown.quietly(LOG, System.Logger.Level.WARNING, "closing the event channel failed", channel::close);
        }
    }

    /**
     * Take a hold on the loop's completion channel of a device, made on the first hold. Every hold is given back
     * with {@link #releaseCompletionChannel}: the channel must be gone before the last connection-manager id on
     * the device is closed, or the device's context cannot close with it.
     *
     * @param verbs a device.
     * @return the completion channel.
     */
    CompletionChannel holdCompletionChannel(final Context verbs)
    {
        DeviceChannel device = channels.get(verbs);
        if (device == null)
        {
            final CompletionChannel channel = verbs.createCompChannel();
            // every device's channel in the loop's set; of those the set cannot hold, the loop sleeps on the first
            // itself (while the set is empty) and each further one has a thread of its own
            final boolean inSet = joinWaitSet(channel);
            final boolean direct = !inSet && own == null && waitSet.channels().length == 0;
            final Thread thread = inSet || direct ? null : waiter("cq", "completions", () -> nextCq(channel));
            device = new DeviceChannel(channel, thread);
            channels.put(verbs, device);
            if (own == null && thread == null)
            {
                own = device;
                ownOutsideSet = direct;
            }
            if (thread != null)
            {
                thread.start();
            }
        }
        device.holds++;
        return device.channel;
    }

    /**
     * Give back a hold; the last one stops the waiting thread (or leaves the set) and destroys the channel.
     *
     * @param verbs the device given to {@link #holdCompletionChannel}.
     */
    void releaseCompletionChannel(final Context verbs)
    {
        final DeviceChannel device = channels.get(verbs);
        if (device != null && --device.holds == 0)
        {
            channels.remove(verbs);
            if (device.thread != null)
            {
                stop(device.thread);
            }
            else
            {
                waitSet.remove(device.channel);
            }
            if (own == device)
            {
                own = null;
                ownOutsideSet = false;
            }
            closeChannel(device);
        }
    }

    /**
     * @param verbs a device.
     * @return the holds on the loop's completion channel of it; 0 when there is none.
     */
    int completionChannelHolds(final Context verbs)
    {
        final DeviceChannel device = channels.get(verbs);
        return device == null ? 0 : device.holds;
    }

    /**
     * @return the devices the loop has a completion channel of.
     */
    int deviceCount()
    {
        return channels.size();
    }

    /**
     * @return the completion channel the loop waits on itself (in the set or, where {@link #ownOutsideSet()}, in
     *     its {@code getCqEvent}), or null.
     */
    CompletionChannel own()
    {
        final DeviceChannel device = own;
        return device == null ? null : device.channel;
    }

    /**
     * @return whether the loop sleeps in its own channel's {@code getCqEvent}, outside the set.
     */
    boolean ownOutsideSet()
    {
        return ownOutsideSet;
    }

    /** End the loop's sleep in its own channel's {@code getCqEvent}, if that is where it sleeps; any thread. */
    void wakeOwn()
    {
        final DeviceChannel device = own;
        if (ownOutsideSet && device != null)
        {
            try
            {
                device.channel.wakeup();
            }
            catch (final RdmaException ex)
            {
                // destroyed under us by the loop, which looks at its queue before it waits again
            }
        }
    }

    /**
     * Take a hold on the loop's protection domain of a device and the chunks registered in it, made on the first
     * hold (which starts the pool tick). Every hold is given back with {@link #releaseMemory}, after the holder's
     * QP and regions are gone: the domain must be gone before the last connection-manager id on the device is
     * closed.
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
     * @param verbs a device.
     * @return the loop's memory on it, or null when no endpoint holds it.
     */
    DeviceMemory memory(final Context verbs)
    {
        return memories.get(verbs);
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
     * The loop is going away: stop the pool tick and the waiting threads, after which no CQ event can be held
     * unacknowledged any more.
     */
    void stopWaiting()
    {
        if (poolTick != null)
        {
            poolTick.cancel(false);
        }
        if (cmWaiter != null)
        {
            stop(cmWaiter);
        }
        for (final DeviceChannel device : channels.values())
        {
            if (device.thread != null)
            {
                stop(device.thread);
            }
        }
        own = null;
        ownOutsideSet = false;
    }

    /** The loop is gone: destroy the completion channels left and the event channel. */
    void close()
    {
        for (final DeviceChannel device : channels.values())
        {
            closeChannel(device);
        }
        channels.clear();
        if (eventChannel != null)
        {
            // ids of accepted connections live on their listener's channel and may outlive this loop: the last of
            // them to close closes it then
            releaseEventChannel(eventChannel);
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

    /**
     * @param kind   what the thread's name says it waits on.
     * @param what   what it waits for, for the log.
     * @param source the channel's next announcement.
     * @return a waiting thread, not started.
     */
    private Thread waiter(final String kind, final String what, final Source source)
    {
        return Thread.ofPlatform().daemon().name("rdma4j-netty-" + kind + "-" + loopName.get())
            .unstarted(() -> waitFor(what, source));
    }

    /**
     * The body of a waiting thread: take what the channel announces and hand it to the loop, until the loop goes
     * away.
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
                    handOff.accept(item);
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

    private static CompletionQueue nextCq(final CompletionChannel channel)
        throws InterruptedException
    {
        final CompletionQueue cq = channel.getCqEvent(-1, TimeUnit.SECONDS);
        if (cq != null)
        {
            cq.ackEvents(1);
        }
        return cq;
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

    private static void closeChannel(final DeviceChannel device)
    {
        Teardown.quietly(LOG, System.Logger.Level.WARNING, "closing a completion channel failed",
            device.channel::close);
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

    /** A device's completion channel, the thread that waits on it (null when the loop does) and its holds. */
    private static final class DeviceChannel
    {
        final CompletionChannel channel;
        final Thread thread;
        int holds;

        DeviceChannel(final CompletionChannel channel, final Thread thread)
        {
            this.channel = channel;
            this.thread = thread;
        }
    }
}
