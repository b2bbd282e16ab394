package io.rdma4j.tools.cmatose;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.tools.common.AddressLookup;
import io.rdma4j.tools.common.CmListener;
import io.rdma4j.tools.common.HandshakeDeadlines;
import io.rdma4j.tools.common.RefusedIds;
import io.rdma4j.tools.common.WaitClock;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WorkCompletion;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One cmatose test: the server's and the client's course, and the CM event handlers both share.
 * The server waits until every connection is up, sends first and then takes the replies; the
 * client takes the messages, answers with as many and waits for the server's disconnect.
 */
final class CmatoseRun
{
    /** rdma_resolve_addr's and rdma_resolve_route's timeout, as cmatose passes them. */
    private static final int RESOLVE_TIMEOUT_MS = 2000;
    /** Completions taken per poll, as cmatose's array. */
    private static final int POLL_BATCH = 8;
    /** What cmatose's client asks for in its REQ: one RDMA READ each way, five transport retries, no RNR retry. */
    private static final ConnParam CLIENT_PARAM = new ConnParam(null, 1, 1, 0, 5, 0, false, 0);

    private final CmatoseCommand options;
    private final EventChannel channel;
    private final PrintWriter out;
    private final PrintWriter err;
    private final WaitClock clock;
    private final int count;
    private final int size;
    private final List<CmatoseNode> nodes = new ArrayList<>();
    private final WorkCompletion[] wcs = WorkCompletion.array(POLL_BATCH);
    /** Ids of refused connection requests, destroyed once their event is acknowledged. */
    private final RefusedIds refused = new RefusedIds("cmatose");
    /** When each server node given to a request must be established; a node is taken for good only then. */
    private final HandshakeDeadlines<CmatoseNode> handshakes;
    /** Requests that came while every node was given to one not yet established: the next node freed is theirs. */
    private final ArrayDeque<CmId> waitingRequests = new ArrayDeque<>();
    private int connectsLeft;
    private int disconnectsLeft;

    CmatoseRun(final CmatoseCommand options, final EventChannel channel, final PrintWriter out, final PrintWriter err,
        final WaitClock clock)
    {
        this.options = options;
        this.channel = channel;
        this.out = out;
        this.err = err;
        this.clock = clock;
        this.size = options.size();
        // cmatose: no message size means no messages
        this.count = size == 0 ? 0 : options.count();
        this.connectsLeft = options.connections();
        this.handshakes = new HandshakeDeadlines<>(options.handshakeSeconds());
        for (int i = 0; i < options.connections(); i++)
        {
            nodes.add(new CmatoseNode(i));
        }
    }

    int runServer() throws InterruptedException
    {
        say(out, "cmatose: starting server");
        final InetSocketAddress bind;
        try
        {
            bind = new InetSocketAddress(options.bindAddress() == null ? InetAddress.ofLiteral("0.0.0.0") :
                lookup(options.bindAddress()), options.port());
        }
        catch (final AddressLookup.Failure ex)
        {
            say(out, "cmatose: getrdmaaddr error: %s", ex.getMessage());
            return ex.code();
        }
        final CmId listenId = CmListener.listen(channel, this, options.portSpace(), bind, "cmatose", options.debug(),
            out, err);
        if (listenId == null)
        {
            return -1;
        }
        try
        {
            clock.start();
            int ret = connectEvents();
            if (ret != 0)
            {
                return ret;
            }
            if (count > 0)
            {
                say(out, "initiating data transfers");
                for (final CmatoseNode node : nodes)
                {
                    ret = postSends(node);
                    if (ret != 0)
                    {
                        return ret;
                    }
                }
                say(out, "completing sends");
                ret = pollCqs(false);
                if (ret != 0)
                {
                    return ret;
                }
                say(out, "receiving data transfers");
                ret = pollCqs(true);
                if (ret != 0)
                {
                    return ret;
                }
                say(out, "data transfers complete");
            }
            if (options.migrate())
            {
                return migrateChannel();
            }
            say(out, "cmatose: disconnecting");
            for (final CmatoseNode node : nodes)
            {
                if (node.connected())
                {
                    node.connected(false);
                    disconnect(node.id());
                }
            }
            ret = disconnectEvents();
            say(out, "disconnected");
            return ret;
        }
        finally
        {
            try
            {
                listenId.close();
            }
            catch (final RdmaException ex)
            {
                say(err, "cmatose: destroying the listening id: %s", ex.getMessage());
            }
        }
    }

