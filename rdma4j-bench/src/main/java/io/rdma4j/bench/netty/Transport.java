package io.rdma4j.bench.netty;

import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.rdma4j.netty.RdmaChannel;
import io.rdma4j.netty.RdmaIoHandler;
import io.rdma4j.netty.RdmaServerChannel;

import java.util.List;
import java.util.Locale;

/**
 * A transport the echo runs over: its event loops' factory and channel classes, and the options its JVMs need.
 * Epoll's classes are named only inside {@link EpollSupport}, so a run without the native library (or without
 * its jar) loads none of them and can still run the other rows. Public for the gRPC comparison
 * ({@code io.rdma4j.bench.grpc}), whose rows are the same transports under gRPC-Java's Netty transport.
 */
public enum Transport
{
    /** rdma4j's software device, RC, with the device in polling mode (rdma4j.soft.progress's default). */
    RDMA_POLLING("rdma-polling", "rdma4j soft RC, progress polling (default)", "polling"),
    /** rdma4j's software device, RC, receiving on its progress thread only. */
    RDMA_THREAD("rdma-thread", "rdma4j soft RC, progress thread", "thread"),
    /** Netty's NIO transport, TCP over loopback. */
    NIO("nio", "Netty NIO, TCP loopback", null),
    /** Netty's native epoll transport, TCP over loopback. */
    EPOLL("epoll", "Netty epoll, TCP loopback", null);

    private final String key;
    private final String label;
    private final String progress;

    Transport(final String key, final String label, final String progress)
    {
        this.key = key;
        this.label = label;
        this.progress = progress;
    }

    /**
     * @param key a transport's name on the command line, e.g. {@code rdma-polling}.
     * @return the transport.
     * @throws IllegalArgumentException for a name no transport has.
     */
    public static Transport of(final String key)
    {
        for (final Transport transport : values())
        {
            if (transport.key.equals(key.trim().toLowerCase(Locale.ROOT)))
            {
                return transport;
            }
        }
        throw new IllegalArgumentException("no transport '" + key + "': rdma-polling, rdma-thread, nio or epoll");
    }

    /**
     * @return the name the command line uses.
     */
    public String key()
    {
        return key;
    }

    /**
     * @return the table's name for it.
     */
    public String label()
    {
        return label;
    }

    /**
     * @return whether it runs over rdma4j (the processes then take a soft device each).
     */
    public boolean rdma()
    {
        return progress != null;
    }

    /**
     * @param host this process's loopback address.
     * @return the JVM options of a process of this transport: the soft device's address and progress mode.
     */
    public List<String> jvmOptions(final String host)
    {
        return rdma() ? List.of("-Drdma4j.soft.progress=" + progress, "-Drdma4j.soft.address=" + host) : List.of();
    }

    /**
     * @return why it cannot run on this machine, or null when it can.
     */
    public String unavailableReason()
    {
        return this == EPOLL ? EpollSupport.unavailableReason() : null;
    }

    /**
     * @return the factory of its event loops' I/O handlers.
     */
    public IoHandlerFactory ioHandlerFactory()
    {
        return switch (this)
        {
            case RDMA_POLLING, RDMA_THREAD -> RdmaIoHandler.newFactory();
            case NIO -> NioIoHandler.newFactory();
            case EPOLL -> EpollSupport.ioHandlerFactory();
        };
    }

    /**
     * @return the listener's channel class.
     */
    public Class<? extends ServerChannel> serverChannel()
    {
        return switch (this)
        {
            case RDMA_POLLING, RDMA_THREAD -> RdmaServerChannel.class;
            case NIO -> NioServerSocketChannel.class;
            case EPOLL -> EpollSupport.serverChannel();
        };
    }

    /**
     * @return a connection's channel class.
     */
    public Class<? extends Channel> channel()
    {
        return switch (this)
        {
            case RDMA_POLLING, RDMA_THREAD -> RdmaChannel.class;
            case NIO -> NioSocketChannel.class;
            case EPOLL -> EpollSupport.channel();
        };
    }
}
