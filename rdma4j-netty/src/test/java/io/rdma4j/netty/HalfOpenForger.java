package io.rdma4j.netty;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Connection requests to a server of this transport that never complete, from this JVM's own soft device: each
 * carries the transport's parameters in its private data, so the server accepts it, and names a QP the forger
 * says it made and never did, so on the server's REP the connection manager reports CONNECT_RESPONSE here and
 * sends no RTU. The server's side stays half-open: what a forger on the wire does with a REQ and nothing after.
 */
final class HalfOpenForger implements AutoCloseable
{
    private static final long EVENT_WAIT_S = 20;
    private static final int RESOLVE_MS = 2000;
    /** A QP number the forger claims and never makes. */
    private static final int CLAIMED_QPN = 0x00BEEF;

    private final EventChannel channel = RdmaCm.createEventChannel();
    private final List<CmId> ids = new ArrayList<>();

    /**
     * Send {@code count} requests, each once the one before was answered, and wait for the server's REP to each.
     *
     * @param bind   this JVM's address for the forger's device.
     * @param server the server's listener.
     * @param count  how many requests.
     * @return the forger, holding the requests until closed.
     * @throws InterruptedException if interrupted.
     */
    static HalfOpenForger requests(final InetAddress bind, final InetSocketAddress server, final int count)
        throws InterruptedException
    {
        final HalfOpenForger forger = new HalfOpenForger();
        try
        {
            for (int i = 0; i < count; i++)
            {
                forger.request(bind, server, i);
                forger.expect(CmEventType.CONNECT_RESPONSE);
            }
            return forger;
        }
        catch (final RuntimeException | InterruptedException | AssertionError ex)
        {
            forger.close();
            throw ex;
        }
    }

    /**
     * Send one more request and wait for its answer.
     *
     * @param bind   this JVM's address for the forger's device.
     * @param server the server's listener.
     * @return the answer's type: CONNECT_RESPONSE (the server's REP) or REJECTED.
     * @throws InterruptedException if interrupted.
     */
    CmEventType oneMore(final InetAddress bind, final InetSocketAddress server) throws InterruptedException
    {
        request(bind, server, ids.size());
        final CmEvent event = next();
        event.ack();
        return event.type();
    }

    private void request(final InetAddress bind, final InetSocketAddress server, final int n)
        throws InterruptedException
    {
        final CmId id = channel.createId(null, PortSpace.TCP);
        ids.add(id);
        id.resolveAddr(new InetSocketAddress(bind, 0), server, RESOLVE_MS);
        expect(CmEventType.ADDR_RESOLVED);
        id.resolveRoute(RESOLVE_MS);
        expect(CmEventType.ROUTE_RESOLVED);
        final byte[] parameters = RdmaEndpoint.privateData(RdmaChannelConfig.DEFAULT_RECEIVE_BUFFERS,
            RdmaChannelConfig.DEFAULT_BUFFER_SIZE);
        id.connect(new ConnParam(parameters, 1, 1, 0, 7, 7, false, CLAIMED_QPN + n));
    }

    private CmEvent next() throws InterruptedException
    {
        final CmEvent event = channel.getEvent(EVENT_WAIT_S, TimeUnit.SECONDS);
        if (event == null)
        {
            throw new AssertionError("the forger got no CM event within " + EVENT_WAIT_S + " s");
        }
        return event;
    }

    private void expect(final CmEventType type) throws InterruptedException
    {
        final CmEvent event = next();
        event.ack();
        if (event.type() != type)
        {
            throw new AssertionError("the forger got " + event.type() + " (status " + event.status() + "), wanted " +
                type);
        }
    }

    @Override
    public void close()
    {
        ids.forEach(CmId::close);
        channel.close();
    }
}
