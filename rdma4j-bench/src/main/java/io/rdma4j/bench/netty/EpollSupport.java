package io.rdma4j.bench.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
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

    /**
     * TCP's keepalive settings on a connection's bootstrap ({@code SO_KEEPALIVE} itself is the caller's).
     *
     * @param bootstrap the connection's bootstrap.
     * @param idleS     {@code TCP_KEEPIDLE}: silence before the first probe, seconds.
     * @param intervalS {@code TCP_KEEPINTVL}: between unanswered probes, seconds.
     * @param count     {@code TCP_KEEPCNT}: unanswered probes before the connection fails.
     */
    static void keepAlive(final Bootstrap bootstrap, final int idleS, final int intervalS, final int count)
    {
        bootstrap.option(EpollChannelOption.TCP_KEEPIDLE, idleS).option(EpollChannelOption.TCP_KEEPINTVL, intervalS)
            .option(EpollChannelOption.TCP_KEEPCNT, count);
    }
}
