package io.rdma4j.netty;

import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;

/**
 * A channel's registration with its event loop's {@link RdmaIoHandler}, and the handler it gives: the channel
 * asks it for its event channel and completion channels. Used on the event loop alone.
 */
final class HandlerRegistration
{
    private IoRegistration registration;
    private RdmaIoHandler handler;

    /**
     * @return the handler of the loop the channel registered on, or null before it did.
     */
    RdmaIoHandler handler()
    {
        return handler;
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
            registration = (IoRegistration)f.getNow();
            handler = registration.attachment();
            promise.setSuccess();
            registered.run();
        });
    }

    /** Deregister; the handler stays known, for the resources made with it. */
    void cancel()
    {
        final IoRegistration current = registration;
        if (current != null)
        {
            registration = null;
            current.cancel();
        }
    }
}
