package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static io.rdma4j.soft.cm.CmTestSupport.expectAndAck;

/**
 * A server and a client on one {@link CmFabric} and one {@link ConnectionManager}, for tests that
 * need a listener, a connection request or an RC connection and then poke at the protocol.
 */
final class CmPeers implements AutoCloseable
{
    static final int SERVER = 1;
    static final int CLIENT = 2;

    final CmFabric fabric;
    final ConnectionManager cm;
    final EventChannel serverChannel;
    final EventChannel clientChannel;
    final CmId listener;
    /** What closing each id takes, last registered first (its QP before the id). */
    private final Map<CmId, Deque<Runnable>> closers = new LinkedHashMap<>();

    CmPeers(final CmFabric fabric, final ConnectionManager cm)
    {
        this.fabric = fabric;
        this.cm = cm;
        fabric.device(SERVER);
        fabric.device(CLIENT);
        serverChannel = SoftEventChannel.create(cm);
        clientChannel = SoftEventChannel.create(cm);
        listener = serverChannel.createId("listener", PortSpace.TCP);
        listener.bindAddr(fabric.socketAddress(SERVER, 0));
        listener.listen(10);
    }

    /**
     * @return a client id with its address and route resolved to the listener.
     */
    CmId resolvedClient() throws InterruptedException
    {
        final CmId id = clientChannel.createId("client", PortSpace.TCP);
        onClose(id, id::close);
        id.resolveAddr(fabric.socketAddress(CLIENT, 0), fabric.socketAddress(SERVER, listener.localAddress().getPort()),
            2000);
        expectAndAck(clientChannel, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(2000);
        expectAndAck(clientChannel, CmEventType.ROUTE_RESOLVED);
        return id;
    }

    /** Give an id an RC QP on a CQ of its own. */
    void rcQp(final CmId id)
    {
        final CompletionQueue cq = id.verbs().createCq(16, null, 0);
        id.createQp(null, QpInitAttr.of(QpType.RC, cq, new QpCap(8, 8, 1, 1, 0)));
        onClose(id, () ->
        {
            id.destroyQp();
            cq.close();
        });
    }

    /**
     * @return the server's id of a connection request made by a client with a QP, acknowledged.
     */
    CmId request(final CmId client) throws InterruptedException
    {
        rcQp(client);
        client.connect(null);
        final CmEvent request = expect(serverChannel, CmEventType.CONNECT_REQUEST);
        request.ack();
        onClose(request.id(), request.id()::close);
        return request.id();
    }

    /**
     * @return {client, server}: an RC connection both sides saw ESTABLISHED on.
     */
    CmId[] connect() throws InterruptedException
    {
        final CmId client = resolvedClient();
        final CmId server = request(client);
        rcQp(server);
        server.accept(null);
        expectAndAck(clientChannel, CmEventType.ESTABLISHED);
        expectAndAck(serverChannel, CmEventType.ESTABLISHED);
        return new CmId[] {client, server};
    }

    static CmConnection connection(final CmId id)
    {
        return ((SoftCmId)id).connectionForTest();
    }

    static SoftEngine engine(final CmId id)
    {
        return SoftEngine.of(id.verbs());
    }

    Gid ip(final int host)
    {
        return Gid.fromInet(fabric.address(host));
    }

    /** Hand a message to the CM as if the device of {@code to} had received it from {@code fromIp}. */
    void inject(final CmId to, final CmMessage message, final Gid fromIp)
    {
        cm.receive(engine(to), CmWire.encode(message), fromIp, 4791);
    }

    private void onClose(final CmId id, final Runnable closer)
    {
        closers.computeIfAbsent(id, key -> new ArrayDeque<>()).addFirst(closer);
    }

    /** Destroy an id made here, with its QP and CQ. */
    void close(final CmId id)
    {
        final Deque<Runnable> steps = closers.remove(id);
        if (steps != null)
        {
            steps.forEach(Runnable::run);
        }
    }

    @Override
    public void close()
    {
        final List<CmId> ids = new ArrayList<>(closers.keySet());
        for (final CmId id : ids.reversed())
        {
            close(id);
        }
        listener.close();
        clientChannel.close();
        serverChannel.close();
    }
}