    int runClient() throws InterruptedException
    {
        say(out, "cmatose: starting client");
        final InetSocketAddress source;
        final InetSocketAddress destination;
        try
        {
            source = options.bindAddress() == null ? null : new InetSocketAddress(lookup(options.bindAddress()), 0);
            destination = new InetSocketAddress(lookup(options.serverAddress()), options.port());
        }
        catch (final AddressLookup.Failure ex)
        {
            say(out, "cmatose: getaddrinfo error: %s", ex.getMessage());
            return ex.code();
        }
        for (final CmatoseNode node : nodes)
        {
            node.id(channel.createId(node, options.portSpace()));
        }
        say(out, "cmatose: connecting");
        for (final CmatoseNode node : nodes)
        {
            try
            {
                node.id().resolveAddr(source, destination, RESOLVE_TIMEOUT_MS);
            }
            catch (final RdmaException ex)
            {
                say(err, "cmatose: failure getting addr: %s", ex.getMessage());
                connectsLeft--;
                return -1;
            }
        }
        clock.start();
        int ret = connectEvents();
        if (ret == 0 && count > 0)
        {
            say(out, "receiving data transfers");
            ret = pollCqs(true);
            if (ret == 0)
            {
                say(out, "sending replies");
                for (final CmatoseNode node : nodes)
                {
                    ret = postSends(node);
                    if (ret != 0)
                    {
                        break;
                    }
                }
            }
            if (ret == 0)
            {
                say(out, "data transfers complete");
            }
        }
        if (ret == 0 && options.migrate())
        {
            return migrateChannel();
        }
        // as cmatose, the client waits for the server's disconnect even after a failure
        final int ret2 = disconnectEvents();
        return ret2 != 0 ? ret2 : ret;
    }

    /**
     * cmatose's destroy_nodes.
     */
    void destroyNodes()
    {
        for (final CmatoseNode node : nodes)
        {
            node.close();
        }
        // requests still waiting for a node when the test ended are refused as the listener goes
        for (final CmId waiting : waitingRequests)
        {
            refused.add(waiting);
        }
        waitingRequests.clear();
        refused.destroy(err);
    }

    /**
     * cmatose's migrate_channel, whose rdma_migrate_id the rdma4j CM lacks: it fails the way cmatose's
     * does when migrating fails.
     */
    private int migrateChannel()
    {
        say(out, "migrating to new event channel");
        say(err, "cmatose: failure migrating to channel: the rdma4j CM has no rdma_migrate_id");
        return -Errno.EOPNOTSUPP.code();
    }

    /**
     * cmatose's connect_events: handle events until every connection is up or has failed, or one
     * handler returns an error.
     */
    private int connectEvents() throws InterruptedException
    {
        int ret = 0;
        while (connectsLeft > 0 && ret == 0)
        {
            ret = nextEvent("%d of %d connections not set up", connectsLeft);
        }
        return ret;
    }

    /**
     * cmatose's disconnect_events: handle events until every connection that came up is down.
     */
    private int disconnectEvents() throws InterruptedException
    {
        int ret = 0;
        while (disconnectsLeft > 0 && ret == 0)
        {
            ret = nextEvent("%d of %d connections not disconnected", disconnectsLeft);
        }
        return ret;
    }

    private int nextEvent(final String waitingFor, final int left) throws InterruptedException
    {
        for (final CmatoseNode late : handshakes.expired())
        {
            say(err, "cmatose: dropping connection %d: not established within %d s", late.index(),
                handshakes.seconds());
            free(late);
        }
        final CmEvent event = channel.getEvent(clock.waitNanos(), TimeUnit.NANOSECONDS);
        if (event == null)
        {
            if (clock.timedOut())
            {
                say(out, "cmatose: timed out after %d s with " + waitingFor, clock.seconds(), left,
                    options.connections());
                return -Errno.ETIMEDOUT.code();
            }
            return 0;
        }
        try
        {
            return cmaHandler(event);
        }
        finally
        {
            event.ack();
            refused.destroy(err);
        }
    }

