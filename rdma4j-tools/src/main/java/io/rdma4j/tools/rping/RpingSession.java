package io.rdma4j.tools.rping;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.verbs.RdmaException;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One run of rping: an event channel, the id (the client's connection or the server's
 * listener), a thread taking CM events, and the server, persistent server or client flow on the
 * calling thread. Return values follow rping's: 0 on success, -1 or an errno otherwise.
 * <p>
 * Every failed run ends with rping's "rping client failed: N" or "rping server failed: N" line,
 * whichever step failed, so a script reading the output or the status sees the same verdict.
 * <p>
 * When the process is stopped (SIGTERM, SIGINT) with connections up, a shutdown hook
 * disconnects them: the kernel does the same for a process that exits holding connected ids, and
 * without it the peer's RC QP would retry into the void forever.
 */
final class RpingSession
{
    /** rdma_resolve_addr's and rdma_resolve_route's timeout, as rping passes it. */
    static final int RESOLVE_TIMEOUT_MS = 2000;
    /** Backlog rping listens with. */
    static final int BACKLOG = 3;
    /**
     * How long a client waits for DISCONNECTED after rdma_disconnect. The kernel keeps a
     * connection's teardown going after rping exits; here the CM lives in the process, so the
     * client gives the DREQ/DREP exchange this long before it destroys the id.
     */
    static final long DISCONNECT_WAIT_MS = 3000;

    private final RpingOutput output;
    private final RpingConnection main;
    private final InetSocketAddress address;
    private final InetSocketAddress source;
    private final boolean persistent;
    /** --handshake-timeout: how long an accepted request may take to be established; 0 for ever. */
    private final int handshakeSeconds;
    /** Connections up, for the shutdown hook to disconnect. */
    private final Set<CmId> connected = ConcurrentHashMap.newKeySet();
    /** Set once the "rping ... failed" line is printed. */
    private volatile boolean failureReported;
    private EventChannel channel;
    private CmId cmId;
    private Thread cmThread;
    private volatile boolean stopCm;
    /** Set when an event made rping's CM thread exit the process: the run then fails with -1. */
    private volatile boolean cmFailed;

    RpingSession(
        final RpingConnection main, final InetSocketAddress address, final InetSocketAddress source,
        final boolean persistent, final int handshakeSeconds, final RpingOutput output)
    {
        this.main = main;
        this.address = address;
        this.source = source;
        this.persistent = persistent;
        this.handshakeSeconds = handshakeSeconds;
        this.output = output;
    }

    /**
     * @param eventChannel where the ids' events go; the session closes it.
     * @return rping's return value.
     */
    int run(final EventChannel eventChannel) throws InterruptedException
    {
        channel = eventChannel;
        int ret;
        try
        {
            cmId = channel.createId(main, PortSpace.TCP);
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_create_id: %s", ex.getMessage());
            closeChannel();
            return -1;
        }
        output.debug("created cm_id %s", idText(cmId));
        if (!main.server)
        {
            main.id = cmId;
        }
        stopCm = false;
        cmThread = Thread.ofPlatform().daemon().name("rping-cm").start(this::cmLoop);
        final Thread hook = Thread.ofPlatform().unstarted(this::disconnectAll);
        Runtime.getRuntime().addShutdownHook(hook);
        try
        {
            if (main.server)
            {
                ret = persistent ? runPersistentServer() : runServer();
            }
            else
            {
                ret = runClient();
            }
        }
        finally
        {
            removeHook(hook);
            output.debug("destroy cm_id %s", idText(cmId));
            try
            {
                cmId.close();
            }
            catch (final RdmaException ex)
            {
                output.err("rdma_destroy_id: %s", ex.getMessage());
            }
            stopCm = true;
            cmThread.join(TimeUnit.SECONDS.toMillis(1));
            // a persistent server's CM thread may wait for a connection the main thread no longer takes
            cmThread.interrupt();
            cmThread.join();
            closeChannel();
        }
        if (cmFailed && ret == 0)
        {
            ret = -1;
        }
        if (ret != 0)
        {
            reportFailure(ret);
        }
        return ret;
    }

    /**
     * Print rping's verdict on a failed run, once.
     */
    private void reportFailure(final int ret)
    {
        if (!failureReported)
        {
            failureReported = true;
            output.err("rping %s failed: %d", main.server ? "server" : "client", ret);
        }
    }

    private void disconnectAll()
    {
        for (final CmId id : connected)
        {
            try
            {
                id.disconnect();
            }
            catch (final RuntimeException ex)
            {
                // already disconnecting or gone: the peer hears of it either way
            }
        }
    }

