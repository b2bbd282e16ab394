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

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The far side of a channel's connection as plain rdma4j: it listens, accepts with the transport's parameters in
 * its private data and {@value #RECEIVES} receives of {@value #SIZE} bytes posted, and then does only what the
 * test does with its QP, so a test can make the peer vanish or watch each SEND arrive.
 *
 * @param events   its event channel.
 * @param listener its listener.
 * @param id       the accepted connection's id.
 * @param cq       the QP's completion queue.
 * @param qp       the QP.
 * @param mr       the receive buffers.
 * @param channel  the connected channel of the transport.
 */
record PlainPeer(EventChannel events, CmId listener, CmId id, CompletionQueue cq, QueuePair qp, MemoryRegion mr,
    Channel channel) implements AutoCloseable
{
    static final int RECEIVES = 4;
    static final int SIZE = 4096;

    /**
     * Connect a channel of {@code net} to a new plain peer.
     *
     * @param net     the test's addresses and event loops.
     * @param arena   where the receive buffers live.
     * @param handler the channel's handler.
     * @param options the channel's options.
     * @return the peer, established.
     * @throws Exception if the connection is not made within 10 s.
     */
    static PlainPeer connect(final NettyFixture net, final Arena arena, final Collector handler,
        final Map<ChannelOption<?>, Object> options) throws Exception
    {
        final EventChannel events = RdmaCm.createEventChannel();
        final CmId listener = events.createId(null, PortSpace.TCP);
        listener.bindAddr(new InetSocketAddress(net.serverHost, 0));
        listener.listen(1);
        final ChannelFuture connect = net.connect(listener.localAddress(), handler, options);
        final CmEvent request = events.expect(CmEventType.CONNECT_REQUEST, 10, TimeUnit.SECONDS);
        final CmId id = request.id();
        request.ack();
        final CompletionQueue cq = id.verbs().createCq(16, null, 0);
        final QueuePair qp = id.createQp(null, QpInitAttr.of(QpType.RC, cq, QpCap.of(8, RECEIVES)));
        final MemoryRegion mr = qp.pd().regMr(arena.allocate((long)RECEIVES * SIZE),
            EnumSet.of(AccessFlag.LOCAL_WRITE));
        final PlainPeer peer = new PlainPeer(events, listener, id, cq, qp, mr, null);
        for (int i = 0; i < RECEIVES; i++)
        {
            peer.repost(i);
        }
        id.accept(ConnParam.withPrivateData(RdmaEndpoint.privateData(RECEIVES, SIZE)));
        events.expect(CmEventType.ESTABLISHED, 10, TimeUnit.SECONDS).ack();
        return new PlainPeer(events, listener, id, cq, qp, mr, connect.sync().channel());
    }

    /**
     * Post receive buffer {@code index} (again).
     *
     * @param index 0..{@value #RECEIVES} - 1.
     */
    void repost(final long index)
    {
        qp.postRecv(new RecvWr().wrId(index).sge(mr, index * SIZE, SIZE));
    }

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
