package io.rdma4j.tools.perf;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;

/**
 * The raw-JDK yardstick every run measures beside rdma4j: a {@link DatagramChannel} on the same
 * address as the soft device, doing the same exchange in the same mode. Busy polling (the default)
 * spins on a non-blocking channel with the same {@link IdleSpin} as the rdma4j loops; {@code -e}
 * makes the channel blocking, as the completion channel makes rdma4j sleep.
 * <p>
 * A message larger than one datagram (65,507 bytes, or less with --baseline-datagram) goes as several; the receiver counts bytes, and
 * acknowledges every quarter socket buffer of one message, so that an 8 MiB ping is not dropped.
 * Streams are flow-controlled by credits, as rdma4j's SEND stream is, so a full socket buffer
 * never drops what the sender still counts on.
 */
final class UdpBaseline implements AutoCloseable
{
    /** The largest UDP payload over IPv4. */
    static final int MAX_DATAGRAM = 65_507;
    /** Bytes asked for each socket buffer; Linux caps it at net.core.[rw]mem_max. */
    private static final int SOCKET_BUFFER = 4 << 20;
    /** Kernel bookkeeping per datagram queued in a socket buffer, over-estimated to stay clear of drops. */
    private static final int PER_DATAGRAM_OVERHEAD = 1024;
    private static final long STALL_NS = TimeUnit.SECONDS.toNanos(20);

    private final DatagramChannel channel;
    private final boolean blocking;
    private final ByteBuffer data;
    private final ByteBuffer small = ByteBuffer.allocateDirect(Long.BYTES);
    private final IdleSpin spin = new IdleSpin();
    private final int receiveBuffer;
    /** Bytes of one message a sender sends before waiting for the receiver's acknowledgement. */
    private final int ackEvery;
    /** The largest datagram this side sends. */
    private final int datagram;
    private SocketAddress peer;

