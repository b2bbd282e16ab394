package io.rdma4j.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MessageSizeEstimator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.DatagramChannelConfig;

import java.net.InetAddress;
import java.net.NetworkInterface;

/**
 * An {@link RdmaDatagramChannel}'s configuration. The socket options of {@link DatagramChannelConfig} have no
 * meaning for a UD QP, but for {@code IP_MULTICAST_LOOP}: their getters give the socket defaults and their setters
 * refuse, so nobody believes a setting took effect. {@link #setLoopbackModeDisabled} is per channel and may change
 * at any time, as on a socket: with it set, a datagram the channel sent that the device loops back to it (it is a
 * member of the group) is passed over, its receive posted again at once.
 */
public final class RdmaDatagramChannelConfig extends AbstractRdmaConfig implements DatagramChannelConfig
{
    /**
     * Receive buffers by default: 1024 datagrams, 200 ms of a 5 000/s group. UD has no flow control: a datagram that
     * finds no receive posted is dropped, so the receives are what rides out a reader's pause, and on two loaded
     * cores a loop pauses for 50-170 ms now and then (a young collection, the JIT, the scheduler), a cold JVM's for
     * up to a second. 256 (what Linux's default UDP receive buffer, 208 KiB, holds of 1 KiB datagrams) lost up to a
     * tenth of a 5 000/s burst to such a pause; 64, the first default, a third at 550/s. Cost: 1024 x (MTU + 40)
     * bytes of registered memory, about 4 MiB a channel on loopback's 4096 MTU, 1 MiB at Ethernet's 1024.
     */
    public static final int DEFAULT_RECEIVE_BUFFERS = 1024;
    /** Send slots by default. */
    public static final int DEFAULT_SEND_BUFFERS = 64;

    private volatile int receiveBuffers = DEFAULT_RECEIVE_BUFFERS;
    private volatile int sendBuffers = DEFAULT_SEND_BUFFERS;
    private volatile boolean loopbackModeDisabled;

    RdmaDatagramChannelConfig(final RdmaDatagramChannel channel, final Runnable autoReadCleared)
    {
        super(channel, new FixedRecvByteBufAllocator(2048), autoReadCleared);
        option(RdmaChannelOption.RECEIVE_BUFFERS, this::receiveBuffers,
            count -> receiveBuffers = inRange("RECEIVE_BUFFERS", count, 1, 0xFFFE));
        option(RdmaChannelOption.SEND_BUFFERS, this::sendBuffers,
            count -> sendBuffers = inRange("SEND_BUFFERS", count, 1, 0xFFFE));
    }

    int receiveBuffers()
    {
        return receiveBuffers;
    }

    int sendBuffers()
    {
        return sendBuffers;
    }

    /**
     * @return whether own datagrams are passed over; read by the endpoint for each datagram of its own QP number.
     */
    boolean skipOwn()
    {
        return loopbackModeDisabled;
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
        return loopbackModeDisabled;
    }

    /**
     * {@inheritDoc}
     * <p>
     * The channel, not the device, passes its own datagrams over: a datagram whose source is this channel's address
     * and QP number is dropped as it completes. So it works on either engine and may change at any time; the device
     * still loops the copy back (its {@code mcast_loopback} counter), and the copy takes one of the channel's
     * receives for the moment it takes to post it again.
     */
    @Override
    public DatagramChannelConfig setLoopbackModeDisabled(final boolean loopbackModeDisabled)
    {
        this.loopbackModeDisabled = loopbackModeDisabled;
        return this;
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
