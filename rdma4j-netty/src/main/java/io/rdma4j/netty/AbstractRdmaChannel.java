package io.rdma4j.netty;

import io.netty.channel.AbstractChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.RecvByteBufAllocator;
import io.rdma4j.verbs.RdmaException;

import java.io.IOException;

/**
 * What {@link RdmaChannel} and {@link RdmaDatagramChannel} share: a channel over a {@link QpEndpoint}, pinned to
 * the first event loop it registers on (its endpoint's resources belong to that loop's handler), whose unsafe
 * takes its registration's {@link RdmaIoEvent}s: for {@link CqReady} it takes the endpoint's completions, hands
 * the received messages to its pipeline as far as reading is asked for ({@link RdmaUnsafe#readReady}, Netty's
 * read loop) and flushes again when the endpoint can take more.
 */
abstract class AbstractRdmaChannel extends AbstractChannel
{
    private static final System.Logger LOG = System.getLogger(AbstractRdmaChannel.class.getName());

    private final HandlerRegistration registration = new HandlerRegistration();
    private boolean readPending;
    private boolean inDeliver;
    private boolean deliverScheduled;
    private boolean writeBlocked;
    /** The flush stopped until the channel has read: see {@link #blockWritesUntilRead}. */
    private boolean writeBlockedOnRead;

    /**
     * @param parent the listener that accepted it, or null.
     */
    AbstractRdmaChannel(final Channel parent)
    {
        super(parent);
    }

    /**
     * @return the endpoint, or null before it is made.
     */
    abstract QpEndpoint endpoint();

    /**
     * Read the endpoint's oldest message.
     *
     * @param length its bytes, as the endpoint gave them.
     * @return what the pipeline reads.
     */
    abstract Object readMessage(int length);

    /**
     * Write what the outbound buffer holds, as far as {@link #canSend()} allows.
     *
     * @param in the outbound buffer.
     * @throws RdmaException if posting a SEND failed.
     */
    abstract void write(ChannelOutboundBuffer in);

    /**
     * A delivery has ended with the channel still active; anything to follow up before the rest is delivered.
     *
     * @return whether to go on: false once the channel closes.
     */
    boolean delivered()
    {
        return true;
    }

    /** Registered: the channel may make its id and endpoint. */
    void registered()
    {
        // nothing to do until bound or connected by default
    }

    /**
     * A connection-manager event of the channel's ids, through its registration; on the loop.
     *
     * @param notice the event.
     */
    abstract void cmReady(CmNotice notice);

    /**
     * @return the handler of the channel's event loop, once registered.
     */
    final RdmaIoHandler handler()
    {
        return registration.handler();
    }

    /**
     * @return the channel's registration, which its endpoint submits its CQ to; null unless registered.
     */
    final RdmaIoRegistration registration()
    {
        return registration.current();
    }

    /**
     * Take a connection-manager event to the channel's handle, on its loop.
     *
     * @param notice the event.
     * @return false if the channel is not registered (any more).
     */
    final boolean toRegistration(final CmNotice notice)
    {
        return registration.cmEvent(notice);
    }

    /**
     * {@code AUTO_READ} was turned off, on any thread: a read asked for by it is not asked for any more, and a flush
     * that waited for reads ({@link #blockWritesUntilRead}) goes on without them.
     */
    final void autoReadCleared()
    {
        readPending = false;
        if (isRegistered())
        {
            eventLoop().execute(this::resumeWritesAfterRead);
        }
    }

    @Override
    protected final boolean isCompatible(final EventLoop loop)
    {
        return RdmaIoHandle.compatible(loop);
    }

    @Override
    protected final void doRegister(final ChannelPromise promise)
    {
        if (handler() != null)
        {
            // the endpoint's resources belong to the first loop's handler
            promise.setFailure(new IllegalStateException("an rdma4j channel cannot move to another event loop"));
            return;
        }
        registration.register(eventLoop(), (RdmaIoHandle)unsafe(), promise, this::registered);
    }

    @Override
    protected final void doDeregister()
    {
        registration.cancel();
    }

