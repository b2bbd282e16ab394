package io.rdma4j.netty;

import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;

/**
 * What registers with an {@link RdmaIoHandler}: a channel's unsafe. Its {@link #handle} gets the
 * {@link RdmaIoEvent}s of its registration: {@link CqReady} for the CQ it submitted ({@link RdmaIoOps}), where
 * the channel's read loop starts as epoll's starts in {@code epollInReady} and io_uring's in its completion's
 * handling, and {@link CmNotice} for the connection manager's events of its ids.
 */
interface RdmaIoHandle extends IoHandle
{
    /**
     * @param loop an event loop.
     * @return whether an rdma4j channel may register on it: its handler is an {@link RdmaIoHandler}.
     */
    static boolean compatible(final EventLoop loop)
    {
        return loop instanceof IoEventLoop ioLoop && ioLoop.isCompatible(RdmaIoHandle.class);
    }

    /**
     * {@inheritDoc}
     *
     * @param registration the handle's {@link RdmaIoRegistration}.
     * @param event        an {@link RdmaIoEvent}, valid only during the call.
     */
    @Override
    void handle(IoRegistration registration, IoEvent event);

    /**
     * Close the channel at once: its event loop is shutting down.
     */
    void closeNow();

    @Override
    default void close()
    {
        closeNow();
    }
}
