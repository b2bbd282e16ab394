package io.rdma4j.bench.netty;

import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;

/**
 * The only class that names Netty's epoll transport: the JVM links it when the epoll row is asked for, so a
 * missing jar or a native library that does not load costs that row alone.
 */
final class EpollSupport
{
    private EpollSupport()
    {
    }

    /**
     * @return why epoll cannot run here (Netty's own cause), or null when its native library loaded.
     */
    static String unavailableReason()
    {
        try
        {
            if (Epoll.isAvailable())
            {
                return null;
            }
            final Throwable cause = Epoll.unavailabilityCause();
            return cause == null ? "Netty's epoll transport is unavailable" : cause.toString();
        }
        catch (final LinkageError ex)
        {
            // the jar is not on the class path, or its classes do not link against this Netty
            return ex.toString();
        }
    }

    static IoHandlerFactory ioHandlerFactory()
    {
        return EpollIoHandler.newFactory();
    }

    static Class<? extends ServerChannel> serverChannel()
    {
        return EpollServerSocketChannel.class;
    }

    static Class<? extends Channel> channel()
    {
        return EpollSocketChannel.class;
    }
}