    private int cmaHandler(final CmEvent event)
    {
        if (options.debug())
        {
            say(out, "cmatose: event %s, status %d", event.type().description(), event.status());
        }
        return switch (event.type())
        {
            case ADDR_RESOLVED -> addrHandler((CmatoseNode)event.id().context());
            case ROUTE_RESOLVED -> routeHandler((CmatoseNode)event.id().context());
            case CONNECT_REQUEST -> connectHandler(event.id());
            case ESTABLISHED ->
            {
                final CmatoseNode node = (CmatoseNode)event.id().context();
                handshakes.done(node);
                node.connected(true);
                connectsLeft--;
                disconnectsLeft++;
                yield 0;
            }
            case CONNECT_ERROR, UNREACHABLE, REJECTED ->
            {
                if (halfOpen(event))
                {
                    yield dropFailed(event);
                }
                say(out, "cmatose: event: %s, error: %d", event.type().description(), event.status());
                connectsLeft--;
                yield event.status();
            }
            case ADDR_ERROR, ROUTE_ERROR ->
            {
                say(out, "cmatose: event: %s, error: %d", event.type().description(), event.status());
                connectsLeft--;
                yield event.status();
            }
            case DISCONNECTED ->
            {
                disconnect(event.id());
                disconnectsLeft--;
                yield 0;
            }
            // DEVICE_REMOVAL: the teardown after the test cleans up
            default -> 0;
        };
    }

    private int addrHandler(final CmatoseNode node)
    {
        // cmatose reports a failed rdma_set_option and goes on; the rdma4j CM has none to call
        if (options.tos() != null)
        {
            say(err, "cmatose: set TOS option failed: the rdma4j CM has no rdma_set_option");
        }
        if (options.ackTimeout() != null)
        {
            say(err, "cmatose: set ack timeout option failed: the rdma4j CM has no rdma_set_option");
        }
        try
        {
            node.id().resolveRoute(RESOLVE_TIMEOUT_MS);
            return 0;
        }
        catch (final RdmaException ex)
        {
            say(err, "cmatose: resolve route failed: %s", ex.getMessage());
            connectsLeft--;
            return -ex.errnoCode();
        }
    }

    private int routeHandler(final CmatoseNode node)
    {
        int ret = initNode(node);
        if (ret == 0)
        {
            ret = postRecvs(node);
        }
        if (ret == 0)
        {
            try
            {
                node.id().connect(CLIENT_PARAM);
            }
            catch (final RdmaException ex)
            {
                say(err, "cmatose: failure connecting: %s", ex.getMessage());
                ret = -ex.errnoCode();
            }
        }
        if (ret != 0)
        {
            connectsLeft--;
        }
        return ret;
    }

    /** @return true if the event is of a server node given to a request not yet established. */
    private boolean halfOpen(final CmEvent event)
    {
        return event.id().context() instanceof CmatoseNode node && handshakes.waiting(node);
    }

    /**
     * A server's request that failed before it was established gives its node back, to the next request
     * waiting for one.
     */
    private int dropFailed(final CmEvent event)
    {
        final CmatoseNode node = (CmatoseNode)event.id().context();
        say(err, "cmatose: dropping connection %d: %s before it was established, status %d", node.index(),
            event.type().description(), event.status());
        handshakes.done(node);
        refused.add(node.giveUp());
        return takeWaitingRequest();
    }

    /**
     * Drop the request a node waits on (its id destroyed: the peer gets a DREQ) and give the node to the next
     * request waiting, if any.
     */
    private void free(final CmatoseNode node)
    {
        handshakes.done(node);
        final CmId id = node.giveUp();
        if (id != null)
        {
            try
            {
                id.close();
            }
            catch (final RdmaException ex)
            {
                say(err, "cmatose: destroying a dropped id: %s", ex.getMessage());
            }
        }
        final int ret = takeWaitingRequest();
        if (ret != 0)
        {
            say(err, "cmatose: a waiting connection request failed: %d", ret);
        }
    }

    /** @return what connectHandler returns for the oldest request waiting for a node, or 0 when none waits. */
    private int takeWaitingRequest()
    {
        final CmId waiting = waitingRequests.poll();
        return waiting == null ? 0 : connectHandler(waiting);
    }

    /** @return a node no request holds, or null. */
    private CmatoseNode freeNode()
    {
        for (final CmatoseNode node : nodes)
        {
            if (node.id() == null && !node.connected())
            {
                return node;
            }
        }
        return null;
    }

