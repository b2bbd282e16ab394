package io.rdma4j.netty;

import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;

/**
 * A channel's side of its registration with its event loop's {@link RdmaIoHandler}: the
 * {@link RdmaIoRegistration} Netty's {@code register} gave, which the channel's endpoint submits its CQ to and
 * the connection manager's events of the channel's ids go through, and the handler, which the channel asks for
 * its loop's resources. Written on the event loop; read from a listener's loop too, for an accepted id's events.
 */
final class HandlerRegistration
{
    /** What Netty's loop gave: a wrapper of the handler's registration, to cancel through. */
    private IoRegistration netty;
    private volatile RdmaIoRegistration registration;
    private RdmaIoHandler handler;

    /**
     * @return the handler of the loop the channel registered on, or null before it did.
     */
    RdmaIoHandler handler()
    {
        return handler;
    }

    /**
     * @return the registration, or null before the channel registered or once it deregistered.
     */
    RdmaIoRegistration current()
    {
        return registration;
    }

    /**
     * Register the channel's unsafe; once done, complete the promise and then run {@code registered}.
     *
     * @param loop       the channel's event loop.
     * @param handle     the channel's unsafe.
     * @param promise    the registration's promise.
     * @param registered what follows a registration that succeeded.
     */
    void register(final EventLoop loop, final RdmaIoHandle handle, final ChannelPromise promise,
        final Runnable registered)
    {
        ((IoEventLoop)loop).register(handle).addListener(f ->
        {
            if (!f.isSuccess())
            {
                promise.setFailure(f.cause());
                return;
            }
            netty = (IoRegistration)f.getNow();
            final RdmaIoRegistration made = netty.attachment();
            handler = made.handler();
            registration = made;
            promise.setSuccess();
            registered.run();
        });
    }

    /**
     * Take a connection-manager event of the channel's ids to its handle, on the channel's loop.
     *
     * @param notice the event.
     * @return false if the channel is not registered (any more): nobody takes it.
     */
    boolean cmEvent(final CmNotice notice)
    {
        final RdmaIoRegistration current = registration;
        if (current == null)
        {
            return false;
        }
        current.cmEvent(notice);
        return true;
    }

    /**
     * Deregister: the registration is cancelled, and goes once its endpoint has let its CQ go; the handler stays
     * known, for the resources made with it.
     */
    void cancel()
    {
        final IoRegistration current = netty;
        if (current != null)
        {
            netty = null;
            registration = null;
            current.cancel();
        }
    }
}
