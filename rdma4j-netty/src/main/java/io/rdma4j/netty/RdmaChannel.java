package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.util.concurrent.Future;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.PortSpace;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A byte stream over an RC connection of the connection manager: Netty's {@code SocketChannel} role for RDMA.
 * Register it on an event loop of a {@code MultiThreadIoEventLoopGroup} made with {@link RdmaIoHandler#newFactory()}.
 * <p>
 * Outgoing {@link ByteBuf}s are cut into SENDs of at most {@link RdmaChannelOption#BUFFER_SIZE} bytes (the peer's,
 * if smaller); the small writes of one flush are copied together into as few SENDs as they fill, and a flush's
 * SENDs are posted as one chain. A buffer of an {@link RdmaByteBufAllocator} (the channel's {@code ALLOCATOR} by
 * default) of 1 KiB or more, or a slice, duplicate or composite component of one, goes out without a copy: its SENDs read it in place and the channel
 * holds a reference to it until they complete. Other buffers are copied into the channel's registered send
 * buffers. Either way a write's promise completes once its SENDs are posted, as a socket's completes once the
 * kernel has the bytes; closing waits (up to five seconds) for posted SENDs to complete before it disconnects, and
 * a held buffer is released at its SEND's completion, flushed or not, or when the connection is torn down. Message
 * boundaries are not kept: it is a stream. Flow control is by credits ({@code RdmaEndpoint}): a peer that does
 * not read stops this side's SENDs, and the bytes wait in the outbound buffer, where
 * {@code WRITE_BUFFER_WATER_MARK} turns the channel unwritable. A peer cannot make it hold without bound: past
 * {@link RdmaChannelOption#MAX_OUTBOUND_BYTES} a write fails at once, and data that waits
 * {@link RdmaChannelOption#CREDIT_TIMEOUT_MILLIS} for credits fails the connection, both with an
 * {@link RdmaLimitException}; a credit update beyond the peer's receives fails it too. Any error of the channel's
 * read or write closes this channel alone, never its event loop.
 * <p>
 * Failures are what socket users expect: {@link ConnectException} when the peer refuses (no listener, or a
 * reject), {@link NoRouteToHostException} when the address or route does not resolve,
 * {@link ConnectTimeoutException} after {@code CONNECT_TIMEOUT_MILLIS}, {@link ClosedChannelException} for writes
 * after close, and an {@link IOException} through {@code exceptionCaught} when a work request fails.
 * <p>
 * {@code SO_KEEPALIVE} is what a socket's is: a connection silent for
 * {@link RdmaChannelOption#KEEPALIVE_IDLE_MILLIS} probes its peer, and fails when the probe's retries run out, so
 * a peer that vanished is found even by a side with nothing to send.
 */
public class RdmaChannel extends AbstractRdmaChannel implements CmSink
{
    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    private static final int DEFAULT_RESOLVE_TIMEOUT_MS = 2000;

    private enum State
    {
        NEW, CONNECTING, ACCEPTING, ACTIVE, CLOSED
    }

    private final RdmaChannelConfig config;
    private final byte[] peerData;
    /** Run once this channel's id is closed: a request's id lives on its listener loop's event channel. */
    private final Runnable idClosed;
    private final Object earlyLock = new Object();
    private List<CmNotice> early = new ArrayList<>();
    private boolean loopReady;

    private volatile State state;
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress remote;
    private CmId id;
    private RdmaEndpoint endpoint;
    private InetSocketAddress bindAddress;
    private ChannelPromise connectPromise;
    private Future<?> connectTimeout;
    private Future<?> keepAlive;
    /** The credit timeout the loop's {@link CreditWatch} watches this connection with; 0 while it does not. */
    private int creditTimeoutMs;
    private boolean peerGone;
    /** Bytes the flush being written took into SENDs. */
    private long written;
    /** The flush being written stopped for credits or slots. */
    private boolean flushStopped;
    private final ChannelOutboundBuffer.MessageProcessor takeFlushed = this::takeFlushed;

    /**
     * A channel that connects ({@code Bootstrap}).
     */
    public RdmaChannel()
    {
        super(null);
        this.config = new RdmaChannelConfig(this, this::autoReadCleared);
        this.peerData = null;
        this.idClosed = Teardown.NOTHING;
        this.state = State.NEW;
    }

    /**
     * A connection request taken by a listener; it is accepted once registered.
     *
     * @param parent   the listener.
     * @param id       the request's id, whose context is to be this channel.
     * @param peerData the request's private data.
     * @param idClosed what to run, once, when the id is closed, on whichever thread closes it.
     */
    RdmaChannel(final RdmaServerChannel parent, final CmId id, final byte[] peerData, final Runnable idClosed)
    {
        super(parent);
        this.config = new RdmaChannelConfig(this, this::autoReadCleared);
        this.peerData = peerData;
        this.idClosed = idClosed;
        this.id = id;
        this.local = id.localAddress();
        this.remote = id.peerAddress();
        this.state = State.ACCEPTING;
    }

    @Override
    public RdmaChannelConfig config()
    {
        return config;
    }

    @Override
    public boolean isOpen()
    {
        return state != State.CLOSED;
    }

    @Override
    public boolean isActive()
    {
        return state == State.ACTIVE;
    }

    @Override
    public ChannelMetadata metadata()
    {
        return METADATA;
    }

    @Override
    public RdmaServerChannel parent()
    {
        return (RdmaServerChannel)super.parent();
    }

    @Override
    public InetSocketAddress localAddress()
    {
        return (InetSocketAddress)super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress()
    {
        return (InetSocketAddress)super.remoteAddress();
    }

    @Override
    protected AbstractUnsafe newUnsafe()
    {
        return new StreamUnsafe();
    }

    @Override
    RdmaEndpoint endpoint()
    {
        return endpoint;
    }

    /**
     * @return the connection-manager id, or null before a connect made it; on the loop.
     */
    CmId cmId()
    {
        return id;
    }

    @Override
    protected SocketAddress localAddress0()
    {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0()
    {
        return remote;
    }

    /** Registered: the events that came before run now, and a connection request is accepted. */
    @Override
    void registered()
    {
        final List<CmNotice> before;
        synchronized (earlyLock)
        {
            loopReady = true;
            before = early;
            early = null;
        }
        if (state == State.ACCEPTING)
        {
            accept();
        }
        for (final CmNotice notice : before)
        {
            onCm(notice);
        }
    }

    private void accept()
    {
        try
        {
            // a request that is not this transport's costs no QP
            final RdmaEndpoint.PeerReceives peer = RdmaEndpoint.peerReceives(peerData);
            // a few receives until the connection is established: a request that never completes holds little
            endpoint = new RdmaEndpoint(registration(), id, config.getReceiveBuffers(),
                RdmaEndpoint.HALF_OPEN_RECEIVES, config.getBufferSize(), config.getSendBuffers());
            endpoint.onIdClosed(idClosed);
            endpoint.peer(peer);
            id.accept(endpoint.connParam(config.getRetryCount()));
        }
        catch (final IOException | RuntimeException | OutOfMemoryError ex)
        {
            pipeline().fireExceptionCaught(ex);
            closeNow();
        }
    }

    @Override
    public void cmEvent(final CmNotice notice)
    {
        synchronized (earlyLock)
        {
            if (!loopReady)
            {
                early.add(notice);
                return;
            }
        }
        // to this channel's handle, on its loop: an accepted id's events come on the listener's
        toRegistration(notice);
    }

    @Override
    void cmReady(final CmNotice notice)
    {
        onCm(notice);
    }

    private void onCm(final CmNotice notice)
    {
        final State current = state;
        if (current == State.CLOSED)
        {
            // a closed channel's endpoint lingers on its completions alone
            return;
        }
        final CmEventType type = notice.type();
        try
        {
            switch (type)
            {
                case ADDR_RESOLVED ->
                {
                    if (current == State.CONNECTING)
                    {
                        endpoint = new RdmaEndpoint(registration(), id, config.getReceiveBuffers(),
                            config.getReceiveBuffers(), config.getBufferSize(), config.getSendBuffers());
                        id.resolveRoute(resolveTimeoutMs());
                    }
                }
                case ROUTE_RESOLVED ->
                {
                    if (current == State.CONNECTING)
                    {
                        id.connect(endpoint.connParam(config.getRetryCount()));
                    }
                }
                case ESTABLISHED -> established(current, notice);
                case DISCONNECTED -> peerDisconnected();
                case ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, REJECTED, CONNECT_ERROR -> connectFailed(current, notice);
                case DEVICE_REMOVAL ->
                {
                    pipeline().fireExceptionCaught(new IOException("the RDMA device was removed"));
                    closeNow();
                }
                default ->
                {
                    // TIMEWAIT_EXIT, ADDR_CHANGE and the like change nothing for a stream
                }
            }
        }
        catch (final IOException | RuntimeException | OutOfMemoryError ex)
        {
            if (current == State.CONNECTING)
            {
                failConnect(ex instanceof IOException io ? io : connectException(ex));
            }
            else
            {
                pipeline().fireExceptionCaught(ex);
                closeNow();
            }
        }
    }

    private void established(final State current, final CmNotice notice) throws IOException
    {
        if (current == State.CONNECTING)
        {
            endpoint.peer(RdmaEndpoint.peerReceives(notice.privateData()));
        }
        else if (current != State.ACCEPTING)
        {
            return;
        }
        endpoint.established();
        local = id.localAddress();
        remote = id.peerAddress();
        state = State.ACTIVE;
        cancelConnectTimeout();
        final ChannelPromise promise = connectPromise;
        connectPromise = null;
        if (promise != null && !promise.trySuccess())
        {
            // the user gave up on it: a connection nobody waits for is closed at once
            closeNow();
            return;
        }
        if (config.isKeepAlive())
        {
            final long idle = config.getKeepAliveIdleMillis();
            keepAlive = eventLoop().scheduleWithFixedDelay(this::keepAliveTick, idle, idle, TimeUnit.MILLISECONDS);
        }
        creditTimeoutMs = config.getCreditTimeoutMillis();
        if (creditTimeoutMs > 0)
        {
            // the loop's one task looks, not one per wait: a wait for credits allocates nothing
            handler().creditWatch().watch(this, creditTimeoutMs);
        }
        // the head of the pipeline starts reading if AUTO_READ is on
        pipeline().fireChannelActive();
        endpointReadable();
    }

    private void keepAliveTick()
    {
        if (state == State.ACTIVE && endpoint.silentSinceLastLook())
        {
            endpoint.probe();
        }
    }

    /** The loop's {@link CreditWatch} looks: a connection starved of credits past its timeout fails. */
    void creditWatchTick()
    {
        final int timeoutMs = creditTimeoutMs;
        if (state != State.ACTIVE)
        {
            return;
        }
        final ChannelOutboundBuffer out = unsafe().outboundBuffer();
        final long waited = endpoint.starvedNanos(System.nanoTime());
        if (out != null && !out.isEmpty() && waited >= TimeUnit.MILLISECONDS.toNanos(timeoutMs))
        {
            fail(new RdmaLimitException("the peer " + remote + " returned no credits for " +
                TimeUnit.NANOSECONDS.toMillis(waited) + " ms with " + out.totalPendingWriteBytes() +
                " bytes to send: past CREDIT_TIMEOUT_MILLIS " + timeoutMs));
        }
    }

    private void connectFailed(final State current, final CmNotice notice)
    {
        final InetSocketAddress peer = remote;
        final String what = notice.type().description() + " (" + notice.description() + ")";
        if (current == State.CONNECTING)
        {
            failConnect(switch (notice.type())
            {
                case ADDR_ERROR, ROUTE_ERROR -> new NoRouteToHostException("no route to " + peer + ": " + what);
                case REJECTED -> new ConnectException("connection refused by " + peer + ": " + what);
                default -> new ConnectException("cannot connect to " + peer + ": " + what);
            });
        }
        else
        {
            closeNow();
        }
    }

    @Override
    void failPending(final Throwable cause)
    {
        final ChannelPromise promise = connectPromise;
        if (promise != null)
        {
            cancelConnectTimeout();
            connectPromise = null;
            promise.tryFailure(cause instanceof IOException ? cause : connectException(cause));
        }
    }

    private void failConnect(final IOException cause)
    {
        cancelConnectTimeout();
        final ChannelPromise promise = connectPromise;
        connectPromise = null;
        if (promise != null)
        {
            promise.tryFailure(cause);
        }
        closeNow();
    }

    private static ConnectException connectException(final Throwable cause)
    {
        final ConnectException ex = new ConnectException(cause.getMessage());
        ex.initCause(cause);
        return ex;
    }

    private void cancelConnectTimeout()
    {
        if (connectTimeout != null)
        {
            connectTimeout.cancel(false);
            connectTimeout = null;
        }
    }

    private void peerDisconnected()
    {
        peerGone = true;
        if (endpoint != null && state == State.ACTIVE)
        {
            // what the peer sent before its disconnect request is in the CQ already: let the reader have it
            drainCompletions();
            if (state == State.ACTIVE && endpoint.pending() > 0)
            {
                return;
            }
        }
        closeNow();
    }

    private int resolveTimeoutMs()
    {
        final int connectTimeoutMs = config.getConnectTimeoutMillis();
        return connectTimeoutMs > 0 ? Math.min(connectTimeoutMs, DEFAULT_RESOLVE_TIMEOUT_MS) :
            DEFAULT_RESOLVE_TIMEOUT_MS;
    }

    @Override
    protected void doBind(final SocketAddress localAddress)
    {
        if (!(localAddress instanceof InetSocketAddress address))
        {
            throw new UnsupportedAddressTypeException();
        }
        // the source address of the connect to come; the connection manager binds it when it resolves
        bindAddress = address;
    }

    @Override
    protected void doDisconnect()
    {
        closeNow();
    }

    @Override
    protected void doClose()
    {
        final State was = state;
        state = State.CLOSED;
        cancelConnectTimeout();
        if (keepAlive != null)
        {
            keepAlive.cancel(false);
            keepAlive = null;
        }
        if (creditTimeoutMs > 0 && handler() != null)
        {
            handler().creditWatch().unwatch(this);
            creditTimeoutMs = 0;
        }
        final ChannelPromise promise = connectPromise;
        connectPromise = null;
        if (promise != null)
        {
            promise.tryFailure(new ClosedChannelException());
        }
        if (was == State.CLOSED)
        {
            return;
        }
        if (parent() != null)
        {
            parent().childClosed();
        }
        if (endpoint != null)
        {
            // from here the endpoint closes the id, once its SENDs have completed
            endpoint.close(peerGone);
        }
        else if (id != null)
        {
            Teardown.closeId(id, was == State.ACCEPTING);
            idClosed.run();
        }
    }

    @Override
    Object readMessage(final int length)
    {
        final ByteBuf buf = config.getAllocator().ioBuffer(length);
        endpoint.read(buf);
        return buf;
    }

    @Override
    boolean delivered()
    {
        if (endpoint.pending() == 0 && peerGone)
        {
            closeNow();
            return false;
        }
        endpoint.maybeSendUpdate();
        return true;
    }

    /**
     * @return SENDs whose bytes were copied, SENDs that read a registered buffer in place, SENDs signaled (of
     *         either kind, and credit updates), and chains of receives posted again, so far; on the event loop.
     */
    long[] sendCounts()
    {
        return endpoint == null ? new long[4] : new long[] {endpoint.copiedSends(), endpoint.inPlaceSends(),
            endpoint.signaledSends(), endpoint.receiveChains()};
    }

    @Override
    protected Object filterOutboundMessage(final Object msg) throws RdmaLimitException
    {
        if (msg instanceof ByteBuf buf)
        {
            final ChannelOutboundBuffer out = unsafe().outboundBuffer();
            final long pending = out == null ? 0 : out.totalPendingWriteBytes();
            final int max = config.getMaxOutboundBytes();
            if (pending > 0 && pending + buf.readableBytes() > max)
            {
                // failed as a write to a closed channel fails (Netty releases the buffer); the channel stays up
                throw new RdmaLimitException("the outbound buffer holds " + pending + " bytes: " +
                    buf.readableBytes() + " more would pass MAX_OUTBOUND_BYTES " + max);
            }
            return msg;
        }
        throw new UnsupportedOperationException("an rdma4j channel writes ByteBufs only, not " +
            msg.getClass().getName());
    }

    /**
     * Every flushed message the endpoint takes, in its SENDs of this flush; posted in one chain, and only then taken
     * off the outbound buffer, so that a write's promise completes once its SENDs are posted.
     */
    @Override
    void write(final ChannelOutboundBuffer in)
    {
        flushStopped = false;
        // taking the bytes off may make the channel writable, and a handler write and flush more at once, which
        // Netty's flush leaves to this call (it is in its flush already)
        while (!flushStopped && !in.isEmpty())
        {
            written = 0;
            try
            {
                in.forEachFlushedMessage(takeFlushed);
            }
            catch (final RuntimeException | Error ex)
            {
                throw ex;
            }
            catch (final Exception ex)
            {
                // the processor throws nothing checked
                throw new IllegalStateException(ex);
            }
            endpoint.flushSends();
            if (written == 0)
            {
                // nothing flushed was left to take (empty buffers only), or nothing could go
                in.removeBytes(0);
                break;
            }
            in.removeBytes(written);
        }
        endpoint.maybeSendUpdate();
    }

    /**
     * Take one flushed message's bytes into the endpoint's SENDs.
     *
     * @return false once the endpoint takes no more (credits or slots ran out).
     */
    private boolean takeFlushed(final Object msg)
    {
        final ByteBuf buf = (ByteBuf)msg;
        final int end = buf.writerIndex();
        int at = buf.readerIndex();
        while (at < end)
        {
            final int taken = endpoint.send(buf, at, end - at);
            if (taken == 0)
            {
                // records that the flush goes on once credits or slots come back
                canSend();
                flushStopped = true;
                return false;
            }
            at += taken;
            written += taken;
        }
        return true;
    }

    /** Netty's unsafe for this channel: it connects. */
    private final class StreamUnsafe extends RdmaUnsafe
    {
        @Override
        public void connect(final SocketAddress remoteAddress, final SocketAddress localAddress,
            final ChannelPromise promise)
        {
            if (!promise.setUncancellable() || !ensureOpen(promise))
            {
                return;
            }
            if (state != State.NEW)
            {
                promise.setFailure(state == State.CONNECTING ? new ConnectionPendingException() :
                    new AlreadyConnectedException());
                return;
            }
            if (!(remoteAddress instanceof InetSocketAddress peer) ||
                localAddress != null && !(localAddress instanceof InetSocketAddress))
            {
                promise.setFailure(new UnsupportedAddressTypeException());
                return;
            }
            final InetSocketAddress source = localAddress != null ? (InetSocketAddress)localAddress : bindAddress;
            remote = peer;
            try
            {
                id = handler().devices().eventChannel().createId(RdmaChannel.this, PortSpace.TCP);
                state = State.CONNECTING;
                connectPromise = promise;
                id.resolveAddr(source, peer, resolveTimeoutMs());
            }
            catch (final RuntimeException ex)
            {
                failConnect(connectException(ex));
                return;
            }
            final int timeoutMs = config.getConnectTimeoutMillis();
            if (timeoutMs > 0)
            {
                connectTimeout = eventLoop().schedule(() ->
                {
                    if (state == State.CONNECTING)
                    {
                        failConnect(new ConnectTimeoutException("connection to " + peer + " timed out after " +
                            timeoutMs + " ms"));
                    }
                }, timeoutMs, TimeUnit.MILLISECONDS);
            }
        }
    }
}
