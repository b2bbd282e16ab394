package io.rdma4j.tools;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Connection requests that never complete, sent to a tool's server from this JVM's own soft device: an RC
 * request naming a QP the application says it made (so on the server's REP the connection manager reports
 * CONNECT_RESPONSE and waits for an establish that never comes: no RTU, the server's side stays half-open), or
 * a SIDR request whose path is never used (no message ever follows). What a forger on the wire can do with a
 * REQ and no RTU, through the public API.
 */
final class HalfOpenForger implements AutoCloseable
{
    private static final long EVENT_WAIT_S = 30;
    private static final int RESOLVE_MS = 2000;
    /** A QP number the forger claims and never makes. */
    private static final int CLAIMED_QPN = 0x00BEEF;

    private final EventChannel channel = RdmaCm.createEventChannel();
    private final List<CmId> ids = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private int answered;

    /**
     * Send {@code count} RC requests and wait until the server has answered each with its REP.
     *
     * @param bind   this JVM's address for the forger's device.
     * @param server the server's address.
     * @param port   its port.
     * @param count  how many requests.
     * @return the forger, holding the half-open connections until closed.
     */
    static HalfOpenForger rcRequests(final String bind, final String server, final int port, final int count)
        throws InterruptedException
    {
        final HalfOpenForger forger = new HalfOpenForger();
        try
        {
            for (int i = 0; i < count; i++)
            {
                final CmId id = forger.resolved(PortSpace.TCP, bind, server, port);
                id.connect(new ConnParam(null, 1, 1, 0, 7, 7, false, CLAIMED_QPN + i));
            }
            for (int i = 0; i < count; i++)
            {
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
     * Send {@code count} RC requests one after another, each once the one before was answered with a REP
     * (CONNECT_RESPONSE here) or {@code patienceSeconds} went by unanswered, and count the REPs: how many
     * half-open connections the server holds for requests that never complete.
     *
     * @return the forger; {@link #answered()} says how many were answered.
     */
    static HalfOpenForger rcRequestsCountingReplies(final String bind, final String server, final int port,
        final int count, final long patienceSeconds) throws InterruptedException
    {
        final HalfOpenForger forger = new HalfOpenForger();
        try
        {
            for (int i = 0; i < count; i++)
            {
                final CmId id = forger.resolved(PortSpace.TCP, bind, server, port);
                final int before = forger.answered;
                id.connect(new ConnParam(null, 1, 1, 0, 7, 7, false, CLAIMED_QPN + i));
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(patienceSeconds);
                long left;
                while (forger.answered == before && (left = deadline - System.nanoTime()) > 0)
                {
                    final CmEvent event = forger.channel.getEvent(left, TimeUnit.NANOSECONDS);
                    if (event != null)
                    {
                        forger.answered += event.type() == CmEventType.CONNECT_RESPONSE ? 1 : 0;
                        event.ack();
                    }
                }
            }
            return forger;
        }
        catch (final RuntimeException | InterruptedException | AssertionError ex)
        {
            forger.close();
            throw ex;
        }
    }

    /** @return the REPs {@link #rcRequestsCountingReplies} counted. */
    int answered()
    {
        return answered;
    }

    /**
     * Send one SIDR request from a UD QP and wait until the server has answered it; no message follows.
     */
    static HalfOpenForger sidrRequest(final String bind, final String server, final int port)
        throws InterruptedException
    {
        final HalfOpenForger forger = new HalfOpenForger();
        try
        {
            final CmId id = forger.resolved(PortSpace.UDP, bind, server, port);
            final ProtectionDomain pd = id.verbs().allocPd();
            final CompletionQueue cq = id.verbs().createCq(4, null, 0);
            final QueuePair qp = id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(1, 1)));
            forger.resources.addAll(List.of(id::destroyQp, cq, pd));
            assert qp != null;
            id.connect(new ConnParam(null, 0, 0, 0, 0, 0, false, 0));
            forger.expect(CmEventType.ESTABLISHED);
            return forger;
        }
        catch (final RuntimeException | InterruptedException | AssertionError ex)
        {
            forger.close();
            throw ex;
        }
    }

    /**
     * Wait until the server has dropped {@code count} of the forger's half-open connections (each a DREQ, so a
     * DISCONNECTED here), or {@code seconds} have passed.
     *
     * @return how many were dropped.
     */
    int awaitDropped(final int count, final long seconds) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        int dropped = 0;
        while (dropped < count)
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                break;
            }
            final CmEvent event = channel.getEvent(left, TimeUnit.NANOSECONDS);
            if (event == null)
            {
                break;
            }
            dropped += event.type() == CmEventType.DISCONNECTED ? 1 : 0;
            event.ack();
        }
        return dropped;
    }

    private CmId resolved(final PortSpace space, final String bind, final String server, final int port)
        throws InterruptedException
    {
        final CmId id = channel.createId(null, space);
        ids.add(id);
        id.resolveAddr(new InetSocketAddress(InetAddress.ofLiteral(bind), 0),
            new InetSocketAddress(InetAddress.ofLiteral(server), port), RESOLVE_MS);
        expect(CmEventType.ADDR_RESOLVED);
        id.resolveRoute(RESOLVE_MS);
        expect(CmEventType.ROUTE_RESOLVED);
        return id;
    }

    private void expect(final CmEventType type) throws InterruptedException
    {
        final CmEvent event = channel.getEvent(EVENT_WAIT_S, TimeUnit.SECONDS);
        if (event == null)
        {
            throw new AssertionError("the forger got no CM event within " + EVENT_WAIT_S + " s; wanted " + type);
        }
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
        for (final AutoCloseable resource : resources)
        {
            try
            {
                resource.close();
            }
            catch (final Exception ignored)
            {
                // best effort: the test is over
            }
        }
        ids.forEach(CmId::close);
        channel.close();
    }
}
