package io.rdma4j.netty;

import io.netty.channel.ChannelOption;

/**
 * The rdma4j channels' own options, beside Netty's ({@code CONNECT_TIMEOUT_MILLIS}, {@code WRITE_BUFFER_WATER_MARK},
 * {@code AUTO_READ}, {@code SO_KEEPALIVE} on a connection, {@code SO_BACKLOG} on a server).
 */
public final class RdmaChannelOption
{
    /**
     * Receive buffers a connection keeps posted: the SENDs its peer may have in flight. At least
     * {@value RdmaChannelConfig#MIN_RECEIVE_BUFFERS}; {@value RdmaChannelConfig#DEFAULT_RECEIVE_BUFFERS} by default.
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

    private RdmaChannelOption()
    {
    }
}
