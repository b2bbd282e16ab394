package io.rdma4j.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
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
import java.net.InetSocketAddress;
import java.util.EnumSet;
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
    private static final int PEER_RECEIVES = 4;
    private static final int PEER_SIZE = 4096;

    /** A plain RC peer that accepted the channel's connection, its receives posted. */
    private record Peer(EventChannel events, CmId listener, CmId id, CompletionQueue cq, QueuePair qp,
        MemoryRegion mr, Channel channel) implements AutoCloseable
    {
        @Override
        public void close() throws IOException
        {
            if (id.qp() != null)
            {
                id.destroyQp();
            }
            mr.close();
            cq.close();
            id.close();
            listener.close();
            events.close();
        }
    }

    private Peer connect(final Arena arena, final Collector collector, final Map<ChannelOption<?>, Object> options)
        throws Exception
    {
        final EventChannel events = RdmaCm.createEventChannel();
        final CmId listener = events.createId(null, PortSpace.TCP);
        listener.bindAddr(new InetSocketAddress(net.serverHost, 0));
        listener.listen(1);
        final ChannelFuture connect = net.connect(listener.localAddress(), collector, options);
        final CmEvent request = events.expect(CmEventType.CONNECT_REQUEST, 10, TimeUnit.SECONDS);
        final CmId id = request.id();
        request.ack();
        final CompletionQueue cq = id.verbs().createCq(16, null, 0);
        final QueuePair qp = id.createQp(null, QpInitAttr.of(QpType.RC, cq, QpCap.of(8, PEER_RECEIVES)));
        final MemoryRegion mr = qp.pd().regMr(arena.allocate((long)PEER_RECEIVES * PEER_SIZE),
            EnumSet.of(AccessFlag.LOCAL_WRITE));
        for (int i = 0; i < PEER_RECEIVES; i++)
        {
            repost(qp, mr, i);
        }
        id.accept(ConnParam.withPrivateData(RdmaEndpoint.privateData(PEER_RECEIVES, PEER_SIZE)));
        events.expect(CmEventType.ESTABLISHED, 10, TimeUnit.SECONDS).ack();
        return new Peer(events, listener, id, cq, qp, mr, connect.sync().channel());
    }

    private static void repost(final QueuePair qp, final MemoryRegion mr, final long index)
    {
        qp.postRecv(new RecvWr().wrId(index).sge(mr, index * PEER_SIZE, PEER_SIZE));
    }

    @Test
    void aSilentConnectionFindsItsVanishedPeer() throws Exception
    {
        try (Arena arena = Arena.ofShared())
        {
            final Collector collector = new Collector(Integer.MAX_VALUE);
            try (Peer peer = connect(arena, collector, Map.of(ChannelOption.SO_KEEPALIVE, true,
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
        final int probesWanted = 4 * PEER_RECEIVES;
        try (Arena arena = Arena.ofShared())
        {
            final Collector collector = new Collector(Integer.MAX_VALUE);
            try (Peer peer = connect(arena, collector, Map.of(ChannelOption.SO_KEEPALIVE, true,
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
                            repost(peer.qp(), peer.mr(), wcs[i].wrId());
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
