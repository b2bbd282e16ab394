package io.rdma4j.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.util.EnumSet;
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
    private static final int PEER_RECEIVES = 4;
    private static final int PEER_SIZE = 4096;

    @Test
    void sendsToAVanishedPeerFailTheChannel()
        throws Exception
    {
        try (EventChannel events = RdmaCm.createEventChannel(); Arena arena = Arena.ofShared())
        {
            // the peer is plain rdma4j: it speaks the transport's handshake (receives posted, its parameters in
            // the private data) and then drops its QP without disconnecting
            final CmId listener = events.createId(null, PortSpace.TCP);
            listener.bindAddr(new InetSocketAddress(net.serverHost, 0));
            listener.listen(1);

            final Collector collector = new Collector(Integer.MAX_VALUE);
            // two retries of about 2 s each: the failure comes within seconds
            final ChannelFuture connect = net.connect(listener.localAddress(), collector,
                Map.of(RdmaChannelOption.RETRY_COUNT, 2));

            final CmEvent request = events.expect(CmEventType.CONNECT_REQUEST, 10, TimeUnit.SECONDS);
            final CmId peer = request.id();
            request.ack();
            final CompletionQueue cq = peer.verbs().createCq(16, null, 0);
            final QueuePair qp = peer.createQp(null, QpInitAttr.of(QpType.RC, cq, QpCap.of(4, PEER_RECEIVES)));
            final MemoryRegion mr = qp.pd().regMr(arena.allocate((long)PEER_RECEIVES * PEER_SIZE),
                EnumSet.of(AccessFlag.LOCAL_WRITE));
            for (int i = 0; i < PEER_RECEIVES; i++)
            {
                qp.postRecv(new RecvWr().wrId(i).sge(mr, (long)i * PEER_SIZE, PEER_SIZE));
            }
            peer.accept(ConnParam.withPrivateData(RdmaEndpoint.privateData(PEER_RECEIVES, PEER_SIZE)));
            events.expect(CmEventType.ESTABLISHED, 10, TimeUnit.SECONDS).ack();
            final Channel client = connect.sync().channel();

            peer.destroyQp();
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

            mr.close();
            cq.close();
            peer.close();
            listener.close();
        }
    }
}
