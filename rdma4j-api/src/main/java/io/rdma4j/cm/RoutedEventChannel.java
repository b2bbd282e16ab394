package io.rdma4j.cm;

import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WaitDriver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One event channel over several engines: each id takes its engine when it is bound, resolved or made to listen
 * ({@link CmRouting}), on that engine's own channel, made when first needed. {@link #getEvent} waits on the
 * engines' channels in turn, in short slices when there are several, and hands out their events with the
 * routed ids in place of the engines'. In a {@link io.rdma4j.verbs.WaitSet} it is ready when an engine's channel
 * is: the set's watcher is passed to each engine's channel, those made later included, and told when one is made,
 * so that a set sleeping in {@code poll(2)} takes in a native channel's descriptor made after the set took this one.
 */
final class RoutedEventChannel implements EventChannel
{
    /** The longest wait on one engine's channel while another may have an event: bounds the CM's added latency. */
    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final CmRouting routing;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition engineAdded = lock.newCondition();
    private final Map<RdmaProvider, EventChannel> engines = new LinkedHashMap<>();
    private final Map<CmId, RoutedCmId> byEngineId = new ConcurrentHashMap<>();
    private final Set<RoutedCmId> ids = ConcurrentHashMap.newKeySet();
    private volatile List<EventChannel> channels = List.of();
    private volatile boolean closed;
    /** A WaitSet's watcher, given to every engine's channel; guarded by {@code lock}. */
    private Runnable watcher;

    RoutedEventChannel(final CmRouting routing)
    {
        this.routing = routing;
    }

    CmRouting routing()
    {
        return routing;
    }

    /**
     * @return the engines' channels made so far, in the order they were first needed.
     */
    List<EventChannel> engineChannels()
    {
        return channels;
    }

    @Override
    public CmId createId(final Object context, final PortSpace portSpace)
    {
        RdmaException.check(!closed, Errno.EINVAL, "createId: the event channel is closed");
        final RoutedCmId id = new RoutedCmId(this, context, portSpace);
        ids.add(id);
        return id;
    }

    CmId createEngineId(final RoutedCmId routed, final RdmaProvider provider, final Object context,
        final PortSpace portSpace)
    {
        final CmId engineId = engineChannel(provider).createId(context, portSpace);
        byEngineId.put(engineId, routed);
        return engineId;
    }

    private EventChannel engineChannel(final RdmaProvider provider)
    {
        Runnable added = null;
        EventChannel channel;
        lock.lock();
        try
        {
            RdmaException.check(!closed, Errno.EINVAL, "the event channel is closed");
            channel = engines.get(provider);
            if (channel == null)
            {
                channel = provider.createEventChannel();
                if (watcher != null)
                {
                    channel.watch(watcher);
                }
                engines.put(provider, channel);
                channels = List.copyOf(engines.values());
                engineAdded.signalAll();
                added = watcher;
            }
        }
        finally
        {
            lock.unlock();
        }
        if (added != null)
        {
            // the set looks again: at this channel's readiness, and at its descriptor, if it has one
            added.run();
        }
        return channel;
    }

    void forget(final CmId id)
    {
        if (id instanceof final RoutedCmId routed)
        {
            ids.remove(routed);
        }
        else
        {
            byEngineId.remove(id);
        }
    }

    @Override
    public boolean isReady()
    {
        for (final EventChannel channel : channels)
        {
            if (channel.isReady())
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public void watch(final Runnable setWatcher)
    {
        lock.lock();
        try
        {
            // every engine's channel first, so that one that cannot be watched leaves this one unwatched
            for (final EventChannel channel : engines.values())
            {
                channel.watch(setWatcher);
            }
            watcher = setWatcher;
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * @return the descriptor of the first engine's channel that has one (the native one's), or -1.
     */
    @Override
    public int descriptor()
    {
        for (final EventChannel channel : channels)
        {
            final int fd = channel.descriptor();
            if (fd >= 0)
            {
                return fd;
            }
        }
        return -1;
    }

    /**
     * @return the driver of the engine's channel whose {@link #descriptor()} this gives, else the first engine's
     *     channel's driver, or null.
     */
    @Override
    public WaitDriver waitDriver()
    {
        WaitDriver first = null;
        for (final EventChannel channel : channels)
        {
            final WaitDriver driver = channel.waitDriver();
            if (driver != null && channel.descriptor() >= 0)
            {
                return driver;
            }
            if (first == null)
            {
                first = driver;
            }
        }
        return first;
    }

    @Override
    public CmEvent getEvent(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        // a negative timeout waits for ever, as the engines' own channels do: a deadline decades away, which the
        // slices below still cut into short waits on each engine
        final long wait = timeout < 0 ? Long.MAX_VALUE / 4 : Math.min(unit.toNanos(timeout), Long.MAX_VALUE / 4);
        final long deadline = System.nanoTime() + wait;
        while (true)
        {
            RdmaException.check(!closed, Errno.EINVAL, "getEvent: the event channel is closed");
            final List<EventChannel> current = channels;
            long left = deadline - System.nanoTime();
            if (current.isEmpty())
            {
                // no id has an engine yet: nothing can happen until one has
                if (left <= 0 || !awaitEngine(left))
                {
                    return null;
                }
                continue;
            }
            // with one engine a longer wait is fine, but an engine added meanwhile must not wait behind it
            final long slice = current.size() == 1 ? SLICE_NANOS * 5 : SLICE_NANOS;
            for (final EventChannel channel : current)
            {
                left = deadline - System.nanoTime();
                final CmEvent event = channel.getEvent(Math.max(0, Math.min(slice, left)), TimeUnit.NANOSECONDS);
                if (event != null)
                {
                    return routed(event);
                }
            }
            if (deadline - System.nanoTime() <= 0)
            {
                return null;
            }
        }
    }

    private boolean awaitEngine(final long nanos) throws InterruptedException
    {
        lock.lock();
        try
        {
            long left = nanos;
            while (channels.isEmpty() && !closed)
            {
                if (left <= 0)
                {
                    return false;
                }
                left = engineAdded.awaitNanos(left);
            }
            return true;
        }
        finally
        {
            lock.unlock();
        }
    }

    private CmEvent routed(final CmEvent event)
    {
        RoutedCmId id = event.id() == null ? null : byEngineId.get(event.id());
        if (id == null && event.type() == CmEventType.CONNECT_REQUEST)
        {
            // the engine made a new id for the request: it is on that engine from the start
            id = new RoutedCmId(this, event.id());
            byEngineId.put(event.id(), id);
            ids.add(id);
        }
        final CmId listenId = event.listenId() == null ? null : byEngineId.get(event.listenId());
        return new RoutedCmEvent(event, id != null ? id : event.id(), listenId != null ? listenId : event.listenId());
    }

    /**
     * @throws RdmaException EBUSY while ids made on it are not destroyed.
     */
    @Override
    public void close()
    {
        final List<EventChannel> toClose;
        lock.lock();
        try
        {
            if (closed)
            {
                return;
            }
            if (!ids.isEmpty())
            {
                throw new RdmaException(Errno.EBUSY, "the event channel still has " + ids.size() +
                    " ids: destroy them first");
            }
            closed = true;
            toClose = new ArrayList<>(engines.values());
            engineAdded.signalAll();
        }
        finally
        {
            lock.unlock();
        }
        for (final EventChannel channel : toClose)
        {
            channel.close();
        }
    }
}
