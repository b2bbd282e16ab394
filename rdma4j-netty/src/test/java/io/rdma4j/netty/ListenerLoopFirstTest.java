package io.rdma4j.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.netty.example.RdmaEcho;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A listener's loop that ends before the loop of a connection it accepted: the request's id lives on the
 * listener loop's event channel, which must outlive that loop while the connection has the id, and close once the
 * connection closes it, on the connection's loop; never a failed close (EBUSY) and a channel left open for good.
 */
@Timeout(60)
class ListenerLoopFirstTest extends NettyTestBase
{
    /** What one class logs at WARNING or above, captured. */
    private static final class Warnings extends Handler implements AutoCloseable
    {
        final List<LogRecord> records = new CopyOnWriteArrayList<>();
        private final Logger logger;

        Warnings(final Class<?> source)
        {
            logger = Logger.getLogger(source.getName());
            logger.addHandler(this);
        }

        @Override
        public void publish(final LogRecord record)
        {
            if (record.getLevel().intValue() >= Level.WARNING.intValue())
            {
                records.add(record);
            }
        }

        @Override
        public void flush()
        {
        }

        @Override
        public void close()
        {
            logger.removeHandler(this);
        }
    }

    /**
     * @return whether the channel is closed: a look for an event fails with EINVAL then. An event found (none is
     *     expected, nobody else reads the channel any more) is acknowledged.
     */
    private static boolean closed(final EventChannel channel) throws InterruptedException
    {
        try
        {
            final CmEvent event = channel.getEvent(0, TimeUnit.SECONDS);
            if (event != null)
            {
                event.ack();
            }
            return false;
        }
        catch (final RdmaException ex)
        {
            assertEquals(Errno.EINVAL, ex.errno(), ex.getMessage());
            return true;
        }
    }

    @Test
    void theListenerLoopsEventChannelClosesWithTheLastAcceptedIdAfterTheLoopIsGone() throws Exception
    {
        final MultiThreadIoEventLoopGroup listenerLoop = new MultiThreadIoEventLoopGroup(1,
            RdmaIoHandler.newFactory());
        final MultiThreadIoEventLoopGroup childLoop = new MultiThreadIoEventLoopGroup(1, RdmaIoHandler.newFactory());
        try (Warnings warnings = new Warnings(LoopDevices.class))
        {
            final LinkedBlockingQueue<RdmaChannel> children = new LinkedBlockingQueue<>();
            final Accepted accepted = new Accepted();
            final Channel server = new ServerBootstrap().group(listenerLoop, childLoop).channel(RdmaServerChannel.class)
                .childHandler(new ChannelInitializer<RdmaChannel>()
                {
                    @Override
                    protected void initChannel(final RdmaChannel ch)
                    {
                        children.add(ch);
                        ch.pipeline().addLast(accepted, new RdmaEcho.EchoHandler());
                    }
                }).bind(new InetSocketAddress(net.serverHost, 0)).sync().channel();
            final int length = 64 * 1024;
            final Collector echoed = new Collector(length);
            final Channel client = net.connect((InetSocketAddress)server.localAddress(), echoed).sync().channel();
            final RdmaChannel child = children.poll(10, TimeUnit.SECONDS);
            assertNotNull(child);
            // its ESTABLISHED comes through the listener's loop: that loop may go only once the child has it
            accepted.active.get(10, TimeUnit.SECONDS);
            final EventChannel events = child.eventLoop().submit(() -> child.cmId().channel()).get();

            // the listener's loop first: the listener goes with it, the child stays on its own loop
            assertTrue(listenerLoop.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
            assertFalse(server.isOpen());
            assertFalse(closed(events), "the event channel stays while the child has its id");
            final byte[] data = new byte[length];
            new Random(41).nextBytes(data);
            client.writeAndFlush(Unpooled.wrappedBuffer(data)).sync();
            assertArrayEquals(data, echoed.done.get(10, TimeUnit.SECONDS), "the child still echoes");

            // the child closes its id on its loop, and with it the other loop's event channel
            child.close().sync();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            boolean closed;
            while (!(closed = closed(events)) && System.nanoTime() < deadline)
            {
                // the id goes once the endpoint retires, which no event announces: look again shortly
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            assertTrue(closed, "the listener loop's event channel closed with its last id");
            assertEquals(List.of(), warnings.records.stream().map(LogRecord::getMessage).toList(),
                "nothing failed to close");
            client.close().sync();
        }
        finally
        {
            listenerLoop.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
            childLoop.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
