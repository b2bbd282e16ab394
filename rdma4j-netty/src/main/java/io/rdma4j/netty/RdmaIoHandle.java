package io.rdma4j.netty;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandle;
import io.netty.channel.IoRegistration;

/**
 * What the rdma4j channels register with an {@link RdmaIoHandler}: their unsafe.
 */
interface RdmaIoHandle extends IoHandle, Channel.Unsafe
{
    /**
     * @param loop an event loop.
     * @return whether an rdma4j channel may register on it: its handler is an {@link RdmaIoHandler}.
     */
    static boolean compatible(final EventLoop loop)
    {
        return loop instanceof IoEventLoop ioLoop && ioLoop.isCompatible(RdmaIoHandle.class);
    }

    @Override
    default void handle(final IoRegistration registration, final IoEvent event)
    {
        // readiness reaches the channels through their endpoints and the connection manager, not as IoEvents
    }

    /**
     * Close the channel at once: its event loop is shutting down.
     */
    default void closeNow()
    {
        close(voidPromise());
    }

    @Override
    default void close()
    {
        closeNow();
    }
}