    @Override
    protected final void doBeginRead()
    {
        if (!isOpen())
        {
            return;
        }
        readPending = true;
        if (!inDeliver)
        {
            rdmaUnsafe().readReady();
        }
    }

    private RdmaUnsafe rdmaUnsafe()
    {
        return (RdmaUnsafe)unsafe();
    }

    /**
     * @return whether the pipeline asks for reads: auto-read, or a read asked for and not yet given.
     */
    final boolean readWanted()
    {
        return readPending || config().isAutoRead();
    }

    /** Received messages wait: deliver them if reading is asked for. */
    final void endpointReadable()
    {
        if (isActive() && readWanted())
        {
            rdmaUnsafe().readReady();
        }
    }

    /**
     * Take the completions the endpoint's CQ holds now, as a {@link CqReady} would: the connection manager
     * reported the peer gone, and what the peer sent before its disconnect is in the CQ already.
     */
    final void drainCompletions()
    {
        rdmaUnsafe().takeCompletions(true);
    }

    @Override
    protected final void doWrite(final ChannelOutboundBuffer in) throws IOException
    {
        try
        {
            write(in);
        }
        catch (final RdmaException ex)
        {
            throw new IOException("posting a SEND failed: " + ex.getMessage(), ex);
        }
        catch (final Throwable ex)
        {
            // as an IOException, which Netty's flush answers by closing the channel; anything else would only
            // shut its output and leave the connection up
            throw new IOException("writing failed: " + ex, ex);
        }
    }

    /**
     * @return whether the endpoint takes a SEND now; if not, the flush goes on once it can.
     */
    final boolean canSend()
    {
        if (endpoint().canSend())
        {
            return true;
        }
        // the rest goes when credits or slots come back
        writeBlocked = true;
        return false;
    }

    /**
     * The flush stops until the channel has read what it received ({@link #resumeWritesAfterRead}) or the SENDs
     * posted complete, whichever comes first: a datagram channel whose datagrams come back to it.
     */
    final void blockWritesUntilRead()
    {
        writeBlocked = true;
        writeBlockedOnRead = true;
    }

    /** A delivery has ended: a flush that waited for it goes on. */
    final void resumeWritesAfterRead()
    {
        if (writeBlockedOnRead && isActive())
        {
            writeBlockedOnRead = false;
            writeBlocked = false;
            rdmaUnsafe().flushAgain();
        }
    }

    /**
     * Fail this channel alone: the cause goes to {@code exceptionCaught} and the channel closes, as Netty's own
     * transports do with an error of one channel's read or write, whatever it is; the loop and its other channels
     * go on.
     *
     * @param cause what went wrong.
     */
    final void fail(final Throwable cause)
    {
        if (!isOpen())
        {
            return;
        }
        try
        {
            failPending(cause);
            pipeline().fireExceptionCaught(cause);
        }
        finally
        {
            closeNow();
        }
    }

    /**
     * The channel fails with {@code cause}: a promise it holds for the user (a connect's) fails with it too, before
     * the close that follows would fail it with a bare {@code ClosedChannelException}, as Netty's epoll channel
     * fails its connect promise with the error that ended the connect.
     *
     * @param cause what went wrong.
     */
    void failPending(final Throwable cause)
    {
    }

    /** Close now, through the pipeline, unless closed already. */
    final void closeNow()
    {
        if (isOpen())
        {
            unsafe().close(unsafe().voidPromise());
        }
    }

    /**
     * Netty's unsafe for the channel, and what it registers with the {@link RdmaIoHandler}: its {@link #handle}
     * is where the loop's events for the channel arrive, and where its read loop starts.
     */
    abstract class RdmaUnsafe extends AbstractUnsafe implements RdmaIoHandle
    {
        @Override
        public final void handle(final IoRegistration registration, final IoEvent event)
        {
            if (event instanceof CqReady ready)
            {
                completionsReady(ready);
            }
            else if (event instanceof CmNotice notice)
            {
                cmReady(notice);
            }
        }

        @Override
        public final void closeNow()
        {
            close(voidPromise());
        }

