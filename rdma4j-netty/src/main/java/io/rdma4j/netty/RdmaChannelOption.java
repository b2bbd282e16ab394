package io.rdma4j.netty;

import io.netty.channel.ChannelOption;

/**
 * The rdma4j channels' own options, beside Netty's ({@code CONNECT_TIMEOUT_MILLIS}, {@code WRITE_BUFFER_WATER_MARK},
 * {@code AUTO_READ}, {@code SO_KEEPALIVE} on a connection, {@code SO_BACKLOG} on a server).
 */
public final class RdmaChannelOption
{
    /**
     * Receive buffers a channel keeps posted.
     * <p>
     * On a connection ({@link RdmaChannel}) they are the SENDs its peer may have in flight: credits, so nothing is
     * ever dropped. At least {@value RdmaChannelConfig#MIN_RECEIVE_BUFFERS};
     * {@value RdmaChannelConfig#DEFAULT_RECEIVE_BUFFERS} by default.
     * <p>
     * On a datagram channel ({@link RdmaDatagramChannel}, multicast) they are its socket receive buffer, counted in
     * datagrams of up to one MTU each: UD has no flow control, and a datagram that arrives while all of them hold
     * datagrams not yet read is dropped, as one that finds a full socket buffer is. The drops are counted
     * ({@link RdmaDatagramChannel#droppedDatagrams()}, the device's {@code drop_no_recv_wqe} in {@code rdma4j stat})
     * and logged at WARNING once a second while they go on. Raise it for bursts a reader cannot keep pace with:
     * each buffer is the port's MTU plus 40 bytes of registered memory (about 4 KiB on loopback). 1..65534;
     * {@value RdmaDatagramChannelConfig#DEFAULT_RECEIVE_BUFFERS} by default.
     */
    public static final ChannelOption<Integer> RECEIVE_BUFFERS =
        ChannelOption.valueOf(RdmaChannelOption.class, "RECEIVE_BUFFERS");

    /**
     * Bytes of each receive buffer and send slot: the most one SEND carries.
     * {@value RdmaChannelConfig#DEFAULT_BUFFER_SIZE} by default.
     */
    public static final ChannelOption<Integer> BUFFER_SIZE =
        ChannelOption.valueOf(RdmaChannelOption.class, "BUFFER_SIZE");

    /**
     * Send slots: registered buffers that outgoing bytes are copied into until their SEND completes.
     * {@value RdmaChannelConfig#DEFAULT_SEND_BUFFERS} by default.
     */
    public static final ChannelOption<Integer> SEND_BUFFERS =
        ChannelOption.valueOf(RdmaChannelOption.class, "SEND_BUFFERS");

    /**
     * How often an unacknowledged SEND is sent again before the connection fails ({@code retry_cnt}, 0..7). Each
     * try waits the connection manager's ACK timeout (about 2 s on RoCE), so this bounds how long a vanished
     * peer goes unnoticed while there is data for it. 7 means for ever, as on Linux rxe.
     * {@value RdmaChannelConfig#DEFAULT_RETRY_COUNT} by default.
     */
    public static final ChannelOption<Integer> RETRY_COUNT =
        ChannelOption.valueOf(RdmaChannelOption.class, "RETRY_COUNT");

    /**
     * How long a connection with {@code SO_KEEPALIVE} on may be silent, nothing sent or received, before it probes
     * its peer with a SEND of no bytes; it probes again after each such silence. A peer that is gone leaves the
     * probe unacknowledged, and the connection fails after {@link #RETRY_COUNT} retries, as a socket's does after
     * its keepalive probes. {@value RdmaChannelConfig#DEFAULT_KEEPALIVE_IDLE_MILLIS} ms (two hours, Linux's
     * {@code tcp_keepalive_time}) by default.
     */
    public static final ChannelOption<Integer> KEEPALIVE_IDLE_MILLIS =
        ChannelOption.valueOf(RdmaChannelOption.class, "KEEPALIVE_IDLE_MILLIS");

    /**
     * Bytes a connection's outbound buffer may hold, written and not yet sent: past them a write fails at once
     * with an {@link RdmaLimitException}, its buffer released, as a write to a closed channel fails, and the
     * channel stays open. A write into an empty buffer is always taken, whatever its size. Writability still
     * flips at {@code WRITE_BUFFER_WATER_MARK} (64 KiB high by default), far below: a writer that heeds it never
     * meets this limit, which bounds the memory a peer that returns few credits can make a careless writer (an
     * echo) hold. {@value RdmaChannelConfig#DEFAULT_MAX_OUTBOUND_BYTES} bytes (16 MiB) by default.
     */
    public static final ChannelOption<Integer> MAX_OUTBOUND_BYTES =
        ChannelOption.valueOf(RdmaChannelOption.class, "MAX_OUTBOUND_BYTES");

    /**
     * How long flushed data may wait for the peer's credits (it has read nothing, or returned nothing it read)
     * before the connection fails with an {@link RdmaLimitException} through {@code exceptionCaught} and closes;
     * 0 waits for ever, as a socket does on a zero window. Checked four times per period, so the close comes
     * within 1.25 times it. {@value RdmaChannelConfig#DEFAULT_CREDIT_TIMEOUT_MILLIS} ms by default.
     */
    public static final ChannelOption<Integer> CREDIT_TIMEOUT_MILLIS =
        ChannelOption.valueOf(RdmaChannelOption.class, "CREDIT_TIMEOUT_MILLIS");

    /**
     * On a server ({@link RdmaServerChannel}, set with {@code ServerBootstrap.option}): the most connections it
     * keeps open at once, requests not yet established included. A connection counts from its request until its
     * channel closes; a request beyond the limit is rejected (the peer's connect fails with a
     * {@link java.net.ConnectException}) and counted ({@link RdmaServerChannel#refusedConnections()}).
     * {@code SO_BACKLOG} bounds the requests not yet established on its own, and each of those holds only two
     * receive buffers until it is; this bounds what established connections, a storm of them included, can make
     * the server hold. 1 or more; no limit ({@link Integer#MAX_VALUE}) by default, as a socket has none.
     */
    public static final ChannelOption<Integer> MAX_CONNECTIONS =
        ChannelOption.valueOf(RdmaChannelOption.class, "MAX_CONNECTIONS");

    private RdmaChannelOption()
    {
    }
}
