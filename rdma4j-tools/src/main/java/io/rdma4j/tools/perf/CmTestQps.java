package io.rdma4j.tools.perf;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventException;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.UdParam;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WrOpcode;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The test's QPs connected through rdma_cm, as perftest's {@code -R} connects them: one id per QP on the test's port
 * (the exchange's listener has gone by then), each QP made on its id in the run's PD. The server listens and accepts
 * every request; the client connects its ids one after the other and starts again from scratch when the server
 * refuses, which perftest's server does while it has not yet listened (it listens only after the swap that lets
 * the client go), 100 ms apart as perftest's client.
 */
final class CmTestQps implements AutoCloseable
{
    /** perftest's client tries ten times; its server under emulation may take longer to listen. */
    private static final int TRIES = 30;
    private static final long RETRY_PAUSE_MS = 100;
    private static final long EVENT_WAIT_S = 30;

    private final EventChannel events;
    private final List<CmId> ids = new ArrayList<>();
    /** On UD, what the connections taught about the peer's QPs; null on RC. */
    private UdPeer udPeer;
    /** The server's listener until every QP is connected. */
    private CmId listener;

    private CmTestQps(final EventChannel events)
    {
        this.events = events;
    }

    private static ConnParam params(final PerfTest test)
    {
        final boolean reads = test.opcode() == WrOpcode.RDMA_READ || test.opcode() == WrOpcode.ATOMIC_CMP_AND_SWP ||
            test.opcode() == WrOpcode.ATOMIC_FETCH_AND_ADD;
        final int outstanding = reads ? RdmaPeer.MAX_RD_ATOMIC : 0;
        return ConnParam.builder().responderResources(outstanding).initiatorDepth(outstanding).retryCount(7)
            .rnrRetryCount(7).build();
    }

    /**
     * The server's first step: listen on the port, before the swap after which perftest's client connects at
     * once (a request that comes before the listener is rejected, and perftest's client does not survive its own
     * retry of it).
     *
     * @param bind the local address, or null for every one.
     * @param port the test's port.
     * @param cfg  the run.
     * @return the listening side, to {@link #acceptAll} once the swap is done.
     * @throws PerfException if the connection manager refuses the port.
     */
    static CmTestQps listen(final InetAddress bind, final int port, final PerfConfig cfg) throws PerfException
    {
        final CmTestQps qps = new CmTestQps(RdmaCm.createEventChannel());
        try
        {
            qps.listener = qps.events.createId(null, portSpace(cfg));
            qps.listener.bindAddr(new InetSocketAddress(bind == null ? InetAddress.getByName("0.0.0.0") : bind,
                port));
            qps.listener.listen(cfg.numQp());
            return qps;
        }
        catch (final RdmaException | UnknownHostException ex)
        {
            qps.close();
            throw new PerfException("rdma_cm port " + port + " for the test's QPs: " + ex.getMessage(), ex);
        }
    }

    /**
     * The server's second step: accept every QP's request and wait until each is ESTABLISHED, then stop listening.
     *
     * @param peer this side's resources, whose QPs the ids make.
     * @param cfg  the run.
     * @throws PerfException        if the connection manager refuses or an event other than those expected comes.
     * @throws InterruptedException if interrupted.
     */
    void acceptAll(final RdmaPeer peer, final PerfConfig cfg) throws PerfException, InterruptedException
    {
        try
        {
            int established = 0;
            while (established < cfg.numQp())
            {
                final CmEvent event = events.getEvent(EVENT_WAIT_S, TimeUnit.SECONDS);
                if (event == null)
                {
                    throw new PerfException("rdma_cm: " + ids.size() + " of " + cfg.numQp() + " QPs requested and " +
                        established + " established after " + EVENT_WAIT_S + " s");
                }
                final CmEventType type = event.type();
                final CmId id = event.id();
                event.ack();
                if (type == CmEventType.CONNECT_REQUEST && ids.size() < cfg.numQp() && cfg.transport() == QpType.UD)
                {
                    ids.add(id);
                    udPeer().accepted(ids.size() - 1, id, peer, cfg);
                    // SIDR has no ESTABLISHED: the reply is the connection
                    established++;
                }
                else if (type == CmEventType.CONNECT_REQUEST && ids.size() < cfg.numQp())
                {
                    ids.add(id);
                    peer.adoptQp(ids.size() - 1, id.createQp(peer.pd(), peer.qpInitAttr()));
                    id.accept(params(cfg.test()));
                }
                else if (type == CmEventType.ESTABLISHED)
                {
                    established++;
                }
                else
                {
                    throw new PerfException("rdma_cm: " + type.description() + " while connecting the test's QPs");
                }
            }
            listener.close();
            listener = null;
        }
        catch (final RdmaException ex)
        {
            throw new PerfException("rdma_cm: accepting the test's QPs: " + ex.getMessage(), ex);
        }
    }

