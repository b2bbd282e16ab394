package io.rdma4j.soft.link;

import io.rdma4j.testing.TestNet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Helpers shared by the link tests.
 */
final class LinkTesting
{
    private static final int GROUP_SUBNET = TestNet.nextSubnet();
    private static final AtomicInteger NEXT_GROUP = new AtomicInteger();

    private LinkTesting()
    {
    }

    static InetAddress address(final String literal)
    {
        try
        {
            return InetAddress.getByName(literal);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException(literal, ex);
        }
    }

    /**
     * A port the kernel just found free on 127.0.0.1, so tests do not collide with a device on
     * 4791 or with each other.
     */
    static int freePort()
    {
        try (DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET))
        {
            channel.bind(new InetSocketAddress(address("127.0.0.1"), 0));
            return ((InetSocketAddress)channel.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A group of this JVM's own (see {@link TestNet}) that no earlier call returned, so neither another test
     * nor a concurrent build hears it.
     */
    static InetAddress randomGroup()
    {
        return TestNet.groupAddress(GROUP_SUBNET, NEXT_GROUP.getAndIncrement() % 254 + 1);
    }

    static ByteBuffer datagram(final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }

    static String text(final ByteBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(buffer.position(), bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    /**
     * Wait on the link until a datagram is received or the time is up: no sleeping, the link's
     * own wait is the synchronisation.
     */
    static boolean receiveWithin(
        final Link link, final ByteBuffer buffer, final DatagramInfo info, final long timeoutMillis)
    {
        final long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true)
        {
            if (link.receive(buffer, info))
            {
                return true;
            }
            final long remaining = deadline - System.nanoTime();
            if (remaining <= 0)
            {
                return false;
            }
            link.awaitReadable(remaining);
        }
    }

    /**
     * Receive texts until {@code marker} arrives; fail if it does not come in time.
     */
    static java.util.List<String> receiveUntil(final Link link, final String marker, final long timeoutMillis)
    {
        final java.util.List<String> texts = new java.util.ArrayList<>();
        final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
        final DatagramInfo info = new DatagramInfo();
        while (true)
        {
            if (!receiveWithin(link, buffer, info, timeoutMillis))
            {
                throw new AssertionError("no " + marker + " within " + timeoutMillis + " ms, got " + texts);
            }
            final String text = text(buffer);
            if (text.equals(marker))
            {
                return texts;
            }
            texts.add(text);
        }
    }
}