    private static void removeHook(final Thread hook)
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException ex)
        {
            // the JVM is shutting down: the hook runs (or ran) anyway
        }
    }

    private void closeChannel()
    {
        try
        {
            channel.close();
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_destroy_event_channel: %s", ex.getMessage());
        }
    }

    private void cmLoop()
    {
        while (!stopCm)
        {
            final CmEvent event;
            try
            {
                event = channel.getEvent(100, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            catch (final RdmaException ex)
            {
                output.err("rdma_get_cm_event: %s", ex.getMessage());
                failAll();
                return;
            }
            if (event == null)
            {
                continue;
            }
            CmId rejected = null;
            int ret;
            try
            {
                final RpingConnection cb = connectionOf(event);
                if (event.type() == CmEventType.CONNECT_REQUEST && !persistent &&
                    !cb.acceptReady.tryAcquire())
                {
                    // rping would block its CM thread here for good; one connection is all it serves
                    output.err("rping: already serving a connection; rejecting another request");
                    rejected = event.id();
                    reject(rejected);
                    ret = 0;
                }
                else
                {
                    ret = handle(cb, event);
                }
            }
            catch (final InterruptedException ex)
            {
                event.ack();
                return;
            }
            catch (final RuntimeException ex)
            {
                output.err("rping: handling %s: %s", event.type().description(), ex);
                main.wake(RpingState.ERROR);
                ret = -1;
            }
            event.ack();
            if (rejected != null)
            {
                closeQuietly(rejected);
            }
            if (ret != 0)
            {
                // rping exits the process from its CM thread here: end the run with -1 instead
                failAll();
                return;
            }
        }
    }

    private void reject(final CmId id)
    {
        try
        {
            id.reject(null);
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_reject: %s", ex.getMessage());
        }
    }

    private RpingConnection connectionOf(final CmEvent event)
    {
        final CmId owner = event.listenId() != null ? event.listenId() : event.id();
        final Object context = owner == null ? null : owner.context();
        return context instanceof RpingConnection cb ? cb : main;
    }

    /**
     * rping's CM event handler.
     *
     * @return 0 to go on, -1 where rping's CM thread exits the process.
     */
    private int handle(final RpingConnection cb, final CmEvent event) throws InterruptedException
    {
        output.debug("cma_event type %s cma_id %s (%s)", event.type().description(), idText(event.id()),
            event.id() == cmId ? "parent" : "child");
        switch (event.type())
        {
            case ADDR_RESOLVED ->
            {
                cb.state = RpingState.ADDR_RESOLVED;
                try
                {
                    event.id().resolveRoute(RESOLVE_TIMEOUT_MS);
                }
                catch (final RdmaException ex)
                {
                    output.err("rdma_resolve_route: %s", ex.getMessage());
                    cb.wake(RpingState.ERROR);
                }
            }
            case ROUTE_RESOLVED -> cb.wake(RpingState.ROUTE_RESOLVED);
            case CONNECT_REQUEST ->
            {
                if (persistent)
                {
                    cb.acceptReady.acquire();
                }
                final CmId child = event.id();
                child.context(cb);
                cb.id = child;
                output.debug("child cma %s", idText(child));
                cb.wake(RpingState.CONNECT_REQUEST);
            }
            case CONNECT_RESPONSE ->
            {
                output.debug("CONNECT_RESPONSE");
                cb.wake(RpingState.CONNECTED);
            }
            case ESTABLISHED ->
            {
                output.debug("ESTABLISHED");
                // a server wakes with its first receive; this wake-up only ends its accept
                if (!cb.server)
                {
                    cb.state = RpingState.CONNECTED;
                }
                cb.sem.release();
            }
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED ->
            {
                output.err("cma event %s, error %d", event.type().description(), event.status());
                cb.wake(RpingState.ERROR);
                // one of a persistent server's connections failed (a request never established, say): that
                // connection ends, the server goes on, where rping would exit
                return persistent && cb != main ? 0 : -1;
            }
            case DISCONNECTED ->
            {
                output.err("%s DISCONNECT EVENT...", cb.server ? "server" : "client");
                cb.wake(RpingState.DISCONNECTED);
                cb.disconnected.countDown();
            }
            case DEVICE_REMOVAL ->
            {
                output.err("cma detected device removal!!!!");
                cb.wake(RpingState.ERROR);
                return -1;
            }
            default -> output.err("unhandled event: %s, ignoring", event.type().description());
        }
        return 0;
    }

    /**
     * The CM thread cannot go on: wake the main thread (a persistent server's too, which waits
     * for requests) with ERROR so the run ends with -1.
     */
    private void failAll()
    {
        cmFailed = true;
        main.wake(RpingState.ERROR);
    }

    private int bindServer()
    {
        try
        {
            cmId.bindAddr(address);
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_bind_addr: %s", ex.getMessage());
            return -1;
        }
        output.debug("rdma_bind_addr successful");
        output.debug("rdma_listen");
        try
        {
            cmId.listen(BACKLOG);
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_listen: %s", ex.getMessage());
            return -1;
        }
        // rdma4j: says when a client may connect (rping's trace has no line after the listen)
        output.debug("listening on %s", text(cmId.localAddress() != null ? cmId.localAddress() : address));
        return 0;
    }

    private int runServer() throws InterruptedException
    {
        int ret = bindServer();
        if (ret != 0)
        {
            return ret;
        }
        main.await();
        if (main.state != RpingState.CONNECT_REQUEST)
        {
            output.err("wait for CONNECT_REQUEST state %d", main.state.code());
            return -1;
        }
        final CmId child = main.id;
        ret = serveOne(main, child);
        return ret;
    }

    /**
     * One accepted connection, start to end: QP, buffers, receive, CQ thread, accept, pings,
     * disconnect, teardown, and the connection's id destroyed.
     */
    private int serveOne(final RpingConnection cb, final CmId child) throws InterruptedException
    {
        int ret = cb.setupQp(child);
        if (ret != 0)
        {
            output.err("setup_qp failed: %d", ret);
            closeQuietly(child);
            return ret;
        }
        ret = cb.setupBuffers();
        if (ret != 0)
        {
            output.err("rping_setup_buffers failed: %d", ret);
            cb.freeQp(child);
            closeQuietly(child);
            return ret;
        }
        ret = cb.postRecv();
        if (ret == 0)
        {
            cb.startCqThread();
            ret = cb.accept(child, handshakeSeconds);
            if (ret != 0)
            {
                output.err("connect error %d", ret);
            }
            else
            {
                connected.add(child);
                ret = cb.testServer();
                if (ret != 0 && cb == main)
                {
                    reportFailure(ret);
                }
                else if (ret != 0)
                {
                    // one of a persistent server's connections: the server itself goes on
                    output.err("rping server failed: %d", ret);
                }
                cb.disconnect(child);
                connected.remove(child);
            }
            cb.stopCqThread();
        }
        cb.freeBuffers();
        cb.freeQp(child);
        closeQuietly(child);
        return ret;
    }

    private int runPersistentServer() throws InterruptedException
    {
        final int ret = bindServer();
        if (ret != 0)
        {
            return ret;
        }
        while (true)
        {
            main.await();
            if (main.state != RpingState.CONNECT_REQUEST)
            {
                output.err("wait for CONNECT_REQUEST state %d", main.state.code());
                return -1;
            }
            final RpingConnection cb = main.copy();
            final CmId child = main.id;
            cb.id = child;
            child.context(cb);
            main.acceptReady.release();
            Thread.ofPlatform().daemon().name("rping-conn").start(() ->
            {
                try
                {
                    serveOne(cb, child);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            });
        }
    }

    private int runClient() throws InterruptedException
    {
        int ret = bindClient();
        if (ret != 0)
        {
            return ret;
        }
        ret = main.setupQp(cmId);
        if (ret != 0)
        {
            output.err("setup_qp failed: %d", ret);
            return ret;
        }
        ret = main.setupBuffers();
        if (ret != 0)
        {
            output.err("rping_setup_buffers failed: %d", ret);
            main.freeQp(cmId);
            return ret;
        }
        ret = main.postRecv();
        if (ret == 0)
        {
            main.startCqThread();
            ret = main.connect(cmId);
            if (ret != 0)
            {
                output.err("connect error %d", ret);
            }
            else
            {
                connected.add(cmId);
                ret = main.testClient();
                if (ret != 0)
                {
                    reportFailure(ret);
                }
                main.disconnect(cmId);
                connected.remove(cmId);
                main.disconnected.await(DISCONNECT_WAIT_MS, TimeUnit.MILLISECONDS);
            }
            main.stopCqThread();
        }
        main.freeBuffers();
        main.freeQp(cmId);
        return ret;
    }

    private int bindClient() throws InterruptedException
    {
        try
        {
            cmId.resolveAddr(source, address, RESOLVE_TIMEOUT_MS);
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_resolve_addr: %s", ex.getMessage());
            return -1;
        }
        main.await();
        if (main.state != RpingState.ROUTE_RESOLVED)
        {
            output.err("waiting for addr/route resolution state %d", main.state.code());
            return -1;
        }
        output.debug("rdma_resolve_addr - rdma_resolve_route successful");
        return 0;
    }

    private void closeQuietly(final CmId id)
    {
        try
        {
            id.close();
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_destroy_id: %s", ex.getMessage());
        }
    }

    static String idText(final CmId id)
    {
        return id == null ? "null" : "cm_id@" + Integer.toHexString(System.identityHashCode(id));
    }

    static String text(final InetSocketAddress address)
    {
        return address.getAddress().getHostAddress() + ":" + address.getPort();
    }
}
