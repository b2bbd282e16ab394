package io.rdma4j.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;

/**
 * An {@link RdmaChannel}'s configuration: Netty's, and the connection's buffers ({@link RdmaChannelOption}).
 * Its {@code ALLOCATOR} is {@link RdmaByteBufAllocator#DEFAULT}, whose buffers the channel sends without a copy;
 * another allocator's buffers are copied into the send buffers.
 * The buffers are sized, and keepalive started, when the connection is made; changing them later changes nothing
 * for it.
 */
public final class RdmaChannelConfig extends AbstractRdmaConfig
{
    /** The fewest receive buffers: data never takes the last credit, and updates must not answer each other. */
    public static final int MIN_RECEIVE_BUFFERS = 4;
    /** Receive buffers by default. */
    public static final int DEFAULT_RECEIVE_BUFFERS = 16;
    /** Send slots by default. */
    public static final int DEFAULT_SEND_BUFFERS = 16;
    /** Bytes per buffer by default. */
    public static final int DEFAULT_BUFFER_SIZE = 64 * 1024;
    /** SEND retries by default: a finite count, so a vanished peer fails the channel (7 would retry for ever). */
    public static final int DEFAULT_RETRY_COUNT = 6;
    /** Silence before a keepalive probe by default: Linux's {@code tcp_keepalive_time}. */
    public static final int DEFAULT_KEEPALIVE_IDLE_MILLIS = 2 * 60 * 60 * 1000;

    /** Outbound bytes a connection holds at most by default. */
    public static final int DEFAULT_MAX_OUTBOUND_BYTES = 16 << 20;
    /** How long data waits for credits by default before the connection fails. */
    public static final int DEFAULT_CREDIT_TIMEOUT_MILLIS = 60_000;

    private volatile int maxOutboundBytes = DEFAULT_MAX_OUTBOUND_BYTES;
    private volatile int creditTimeoutMillis = DEFAULT_CREDIT_TIMEOUT_MILLIS;
    private volatile int receiveBuffers = DEFAULT_RECEIVE_BUFFERS;
    private volatile int sendBuffers = DEFAULT_SEND_BUFFERS;
    private volatile int bufferSize = DEFAULT_BUFFER_SIZE;
    private volatile int retryCount = DEFAULT_RETRY_COUNT;
    private volatile boolean keepAlive;
    private volatile int keepAliveIdleMillis = DEFAULT_KEEPALIVE_IDLE_MILLIS;

    RdmaChannelConfig(final Channel channel, final Runnable autoReadCleared)
    {
        super(channel, autoReadCleared);
        // buffers the channel sends in place: what it reads, and what its handlers ask ctx.alloc() for
        setAllocator(RdmaByteBufAllocator.DEFAULT);
        option(RdmaChannelOption.RECEIVE_BUFFERS, this::getReceiveBuffers, this::setReceiveBuffers);
        option(RdmaChannelOption.SEND_BUFFERS, this::getSendBuffers, this::setSendBuffers);
        option(RdmaChannelOption.BUFFER_SIZE, this::getBufferSize, this::setBufferSize);
        option(RdmaChannelOption.RETRY_COUNT, this::getRetryCount, this::setRetryCount);
        flag(ChannelOption.SO_KEEPALIVE, this::isKeepAlive, this::setKeepAlive);
        option(RdmaChannelOption.KEEPALIVE_IDLE_MILLIS, this::getKeepAliveIdleMillis, this::setKeepAliveIdleMillis);
        option(RdmaChannelOption.MAX_OUTBOUND_BYTES, this::getMaxOutboundBytes, this::setMaxOutboundBytes);
        option(RdmaChannelOption.CREDIT_TIMEOUT_MILLIS, this::getCreditTimeoutMillis, this::setCreditTimeoutMillis);
    }

    /**
     * @return outbound bytes held at most before writes fail.
     */
    public int getMaxOutboundBytes()
    {
        return maxOutboundBytes;
    }

    /**
     * @param bytes outbound bytes held at most before writes fail, 1 or more.
     * @return this.
     */
    public RdmaChannelConfig setMaxOutboundBytes(final int bytes)
    {
        maxOutboundBytes = inRange("MAX_OUTBOUND_BYTES", bytes, 1, Integer.MAX_VALUE);
        return this;
    }

    /**
     * @return how long, in ms, data waits for credits before the connection fails; 0: for ever.
     */
    public int getCreditTimeoutMillis()
    {
        return creditTimeoutMillis;
    }

    /**
     * @param millis how long data may wait for credits before the connection fails, 0 (for ever) or more.
     * @return this.
     */
    public RdmaChannelConfig setCreditTimeoutMillis(final int millis)
    {
        creditTimeoutMillis = inRange("CREDIT_TIMEOUT_MILLIS", millis, 0, Integer.MAX_VALUE);
        return this;
    }

    /**
     * @return receive buffers per connection.
     */
    public int getReceiveBuffers()
    {
        return receiveBuffers;
    }

    /**
     * @param count receive buffers per connection, at least {@value #MIN_RECEIVE_BUFFERS} and at most 65535.
     * @return this.
     */
    public RdmaChannelConfig setReceiveBuffers(final int count)
    {
        receiveBuffers = inRange("RECEIVE_BUFFERS", count, MIN_RECEIVE_BUFFERS, 0xFFFF);
        return this;
    }

    /**
     * @return send slots per connection.
     */
    public int getSendBuffers()
    {
        return sendBuffers;
    }

    /**
     * @param count send slots per connection, 1..65534.
     * @return this.
     */
    public RdmaChannelConfig setSendBuffers(final int count)
    {
        sendBuffers = inRange("SEND_BUFFERS", count, 1, 0xFFFE);
        return this;
    }

    /**
     * @return bytes per buffer.
     */
    public int getBufferSize()
    {
        return bufferSize;
    }

    /**
     * @param size bytes per buffer, 1 B to 1 GiB.
     * @return this.
     */
    public RdmaChannelConfig setBufferSize(final int size)
    {
        bufferSize = inRange("BUFFER_SIZE", size, 1, 1 << 30, "1..2^30");
        return this;
    }

    /**
     * @return SEND retries before the connection fails.
     */
    public int getRetryCount()
    {
        return retryCount;
    }

    /**
     * @param count SEND retries, 0..7 (7: for ever).
     * @return this.
     */
    public RdmaChannelConfig setRetryCount(final int count)
    {
        retryCount = inRange("RETRY_COUNT", count, 0, 7);
        return this;
    }

    /**
     * @return whether a silent connection probes its peer ({@code SO_KEEPALIVE}).
     */
    public boolean isKeepAlive()
    {
        return keepAlive;
    }

    /**
     * @param on whether a connection silent for {@link RdmaChannelOption#KEEPALIVE_IDLE_MILLIS} probes its peer;
     *           off by default, as on a socket.
     * @return this.
     */
    public RdmaChannelConfig setKeepAlive(final boolean on)
    {
        keepAlive = on;
        return this;
    }

    /**
     * @return the silence, in ms, before a keepalive probe.
     */
    public int getKeepAliveIdleMillis()
    {
        return keepAliveIdleMillis;
    }

    /**
     * @param millis the silence before a keepalive probe, 1 ms or more.
     * @return this.
     */
    public RdmaChannelConfig setKeepAliveIdleMillis(final int millis)
    {
        keepAliveIdleMillis = inRange("KEEPALIVE_IDLE_MILLIS", millis, 1, Integer.MAX_VALUE);
        return this;
    }
}
