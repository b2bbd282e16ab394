package io.rdma4j.cm;

import io.rdma4j.spi.RdmaProvider;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Device;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.WaitDriver;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A provider for the routing tests: it claims the addresses it is given, records the ids made on its channels
 * and what was asked of them, and hands out the events a test queues.
 */
final class FakeEngine implements RdmaProvider
{
    final String name;
    final List<InetAddress> owned;
    final boolean hasDevices;
    final List<FakeChannel> channels = new ArrayList<>();

    FakeEngine(final String name, final boolean hasDevices, final InetAddress... owned)
    {
        this.name = name;
        this.hasDevices = hasDevices;
        this.owned = List.of(owned);
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public int priority()
    {
        return 0;
    }

    @Override
    public List<Device> devices()
    {
        return List.of();
    }

    @Override
    public String unavailableReason()
    {
        return hasDevices ? null : name + " has no device";
    }

    @Override
    public EventChannel createEventChannel()
    {
        final FakeChannel channel = new FakeChannel();
        channels.add(channel);
        return channel;
    }

    @Override
    public boolean ownsAddress(final InetAddress address)
    {
        return owned.contains(address);
    }

    final class FakeChannel implements EventChannel
    {
        final List<FakeId> ids = new ArrayList<>();
        final LinkedBlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
        boolean closed;
        /** What {@link #descriptor()} and {@link #waitDriver()} say: a native channel's, for the WaitSet tests. */
        int descriptor = -1;
        WaitDriver driver;
        volatile Runnable watcher;

        /** Queue an event and tell a watching set, as an engine's channel does. */
        void post(final CmEvent event)
        {
            events.add(event);
            final Runnable told = watcher;
            if (told != null)
            {
                told.run();
            }
        }

        @Override
        public boolean isReady()
        {
            return !events.isEmpty();
        }

        @Override
        public void watch(final Runnable setWatcher)
        {
            watcher = setWatcher;
        }

        @Override
        public int descriptor()
        {
            return descriptor;
        }

        @Override
        public WaitDriver waitDriver()
        {
            return driver;
        }

        @Override
        public FakeId createId(final Object context, final PortSpace portSpace)
        {
            final FakeId id = new FakeId(this, context, portSpace);
            ids.add(id);
            return id;
        }

        @Override
        public CmEvent getEvent(final long timeout, final TimeUnit unit) throws InterruptedException
        {
            return events.poll(timeout, unit);
        }

        @Override
        public void close()
        {
            closed = true;
        }

        FakeEngine engine()
        {
            return FakeEngine.this;
        }
    }

    static final class FakeId implements CmId
    {
        final FakeChannel channel;
        final PortSpace portSpace;
        final List<String> calls = new ArrayList<>();
        Object context;
        boolean closed;

        FakeId(final FakeChannel channel, final Object context, final PortSpace portSpace)
        {
            this.channel = channel;
            this.context = context;
            this.portSpace = portSpace;
        }

        @Override
        public EventChannel channel()
        {
            return channel;
        }

        @Override
        public Object context()
        {
            return context;
        }

        @Override
        public void context(final Object context)
        {
            this.context = context;
        }

        @Override
        public PortSpace portSpace()
        {
            return portSpace;
        }

        @Override
        public Context verbs()
        {
            return null;
        }

        @Override
        public QueuePair qp()
        {
            return null;
        }

        @Override
        public InetSocketAddress localAddress()
        {
            return null;
        }

        @Override
        public InetSocketAddress peerAddress()
        {
            return null;
        }

        @Override
        public void bindAddr(final InetSocketAddress address)
        {
            calls.add("bind " + address.getAddress().getHostAddress());
        }

        @Override
        public void resolveAddr(final InetSocketAddress source, final InetSocketAddress destination,
            final int timeoutMs)
        {
            calls.add("resolve " + destination.getAddress().getHostAddress());
        }

        @Override
        public void resolveRoute(final int timeoutMs)
        {
            calls.add("route");
        }

        @Override
        public void listen(final int backlog)
        {
            calls.add("listen");
        }

        @Override
        public QueuePair createQp(final ProtectionDomain pd, final QpInitAttr initAttr)
        {
            calls.add("createQp");
            return null;
        }

        @Override
        public void destroyQp()
        {
            calls.add("destroyQp");
        }

        @Override
        public void connect(final ConnParam param)
        {
            calls.add("connect");
        }

        @Override
        public void accept(final ConnParam param)
        {
            calls.add("accept");
        }

        @Override
        public void reject(final byte[] privateData)
        {
            calls.add("reject");
        }

        @Override
        public void disconnect()
        {
            calls.add("disconnect");
        }

        @Override
        public void joinMulticast(final InetSocketAddress group, final Object context)
        {
            calls.add("join " + group.getAddress().getHostAddress());
        }

        @Override
        public void joinMulticast(final InetSocketAddress group, final JoinFlags flags, final Object context)
        {
            calls.add("join " + group.getAddress().getHostAddress() + " " + flags);
        }

        @Override
        public void leaveMulticast(final InetSocketAddress group)
        {
            calls.add("leave " + group.getAddress().getHostAddress());
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }
}
