package io.rdma4j.netty;

import io.netty.channel.ChannelOption;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code SO_KEEPALIVE}: a connection with nothing to send probes its peer when silent, so a peer that vanished
 * fails it, and a live peer that gives the probes' credits back is probed for as long as the silence lasts. The
 * peer is plain rdma4j speaking the transport's handshake, so the test sees each probe arrive, which the
 * application on the channel never does.
 */
@Timeout(60)
class KeepAliveTest extends NettyTestBase
{
    @Test
    void aSilentConnectionFindsItsVanishedPeer() throws Exception
    {
        try (Arena arena = Arena.ofShared())
        {
            final Collector collector = new Collector(Integer.MAX_VALUE);
            try (PlainPeer peer = PlainPeer.connect(net, arena, collector, Map.of(ChannelOption.SO_KEEPALIVE, true,
                RdmaChannelOption.KEEPALIVE_IDLE_MILLIS, 100, RdmaChannelOption.RETRY_COUNT, 2)))
            {
                assertEquals(true, peer.channel().config().getOption(ChannelOption.SO_KEEPALIVE));
                peer.id().destroyQp();
                // the channel writes nothing: only its probes can find the peer gone
                assertTrue(peer.channel().closeFuture().await(30, TimeUnit.SECONDS), "keepalive gave up on the peer");
                assertFalse(peer.channel().isActive());
                final Throwable cause = collector.done.exceptionNow();
                assertInstanceOf(IOException.class, cause);
                assertTrue(cause.getMessage().contains("SEND failed"), cause.getMessage());
            }
        }
    }

    @Test
    void probesALivePeerForAsLongAsTheSilenceLasts() throws Exception
    {
        final int probesWanted = 4 * PlainPeer.RECEIVES;
        try (Arena arena = Arena.ofShared())
        {
            final Collector collector = new Collector(Integer.MAX_VALUE);
            try (PlainPeer peer = PlainPeer.connect(net, arena, collector, Map.of(ChannelOption.SO_KEEPALIVE, true,
                RdmaChannelOption.KEEPALIVE_IDLE_MILLIS, 20)))
            {
                // each probe takes one of the peer's four receives; it answers each with its credit back, as the
                // transport does with its next SEND, so the probes must go on well past four
                final WorkCompletion[] wcs = WorkCompletion.array(8);
                final SendWr credit = new SendWr().opcode(WrOpcode.SEND_WITH_IMM).immData(1)
                    .sendFlags(SendFlags.SIGNALED);
                credit.sgList().numSge(0);
                int probes = 0;
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (probes < probesWanted && System.nanoTime() < deadline)
                {
                    final int n = peer.cq().poll(wcs, 1, TimeUnit.SECONDS);
                    for (int i = 0; i < n; i++)
                    {
                        assertEquals(WcStatus.SUCCESS, wcs[i].status(), wcs[i].toString());
                        if (wcs[i].opcode() == WcOpcode.RECV)
                        {
                            assertEquals(0, wcs[i].byteLen(), "the channel sent data; it was to send nothing");
                            probes++;
                            peer.repost(wcs[i].wrId());
                            peer.qp().postSend(credit);
                        }
                    }
                }
                assertTrue(probes >= probesWanted, "probes seen: " + probes);
                assertTrue(peer.channel().isActive());
                assertFalse(collector.done.isDone(), "the channel failed or closed");
                peer.channel().close().sync();
            }
        }
    }
}