    /**
     * @param address  the local address (the soft device's).
     * @param maxSize  the largest message.
     * @param blocking true for -e.
     * @param datagram the largest datagram to send, at most {@link #MAX_DATAGRAM}.
     * @throws IOException if the socket cannot be opened.
     */
    UdpBaseline(final InetAddress address, final int maxSize, final boolean blocking, final int datagram)
        throws IOException
    {
        this.blocking = blocking;
        this.datagram = datagram;
        channel = DatagramChannel.open();
        channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER);
        channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER);
        channel.bind(new InetSocketAddress(address, 0));
        channel.configureBlocking(blocking);
        receiveBuffer = channel.getOption(StandardSocketOptions.SO_RCVBUF);
        // Both sides ask for the same buffer on the same kernel, so both arrive at the same round size.
        ackEvery = Math.max(MAX_DATAGRAM, receiveBuffer / 4 / MAX_DATAGRAM * MAX_DATAGRAM);
        data = ByteBuffer.allocateDirect(Math.min(Math.max(maxSize, Long.BYTES), MAX_DATAGRAM));
    }

    /**
     * @return the local port, for the endpoint exchange.
     * @throws IOException if the socket is closed.
     */
    int port() throws IOException
    {
        return ((InetSocketAddress)channel.getLocalAddress()).getPort();
    }

    /**
     * @param address the peer's address.
     * @param port    its baseline port.
     */
    void peer(final InetAddress address, final int port)
    {
        peer = new InetSocketAddress(address, port);
    }

    /**
     * @param size   the message size.
     * @param window the receiver's posted-receive count, which rdma4j's stream is limited by too.
     * @return messages a stream keeps in flight: the window, shrunk so they fit the socket buffer.
     */
    int streamWindow(final int size, final int window)
    {
        final long datagrams = Math.max(1, (size + datagram - 1) / datagram);
        final long cost = size + datagrams * PER_DATAGRAM_OVERHEAD;
        return (int)Math.max(1, Math.min(window, receiveBuffer / 2 / cost));
    }

    /**
     * Ping-pong: send {@code size} bytes, wait for {@code size} back, record half the round trip (or
     * the whole with {@code whole}); the first {@code warmup} are not recorded.
     *
     * @param request  the request size.
     * @param response the response size.
     * @param total    exchanges, warm-up included.
     * @param warmup   exchanges not recorded.
     * @param whole    true to record the whole round trip.
     * @param into     the histogram (ns).
     * @throws IOException if the socket fails or nothing comes back for a long time.
     */
    void pingClient(final int request, final int response, final int total, final int warmup, final boolean whole,
        final Histogram into) throws IOException
    {
        for (int i = 0; i < total; i++)
        {
            final long start = System.nanoTime();
            sendMessage(request);
            receiveMessage(response);
            final long rtt = System.nanoTime() - start;
            if (i >= warmup)
            {
                into.recordValue(whole ? rtt : rtt / 2);
            }
        }
    }

    /**
     * The other side of {@link #pingClient}.
     *
     * @param request  the request size.
     * @param response the response size.
     * @param total    exchanges.
     * @throws IOException if the socket fails or the client goes quiet.
     */
    void pingServer(final int request, final int response, final int total) throws IOException
    {
        for (int i = 0; i < total; i++)
        {
            receiveMessage(request);
            sendMessage(response);
        }
    }

    /**
     * Send {@code count} messages, at most {@code window} ahead of the receiver's last credit.
     *
     * @param size   the message size.
     * @param count  messages.
     * @param window messages in flight.
     * @return nanoseconds from the first send to the credit for the last message.
     * @throws IOException if the socket fails or credits stop coming.
     */
    long streamSend(final int size, final int count, final int window) throws IOException
    {
        final long start = System.nanoTime();
        long credit = 0;
        int sent = 0;
        while (credit < count)
        {
            while (sent < count && sent - credit < window)
            {
                sendMessage(size);
                sent++;
            }
            // The window is full or everything is sent: either way the next step needs a credit.
            credit = Math.max(credit, receiveSmall());
        }
        return System.nanoTime() - start;
    }

    /**
     * Receive a stream of {@code count} messages, sending a credit every quarter window and at the end.
     *
     * @param size   the message size.
     * @param count  messages.
     * @param window the sender's window.
     * @throws IOException if the socket fails or the sender goes quiet.
     */
    void streamReceive(final int size, final int count, final int window) throws IOException
    {
        final int batch = Math.max(1, window / 4);
        int credited = 0;
        for (int received = 1; received <= count; received++)
        {
            receiveMessage(size);
            if (received - credited >= batch || received == count)
            {
                small.clear();
                small.putLong(0, received);
                send(small);
                credited = received;
            }
        }
    }

    /**
     * @return the count the next credit (or round acknowledgement) carries.
     */
    private long receiveSmall() throws IOException
    {
        long since = 0;
        while (true)
        {
            small.clear();
            final SocketAddress from = channel.receive(small);
            if (from != null)
            {
                spin.reset();
                return small.getLong(0);
            }
            since = idle(since);
        }
    }

    private void sendMessage(final int size) throws IOException
    {
        int left = size;
        int unacked = 0;
        do
        {
            if (unacked >= ackEvery)
            {
                // A message larger than the peer's socket buffer goes in rounds, each acknowledged.
                receiveSmall();
                unacked = 0;
            }
            final int part = Math.min(left, datagram);
            data.clear().limit(Math.max(part, 1));
            send(data);
            left -= part;
            unacked += part;
        }
        while (left > 0);
    }

    private void send(final ByteBuffer buffer) throws IOException
    {
        long since = 0;
        while (channel.send(buffer, peer) == 0)
        {
            // Only a non-blocking channel with a full send buffer sends nothing.
            since = idle(since);
        }
    }

    private void receiveMessage(final int size) throws IOException
    {
        int left = Math.max(size, 1);
        int unacked = 0;
        long since = 0;
        while (left > 0)
        {
            data.clear();
            if (channel.receive(data) == null)
            {
                since = idle(since);
                continue;
            }
            spin.reset();
            since = 0;
            left -= data.position();
            unacked += data.position();
            if (unacked >= ackEvery && left > 0)
            {
                small.clear();
                small.putLong(0, unacked);
                send(small);
                unacked = 0;
            }
        }
    }

    /**
     * Wait a little on a non-blocking channel; fail once nothing has come for {@link #STALL_NS}.
     */
    private long idle(final long since) throws IOException
    {
        spin.idle();
        final long now = System.nanoTime();
        if (since == 0)
        {
            return now;
        }
        if (now - since > STALL_NS)
        {
            throw new IOException("baseline UDP: nothing received for " + TimeUnit.NANOSECONDS.toSeconds(STALL_NS) +
                " s (a datagram was lost, or the peer stopped)");
        }
        return since;
    }

    /**
     * @return true when the channel blocks (-e).
     */
    boolean blocking()
    {
        return blocking;
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }
}
