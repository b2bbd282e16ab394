package io.rdma4j.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;

import java.util.Map;

/**
 * An {@link RdmaChannel}'s configuration: Netty's, and the connection's buffers ({@link RdmaChannelOption}).
 * The buffers are sized when the connection is made; changing them later changes nothing for it.
 */
public final class RdmaChannelConfig extends DefaultChannelConfig
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

    private volatile int receiveBuffers = DEFAULT_RECEIVE_BUFFERS;
    private volatile int sendBuffers = DEFAULT_SEND_BUFFERS;
    private volatile int bufferSize = DEFAULT_BUFFER_SIZE;
    private volatile int retryCount = DEFAULT_RETRY_COUNT;
    private final Runnable autoReadCleared;

    RdmaChannelConfig(final Channel channel, final Runnable autoReadCleared)
    {
        super(channel);
        this.autoReadCleared = autoReadCleared;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions()
    {
        return getOptions(super.getOptions(), RdmaChannelOption.RECEIVE_BUFFERS, RdmaChannelOption.SEND_BUFFERS,
            RdmaChannelOption.BUFFER_SIZE, RdmaChannelOption.RETRY_COUNT);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(final ChannelOption<T> option)
    {
        if (option == RdmaChannelOption.RECEIVE_BUFFERS)
        {
            return (T)Integer.valueOf(receiveBuffers);
        }
        if (option == RdmaChannelOption.SEND_BUFFERS)
        {
            return (T)Integer.valueOf(sendBuffers);
        }
        if (option == RdmaChannelOption.BUFFER_SIZE)
        {
            return (T)Integer.valueOf(bufferSize);
        }
        if (option == RdmaChannelOption.RETRY_COUNT)
        {
            return (T)Integer.valueOf(retryCount);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(final ChannelOption<T> option, final T value)
    {
        validate(option, value);
        if (option == RdmaChannelOption.RECEIVE_BUFFERS)
        {
            setReceiveBuffers((Integer)value);
        }
        else if (option == RdmaChannelOption.SEND_BUFFERS)
        {
            setSendBuffers((Integer)value);
        }
        else if (option == RdmaChannelOption.BUFFER_SIZE)
        {
            setBufferSize((Integer)value);
        }
        else if (option == RdmaChannelOption.RETRY_COUNT)
        {
            setRetryCount((Integer)value);
        }
        else
        {
            return super.setOption(option, value);
        }
        return true;
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
        if (count < MIN_RECEIVE_BUFFERS || count > 0xFFFF)
        {
            throw new IllegalArgumentException("RECEIVE_BUFFERS " + count + " is outside " + MIN_RECEIVE_BUFFERS +
                "..65535");
        }
        receiveBuffers = count;
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
        if (count < 1 || count >= 0xFFFF)
        {
            throw new IllegalArgumentException("SEND_BUFFERS " + count + " is outside 1..65534");
        }
        sendBuffers = count;
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
        if (size < 1 || size > 1 << 30)
        {
            throw new IllegalArgumentException("BUFFER_SIZE " + size + " is outside 1..2^30");
        }
        bufferSize = size;
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
        if (count < 0 || count > 7)
        {
            throw new IllegalArgumentException("RETRY_COUNT " + count + " is outside 0..7");
        }
        retryCount = count;
        return this;
    }

    @Override
    protected void autoReadCleared()
    {
        autoReadCleared.run();
    }
}
