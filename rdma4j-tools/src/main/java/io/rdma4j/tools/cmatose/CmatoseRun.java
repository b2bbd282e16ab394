package io.rdma4j.tools.cmatose;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.tools.common.AddressLookup;
import io.rdma4j.tools.common.CmListener;
import io.rdma4j.tools.common.RefusedIds;
import io.rdma4j.tools.common.WaitClock;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WorkCompletion;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
    private int connIndex;
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
                ((CmatoseNode)event.id().context()).connected(true);
                connectsLeft--;
                disconnectsLeft++;
                yield 0;
            }
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED ->
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

    private int connectHandler(final CmId id)
    {
        int ret;
        if (connIndex == options.connections())
        {
            ret = -Errno.ENOMEM.code();
            refused.add(id);
        }
        else
        {
            final CmatoseNode node = nodes.get(connIndex++);
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
