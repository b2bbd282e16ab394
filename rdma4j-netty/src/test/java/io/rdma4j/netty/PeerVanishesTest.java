package io.rdma4j.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer whose data path vanishes without a disconnect (its QP destroyed, as a crashed host's would stop
 * answering): the channel's next SENDs exhaust their retries, the failure reaches {@code exceptionCaught} as an
 * {@link IOException} and the channel closes, all within the test's timeout, rather than waiting for ever.
 */
@Timeout(60)
class PeerVanishesTest extends NettyTestBase
{
    @Test
    void sendsToAVanishedPeerFailTheChannel()
        throws Exception
    {
        try (Arena arena = Arena.ofShared())
        {
            final Collector collector = new Collector(Integer.MAX_VALUE);
            // the peer is plain rdma4j: it speaks the transport's handshake and then drops its QP without
            // disconnecting; two retries of about 2 s each make the failure come within seconds
            try (PlainPeer peer = PlainPeer.connect(net, arena, collector, Map.of(RdmaChannelOption.RETRY_COUNT, 2)))
            {
                final Channel client = peer.channel();
                peer.id().destroyQp();
                final long start = System.nanoTime();
                client.writeAndFlush(Unpooled.wrappedBuffer(new byte[100])).sync();

                assertTrue(client.closeFuture().await(30, TimeUnit.SECONDS), "the channel gave up on its peer");
                final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                // three tries of one ACK timeout each; well under the wait above
                assertTrue(elapsedMs < 20_000, "detected in " + elapsedMs + " ms");
                assertFalse(client.isActive());
                assertTrue(collector.done.isCompletedExceptionally(), "the failure reached exceptionCaught");
                final Throwable cause = collector.done.exceptionNow();
                assertInstanceOf(IOException.class, cause);
                assertTrue(cause.getMessage().contains("SEND failed"), cause.getMessage());
            }
        }
    }
}