    /**
     * The client's side: connect one id per QP to the server's port.
     *
     * @param server the server's address.
     * @param port   the test's port.
     * @param peer   this side's resources, whose QPs the ids make.
     * @param cfg    the run.
     * @return the connections.
     * @throws PerfException        if the server refused every try, or the connection manager refuses.
     * @throws InterruptedException if interrupted.
     */
    static CmTestQps connect(final String server, final int port, final RdmaPeer peer, final PerfConfig cfg)
        throws PerfException, InterruptedException
    {
        final InetSocketAddress target;
        try
        {
            target = new InetSocketAddress(InetAddress.getByName(server), port);
        }
        catch (final UnknownHostException ex)
        {
            throw new PerfException("rdma_cm: " + ex.getMessage(), ex);
        }
        for (int tries = 1; ; tries++)
        {
            final CmTestQps qps = new CmTestQps(RdmaCm.createEventChannel());
            try
            {
                for (int i = 0; i < cfg.numQp(); i++)
                {
                    final CmId id = qps.events.createId(null, portSpace(cfg));
                    qps.ids.add(id);
                    CmControlLink.resolve(qps.events, id, target);
                    peer.adoptQp(i, id.createQp(peer.pd(), peer.qpInitAttr()));
                    id.connect(params(cfg.test()));
                    final CmEvent established = qps.events.expect(CmEventType.ESTABLISHED, EVENT_WAIT_S,
                        TimeUnit.SECONDS);
                    final UdParam ud = established.udParam();
                    established.ack();
                    if (cfg.transport() == QpType.UD)
                    {
                        qps.udPeer().replied(i, ud, peer, cfg);
                    }
                }
                return qps;
            }
            catch (final CmEventException ex)
            {
                qps.close();
                if (tries == TRIES)
                {
                    throw new PerfException("rdma_cm: the test's QPs did not connect to " + target + " in " + TRIES +
                        " tries: " + ex.getMessage(), ex);
                }
                TimeUnit.MILLISECONDS.sleep(RETRY_PAUSE_MS);
            }
            catch (final RdmaException ex)
            {
                qps.close();
                throw new PerfException("rdma_cm: connecting the test's QPs to " + target + ": " + ex.getMessage(), ex);
            }
        }
    }

    private static PortSpace portSpace(final PerfConfig cfg)
    {
        return cfg.transport() == QpType.UD ? PortSpace.UDP : PortSpace.TCP;
    }

    private UdPeer udPeer()
    {
        if (udPeer == null)
        {
            udPeer = new UdPeer();
        }
        return udPeer;
    }

    /**
     * @return on UD, the peer's QPNs, Q_Key and address as the connections gave them; null on RC.
     */
    UdPeer ud()
    {
        return udPeer;
    }

    /**
     * Disconnect, destroy the QPs and the ids; call before the run's resources close (the QPs are in its PD).
     */
    @Override
    public void close()
    {
        if (listener != null)
        {
            listener.close();
            listener = null;
        }
        for (final CmId id : ids)
        {
            try
            {
                // a UD id has no connection to end (perftest disconnects none either)
                if (udPeer == null)
                {
                    id.disconnect();
                }
            }
            catch (final RdmaException ex)
            {
                // not connected, or the peer went first
            }
            if (id.qp() != null)
            {
                id.destroyQp();
            }
            id.close();
        }
        ids.clear();
        events.close();
    }
}