    private int connectHandler(final CmId id)
    {
        int ret;
        final CmatoseNode node = freeNode();
        if (node == null && waitingRequests.size() < options.connections() &&
            nodes.stream().anyMatch(handshakes::waiting))
        {
            // a node may yet be freed by a request that never completes: this one waits for it, unanswered
            waitingRequests.add(id);
            return 0;
        }
        if (node == null)
        {
            ret = -Errno.ENOMEM.code();
            refused.add(id);
        }
        else
        {
            node.id(id);
            id.context(node);
            ret = initNode(node);
            if (ret == 0 && options.ackTimeout() != null)
            {
                say(err, "cmatose: set ack timeout option failed: the rdma4j CM has no rdma_set_option");
            }
            if (ret == 0)
            {
                ret = postRecvs(node);
            }
            if (ret == 0)
            {
                try
                {
                    id.accept(null);
                    handshakes.start(node);
                    return 0;
                }
                catch (final RdmaException ex)
                {
                    say(err, "cmatose: failure accepting: %s", ex.getMessage());
                    ret = -ex.errnoCode();
                }
            }
            refused.add(node.giveUp());
            connectsLeft--;
        }
        say(out, "cmatose: failing connection request");
        try
        {
            id.reject(null);
        }
        catch (final RdmaException ex)
        {
            say(err, "cmatose: rejecting: %s", ex.getMessage());
        }
        return ret;
    }

    private int initNode(final CmatoseNode node)
    {
        try
        {
            node.init(count > 0 ? count : 1, count > 0 ? size : 0);
            return 0;
        }
        catch (final RdmaException ex)
        {
            say(err, "cmatose: unable to set up the connection's PD, CQs, QP or MR: %s", ex.getMessage());
            return -ex.errnoCode();
        }
    }

    private int postRecvs(final CmatoseNode node)
    {
        if (count == 0)
        {
            return 0;
        }
        try
        {
            node.postRecvs(count, size);
            return 0;
        }
        catch (final RdmaException ex)
        {
            say(out, "failed to post receives: %d", -ex.errnoCode());
            return -ex.errnoCode();
        }
    }

    private int postSends(final CmatoseNode node)
    {
        if (!node.connected() || count == 0)
        {
            return 0;
        }
        try
        {
            node.postSends(count, size);
            return 0;
        }
        catch (final RdmaException ex)
        {
            say(out, "failed to post sends: %d", -ex.errnoCode());
            return -ex.errnoCode();
        }
    }

    /**
     * cmatose's poll_cqs: take {@code count} completions from one CQ of every connection that is up.
     * Unlike cmatose, a completion in error fails the test rather than counting as done.
     *
     * @param receive true for the receive CQs, false for the send CQs.
     */
    private int pollCqs(final boolean receive) throws InterruptedException
    {
        for (final CmatoseNode node : nodes)
        {
            if (!node.connected())
            {
                continue;
            }
            final CompletionQueue cq = node.cq(receive);
            cq.requestNotify(false);
            int done = 0;
            while (done < count)
            {
                final int n = cq.poll(wcs);
                if (n == 0)
                {
                    if (!node.await(clock.waitNanos()) && clock.timedOut())
                    {
                        say(out, "cmatose: timed out after %d s with %d of %d completions on connection %d",
                            clock.seconds(), done, count, node.index());
                        return -Errno.ETIMEDOUT.code();
                    }
                    continue;
                }
                for (int i = 0; i < n; i++)
                {
                    if (!wcs[i].isSuccess())
                    {
                        say(out, "cmatose: completion error on connection %d: %s", node.index(),
                            wcs[i].status().description());
                        return -Errno.EIO.code();
                    }
                    if (receive)
                    {
                        node.received(wcs[i]);
                    }
                }
                done += n;
            }
            if (receive && options.debug())
            {
                say(out, "cmatose: connection %d received %d messages, %d bytes", node.index(),
                    node.receivedCount(), node.receivedBytes());
            }
        }
        return 0;
    }

    private void disconnect(final CmId id)
    {
        try
        {
            id.disconnect();
        }
        catch (final RdmaException ex)
        {
            // cmatose ignores what rdma_disconnect returns: answering the peer's disconnect finds it done
        }
    }

    private InetAddress lookup(final String host) throws AddressLookup.Failure
    {
        return AddressLookup.lookup(options.addressFormat(), host, err);
    }

    private static void say(final PrintWriter to, final String format, final Object... args)
    {
        to.println(args.length == 0 ? format : String.format(format, args));
        to.flush();
    }
}
