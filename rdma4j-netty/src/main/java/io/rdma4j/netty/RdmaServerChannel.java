package io.rdma4j.netty;

import io.netty.channel.AbstractServerChannel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.PortSpace;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A listener of the connection manager ({@code rdma_listen}): Netty's {@code ServerSocketChannel} role for RDMA.
 * Each connection request becomes an {@link RdmaChannel}, accepted once the child is registered on its event
 * loop (whose handler owns the connection's completion queue); the request's events keep arriving on this
 * channel's event loop, which hands them to the child's.
 * <p>
 * A request costs little until its connection is established: its child's QP and two receive buffers, not the
 * buffers of {@link RdmaChannelOption#RECEIVE_BUFFERS} and {@link RdmaChannelOption#SEND_BUFFERS}, which are made
 * at the establishment. {@code SO_BACKLOG} bounds the requests not yet established, as a socket's bounds its SYN
 * queue; {@link RdmaChannelOption#MAX_CONNECTIONS} bounds the children open at once, established or not.
 */
public class RdmaServerChannel extends AbstractServerChannel implements CmSink
{
    private static final int DEFAULT_BACKLOG = 128;
    private static final System.Logger LOG = System.getLogger(RdmaServerChannel.class.getName());

    private final ServerConfig config = new ServerConfig();
    private final ArrayDeque<RdmaChannel> accepted = new ArrayDeque<>();
    private volatile boolean open = true;
    private final HandlerRegistration registration = new HandlerRegistration();
    private volatile CmId listener;
    private boolean readPending;
    private boolean deliverScheduled;
    /** Children open: counted up on this loop, down on each child's. */
    private final AtomicInteger children = new AtomicInteger();
    /** Requests rejected for {@link RdmaChannelOption#MAX_CONNECTIONS}; written on this loop alone. */
    private volatile long refused;

    /**
     * A listener, bound by {@code ServerBootstrap.bind}.
     */
    public RdmaServerChannel()
    {
    }

    @Override
    public DefaultChannelConfig config()
    {
        return config;
    }

    @Override
    public boolean isOpen()
    {
        return open;
    }

    @Override
    public boolean isActive()
    {
        return open && listener != null;
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return (InetSocketAddress)super.localAddress();
    }

    @Override
    protected AbstractUnsafe newUnsafe()
    {
        return new ServerUnsafe();
    }

    @Override
    protected boolean isCompatible(final EventLoop loop)
    {
        return RdmaIoHandle.compatible(loop);
    }

    @Override
    protected SocketAddress localAddress0()
    {
        final CmId current = listener;
        return current == null ? null : current.localAddress();
    }

    @Override
    protected void doRegister(final ChannelPromise promise)
    {
        registration.register(eventLoop(), (ServerUnsafe)unsafe(), promise, () ->
        {
            // the listener's id is made at bind
        });
    }

    @Override
    protected void doDeregister()
    {
        registration.cancel();
    }

    @Override
    protected void doBind(final SocketAddress localAddress) throws Exception
    {
        if (!(localAddress instanceof InetSocketAddress address))
        {
            throw new UnsupportedAddressTypeException();
        }
        final CmId made = registration.handler().devices().eventChannel().createId(this, PortSpace.TCP);
        listener = CmBinding.bind(made, address, id -> id.listen(config.backlog));
    }

    @Override
    protected void doClose()
    {
        open = false;
        final CmId id = listener;
        if (id != null)
        {
            // requests nobody took from the event channel are rejected with it
            Teardown.closeId(id, false);
        }
        RdmaChannel child;
        while ((child = accepted.poll()) != null)
        {
            child.unsafe().closeForcibly();
        }
    }

    @Override
    protected void doBeginRead()
    {
        if (!open)
        {
            return;
        }
        readPending = true;
        deliver();
    }

    /**
     * {@inheritDoc}
     * <p>
     * The listener's id is made on this channel's event loop, so its events come here on that loop, and go to
     * its handle; a request that finds the listener deregistered is refused.
     */
    @Override
    public void cmEvent(final CmNotice notice)
    {
        if (!registration.cmEvent(notice) && notice.type() == CmEventType.CONNECT_REQUEST)
        {
            Teardown.closeId(notice.id(), true);
        }
    }

    /**
     * A connection request became a child, to be read; on the loop, from the listener's handle.
     */
    private void connectRequest(final CmNotice notice)
    {
        if (notice.type() != CmEventType.CONNECT_REQUEST)
        {
            return;
        }
        if (!open)
        {
            Teardown.closeId(notice.id(), true);
            return;
        }
        final int max = config.maxConnections;
        if (children.get() >= max)
        {
            refused++;
            LOG.log(System.Logger.Level.DEBUG, () -> "rejected a connection request from " +
                notice.id().peerAddress() + ": " + max + " connections are open, MAX_CONNECTIONS");
            Teardown.closeId(notice.id(), true);
            return;
        }
        children.incrementAndGet();
        // the request's id is this loop's event channel's, which waits for the child to close it
        final Runnable idClosed = registration.handler().devices().adoptId();
        final RdmaChannel child = new RdmaChannel(this, notice.id(), notice.privateData(), idClosed);
        // from now on the request's events go to the child, which takes them to its own event loop
        notice.id().context(child);
        accepted.add(child);
        if (readPending || config.isAutoRead())
        {
            deliver();
        }
    }

    /** A child closed; on its loop. */
    void childClosed()
    {
        children.decrementAndGet();
    }

    /**
     * @return children open now, established or not.
     */
    public int connections()
    {
        return children.get();
    }

    /**
     * @return connection requests rejected because {@link RdmaChannelOption#MAX_CONNECTIONS} children were open.
     */
    public long refusedConnections()
    {
        return refused;
    }

    private void deliver()
    {
        if (accepted.isEmpty())
        {
            return;
        }
        final RecvByteBufAllocator.Handle allocHandle = unsafe().recvBufAllocHandle();
        allocHandle.reset(config);
        boolean read = false;
        RdmaChannel child;
        while ((readPending || config.isAutoRead()) && (child = accepted.poll()) != null)
        {
            readPending = false;
            read = true;
            allocHandle.incMessagesRead(1);
            pipeline().fireChannelRead(child);
            if (!allocHandle.continueReading())
            {
                break;
            }
        }
        if (read)
        {
            allocHandle.readComplete();
            pipeline().fireChannelReadComplete();
        }
        if (!accepted.isEmpty() && config.isAutoRead() && !deliverScheduled)
        {
            deliverScheduled = true;
            eventLoop().execute(() ->
            {
                deliverScheduled = false;
                deliver();
            });
        }
    }

    /**
     * Netty's options, {@code SO_BACKLOG} (the requests the connection manager keeps waiting) and
     * {@link RdmaChannelOption#MAX_CONNECTIONS}.
     */
    private final class ServerConfig extends AbstractRdmaConfig
    {
        private volatile int backlog = DEFAULT_BACKLOG;
        private volatile int maxConnections = Integer.MAX_VALUE;

        ServerConfig()
        {
            super(RdmaServerChannel.this, new ServerChannelRecvByteBufAllocator(), () -> readPending = false);
            option(ChannelOption.SO_BACKLOG, () -> backlog, requested ->
            {
                if (requested < 1)
                {
                    throw new IllegalArgumentException("SO_BACKLOG " + requested + " is below 1");
                }
                backlog = requested;
            });
            option(RdmaChannelOption.MAX_CONNECTIONS, () -> maxConnections,
                requested -> maxConnections = inRange("MAX_CONNECTIONS", requested, 1, Integer.MAX_VALUE));
        }
    }

    /** Netty's unsafe for the listener: it does not connect, and its handle takes connection requests. */
    private final class ServerUnsafe extends AbstractUnsafe implements RdmaIoHandle
    {
        @Override
        public void handle(final IoRegistration ioRegistration, final IoEvent event)
        {
            if (event instanceof CmNotice notice)
            {
                connectRequest(notice);
            }
        }

        @Override
        public void closeNow()
        {
            close(voidPromise());
        }

        @Override
        public void connect(final SocketAddress remoteAddress, final SocketAddress localAddress,
            final ChannelPromise promise)
        {
            safeSetFailure(promise, new UnsupportedOperationException("a listener does not connect"));
        }
    }
}
