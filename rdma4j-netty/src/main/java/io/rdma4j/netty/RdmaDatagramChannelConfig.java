package io.rdma4j.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DatagramChannelConfig;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.Map;

/**
 * An {@link RdmaDatagramChannel}'s configuration. The socket options of {@link DatagramChannelConfig} have no
 * meaning for a UD QP: their getters give the socket defaults and their setters refuse, so nobody believes a
 * setting took effect; a multicast member always receives its own datagrams (the device loops them back).
 */
public final class RdmaDatagramChannelConfig extends DefaultChannelConfig implements DatagramChannelConfig
{
    /** Receive buffers by default. */
    public static final int DEFAULT_RECEIVE_BUFFERS = 64;
    /** Send slots by default. */
    public static final int DEFAULT_SEND_BUFFERS = 64;

    private final Runnable autoReadCleared;
    private volatile int receiveBuffers = DEFAULT_RECEIVE_BUFFERS;
    private volatile int sendBuffers = DEFAULT_SEND_BUFFERS;

    RdmaDatagramChannelConfig(final RdmaDatagramChannel channel, final Runnable autoReadCleared)
    {
        super(channel, new FixedRecvByteBufAllocator(2048));
        this.autoReadCleared = autoReadCleared;
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions()
    {
        return getOptions(super.getOptions(), RdmaChannelOption.RECEIVE_BUFFERS, RdmaChannelOption.SEND_BUFFERS);
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
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(final ChannelOption<T> option, final T value)
    {
        validate(option, value);
        if (option == RdmaChannelOption.RECEIVE_BUFFERS)
        {
            receiveBuffers = checkCount((Integer)value, "RECEIVE_BUFFERS");
        }
        else if (option == RdmaChannelOption.SEND_BUFFERS)
        {
            sendBuffers = checkCount((Integer)value, "SEND_BUFFERS");
        }
        else
        {
            return super.setOption(option, value);
        }
        return true;
    }

    private static int checkCount(final int count, final String name)
    {
        if (count < 1 || count >= 0xFFFF)
        {
            throw new IllegalArgumentException(name + " " + count + " is outside 1..65534");
        }
        return count;
    }

    int receiveBuffers()
    {
        return receiveBuffers;
    }

    int sendBuffers()
    {
        return sendBuffers;
    }

    @Override
    protected void autoReadCleared()
    {
        autoReadCleared.run();
    }

    private static UnsupportedOperationException noSocket(final String option)
    {
        return new UnsupportedOperationException(option + " is a socket option; an RDMA UD channel has no socket");
    }

    @Override
    public int getSendBufferSize()
    {
        return 0;
    }

    @Override
    public DatagramChannelConfig setSendBufferSize(final int sendBufferSize)
    {
        throw noSocket("SO_SNDBUF");
    }

    @Override
    public int getReceiveBufferSize()
    {
        return 0;
    }

    @Override
    public DatagramChannelConfig setReceiveBufferSize(final int receiveBufferSize)
    {
        throw noSocket("SO_RCVBUF (use RdmaChannelOption.RECEIVE_BUFFERS)");
    }

    @Override
    public int getTrafficClass()
    {
        return 0;
    }

    @Override
    public DatagramChannelConfig setTrafficClass(final int trafficClass)
    {
        throw noSocket("IP_TOS");
    }

    @Override
    public boolean isReuseAddress()
    {
        return false;
    }

    @Override
    public DatagramChannelConfig setReuseAddress(final boolean reuseAddress)
    {
        throw noSocket("SO_REUSEADDR");
    }

    @Override
    public boolean isBroadcast()
    {
        return false;
    }

    @Override
    public DatagramChannelConfig setBroadcast(final boolean broadcast)
    {
        throw noSocket("SO_BROADCAST");
    }

    @Override
    public boolean isLoopbackModeDisabled()
    {
        return false;
    }

    @Override
    public DatagramChannelConfig setLoopbackModeDisabled(final boolean loopbackModeDisabled)
    {
        throw noSocket("IP_MULTICAST_LOOP");
    }

    @Override
    public int getTimeToLive()
    {
        return 0;
    }

    @Override
    public DatagramChannelConfig setTimeToLive(final int ttl)
    {
        throw noSocket("IP_MULTICAST_TTL");
    }

    @Override
    public InetAddress getInterface()
    {
        return null;
    }

    @Override
    public DatagramChannelConfig setInterface(final InetAddress interfaceAddress)
    {
        throw noSocket("IP_MULTICAST_IF (the bound address chooses the device)");
    }

    @Override
    public NetworkInterface getNetworkInterface()
    {
        return null;
    }

    @Override
    public DatagramChannelConfig setNetworkInterface(final NetworkInterface networkInterface)
    {
        throw noSocket("IP_MULTICAST_IF (the bound address chooses the device)");
    }

    @Override
    @Deprecated
    public DatagramChannelConfig setMaxMessagesPerRead(final int maxMessagesPerRead)
    {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public DatagramChannelConfig setWriteSpinCount(final int writeSpinCount)
    {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public DatagramChannelConfig setConnectTimeoutMillis(final int connectTimeoutMillis)
    {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }

    @Override
    public DatagramChannelConfig setAllocator(final ByteBufAllocator allocator)
    {
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public DatagramChannelConfig setRecvByteBufAllocator(final RecvByteBufAllocator allocator)
    {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public DatagramChannelConfig setAutoRead(final boolean autoRead)
    {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public DatagramChannelConfig setAutoClose(final boolean autoClose)
    {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public DatagramChannelConfig setMessageSizeEstimator(final MessageSizeEstimator estimator)
    {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public DatagramChannelConfig setWriteBufferWaterMark(final WriteBufferWaterMark writeBufferWaterMark)
    {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    @Deprecated
    public DatagramChannelConfig setWriteBufferHighWaterMark(final int writeBufferHighWaterMark)
    {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    @Deprecated
    public DatagramChannelConfig setWriteBufferLowWaterMark(final int writeBufferLowWaterMark)
    {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }
}