        /**
         * The CQ has completions, the loop polls it busy, or the endpoint's linger ran out.
         */
        private void completionsReady(final CqReady ready)
        {
            if (ready.kind() == CqReady.Kind.EXPIRED)
            {
                final QpEndpoint endpoint = endpoint();
                if (endpoint != null)
                {
                    endpoint.forceClose();
                }
            }
            else if (takeCompletions(ready.kind() == CqReady.Kind.NOTIFIED))
            {
                ready.found();
            }
        }

        /**
         * Take the endpoint's completions and act on them: fail the channel, read what came, flush what waited
         * for slots or credits. A closed channel's endpoint only drains (a lingering one tears down at its last
         * SEND's completion).
         *
         * @param arm re-arm the CQ first.
         * @return whether a completion was taken.
         */
        final boolean takeCompletions(final boolean arm)
        {
            final QpEndpoint endpoint = endpoint();
            if (endpoint == null)
            {
                return false;
            }
            final int events = endpoint.takeCompletions(arm);
            if ((events & QpEndpoint.FAILED) != 0)
            {
                fail(endpoint.takeFailure());
            }
            else if (endpoint.isOpen())
            {
                try
                {
                    if ((events & QpEndpoint.READABLE) != 0)
                    {
                        endpointReadable();
                    }
                    if ((events & QpEndpoint.WRITABLE) != 0 && endpoint.isOpen())
                    {
                        writable();
                    }
                    if (endpoint.isOpen())
                    {
                        endpoint.completionsDelivered();
                    }
                }
                catch (final Throwable ex)
                {
                    // whatever one channel's delivery throws (OutOfMemoryError from its allocator included) is
                    // that channel's failure, not the event loop's: Netty's own transports close the channel and
                    // go on
                    if (endpoint.isOpen())
                    {
                        fail(ex);
                    }
                    else
                    {
                        LOG.log(System.Logger.Level.WARNING, "a closed channel's delivery failed", ex);
                    }
                }
            }
            return (events & QpEndpoint.TOOK) != 0;
        }

        /**
         * Netty's read loop: hand the endpoint's received messages to the pipeline, as far as reading is asked
         * for and the channel's {@link RecvByteBufAllocator.Handle} lets it go on.
         */
        final void readReady()
        {
            final QpEndpoint endpoint = endpoint();
            if (endpoint == null || !isActive() || inDeliver)
            {
                return;
            }
            inDeliver = true;
            boolean read = false;
            try
            {
                final RecvByteBufAllocator.Handle allocHandle = recvBufAllocHandle();
                allocHandle.reset(config());
                while (endpoint.pending() > 0 && readWanted())
                {
                    final int length = endpoint.peekLength();
                    final Object msg = readMessage(length);
                    // as much arrived as was asked for, so the handle lets the loop go on to its message limit
                    allocHandle.attemptedBytesRead(length);
                    allocHandle.lastBytesRead(length);
                    allocHandle.incMessagesRead(1);
                    readPending = false;
                    read = true;
                    pipeline().fireChannelRead(msg);
                    if (!isActive() || !allocHandle.continueReading())
                    {
                        break;
                    }
                }
                if (read)
                {
                    allocHandle.readComplete();
                    pipeline().fireChannelReadComplete();
                }
            }
            catch (final Throwable ex)
            {
                // a read that cannot be taken (no memory for its buffer, above all) fails this channel, not the
                // loop
                inDeliver = false;
                fail(ex);
                return;
            }
            finally
            {
                inDeliver = false;
            }
            if (!isActive() || !delivered())
            {
                return;
            }
            if (endpoint.pending() > 0 && readWanted() && !deliverScheduled)
            {
                // the rest on the next turn, so that one busy channel does not starve the loop's others
                deliverScheduled = true;
                eventLoop().execute(() ->
                {
                    deliverScheduled = false;
                    readReady();
                });
            }
        }

        /** Send slots (or credits) came back: flush what waited for them. */
        private void writable()
        {
            if (writeBlocked && isActive())
            {
                writeBlocked = false;
                writeBlockedOnRead = false;
                flush0();
            }
        }

        /** Flush again what is flushed and not yet written. */
        final void flushAgain()
        {
            flush0();
        }
    }
}
