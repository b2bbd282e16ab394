package io.rdma4j.netty;

import io.netty.channel.AbstractChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.RecvByteBufAllocator;
import io.rdma4j.verbs.RdmaException;

import java.io.IOException;

/**
 * What {@link RdmaChannel} and {@link RdmaDatagramChannel} share: a channel over a {@link QpEndpoint}, pinned to
 * the first event loop it registers on (its endpoint's resources belong to that loop's handler), that hands the
 * endpoint's received messages to its pipeline as far as reading is asked for, and flushes again when the
 * endpoint can take more.
 */
abstract class AbstractRdmaChannel extends AbstractChannel
{
    private final HandlerRegistration registration = new HandlerRegistration();
    private final QpEndpoint.Owner owner = new Owner();
    private boolean readPending;
    private boolean inDeliver;
    private boolean deliverScheduled;
    private boolean writeBlocked;

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
     * @return the handler of the channel's event loop, once registered.
     */
    final RdmaIoHandler handler()
    {
        return registration.handler();
    }

    /**
     * @return what the endpoint reports to.
     */
    final QpEndpoint.Owner owner()
    {
        return owner;
    }

    /** {@code AUTO_READ} was turned off: a read asked for by it is not asked for any more. */
    final void autoReadCleared()
    {
        readPending = false;
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
            deliver();
        }
    }

    private boolean readWanted()
    {
        return readPending || config().isAutoRead();
    }

    /** Hand received messages to the pipeline, as far as reading is asked for. */
    private void deliver()
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
            final RecvByteBufAllocator.Handle allocHandle = unsafe().recvBufAllocHandle();
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
            // a read that cannot be taken (no memory for its buffer, above all) fails this channel, not the loop
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
                deliver();
            });
        }
    }

    /** Received messages wait: deliver them if reading is asked for. */
    final void endpointReadable()
    {
        if (isActive() && readWanted())
        {
            deliver();
        }
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
            pipeline().fireExceptionCaught(cause);
        }
        finally
        {
            closeNow();
        }
    }

    /** Close now, through the pipeline, unless closed already. */
    final void closeNow()
    {
        if (isOpen())
        {
            unsafe().close(unsafe().voidPromise());
        }
    }

    /** The endpoint's callbacks, kept off the channel's public face. */
    private final class Owner implements QpEndpoint.Owner
    {
        @Override
        public void endpointReadable()
        {
            AbstractRdmaChannel.this.endpointReadable();
        }

        @Override
        public void endpointWritable()
        {
            if (writeBlocked && isActive())
            {
                writeBlocked = false;
                ((RdmaUnsafe)unsafe()).flushNow();
            }
        }

        @Override
        public void endpointFailed(final Throwable cause)
        {
            fail(cause);
        }
    }

    /** Netty's unsafe for the channel, and what it registers with the {@link RdmaIoHandler}. */
    abstract class RdmaUnsafe extends AbstractUnsafe implements RdmaIoHandle
    {
        /** Flush what waited for the endpoint, now that it can take more. */
        final void flushNow()
        {
            flush0();
        }
    }
}
