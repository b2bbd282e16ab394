package io.rdma4j.tools.udaddy;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.UdParam;
import io.rdma4j.tools.common.AddressLookup;
import io.rdma4j.tools.common.CNumber;
import io.rdma4j.tools.common.CmListener;
import io.rdma4j.tools.common.RefusedIds;
import io.rdma4j.tools.common.DeviceOption;
import io.rdma4j.tools.common.HandshakeDeadlines;
import io.rdma4j.tools.common.SoftAddress;
import io.rdma4j.tools.common.WaitClock;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.GlobalRoute;
import io.rdma4j.verbs.PortAttr;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.WorkCompletion;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code rdma4j udaddy}: librdmacm's udaddy. UD paths set up through the connection manager
 * (SIDR in the UDP port space), then the client sends its messages and the server answers each
 * path with as many, addressed from what the messages' GRH and immediate data say. Flags,
 * output lines and the "return status" line are udaddy's; the exit status is its return value
 * as a process sees it (0 on success; 1 for bad arguments).
 */
@Command(name = "udaddy", mixinStandardHelpOptions = true, sortOptions = false, exitCodeOnInvalidInput = 1,
    description = "UD ping-pong set up through the connection manager (SIDR), like librdmacm's udaddy.")
public final class UdaddyCommand implements Callable<Integer>
{
    /** The port udaddy listens on and connects to. */
    public static final int PORT = 7174;
    /** rdma_resolve_addr's and rdma_resolve_route's timeout, as udaddy passes it. */
    static final int RESOLVE_TIMEOUT_MS = 2000;
    /** Completions taken per poll, as udaddy's array. */
    private static final int POLL_BATCH = 8;

    @Spec
    private CommandSpec spec;

    @Option(order = 1, names = "-s", paramLabel = "server_address",
        description = "the server to connect to (client mode); without it, run the server")
    private String serverAddress;

    @Option(order = 2, names = "-b", paramLabel = "bind_address", description = "local address to bind to")
    private String bindAddress;

    @Option(order = 12, names = "-d", paramLabel = "device", description = "rdma4j: use this device's engine "
        + "(default: the engine of the bind or resolved address)")
    private String deviceName;

    @Option(order = 3, names = "-f", paramLabel = "address_format",
        description = "how -s and -b are given: name (default), ip, ipv6, or gid (AF_IB: not on RoCE)")
    private String addressFormat;

    private PortSpace portSpace = PortSpace.UDP;
    private String badPortSpace;

    @Option(order = 6, names = "-c", paramLabel = "connections", defaultValue = "1", converter = CNumber.class,
        description = "paths to set up (default ${DEFAULT-VALUE})")
    private int connections;

    @Option(order = 7, names = "-C", paramLabel = "message_count", defaultValue = "10", converter = CNumber.class,
        description = "messages each way per path (default ${DEFAULT-VALUE})")
    private int count;

    @Option(order = 8, names = "-S", paramLabel = "message_size", defaultValue = "100", converter = CNumber.class,
        description = "message size, at most the port's active MTU (default ${DEFAULT-VALUE})")
    private int size;

    private Integer tos;

    @Option(order = 10, names = "--timeout", paramLabel = "seconds", defaultValue = "0", converter = CNumber.class,
        description = "rdma4j: give up waiting for events or completions after this long (default 0: wait "
            + "for ever, as udaddy)")
    private int timeoutSeconds;

    @Option(order = 13, names = "--handshake-timeout", paramLabel = "seconds",
        defaultValue = HandshakeDeadlines.DEFAULT_SECONDS, converter = CNumber.class,
        description = "rdma4j: server: a path whose client sends no message within this long of its request is "
            + "dropped and its slot given to the next request (default ${DEFAULT-VALUE}; 0: keep it for ever, as "
            + "udaddy)")
    private int handshakeSeconds;

    @Option(order = 11, names = "--debug", description = "rdma4j: trace CM events, and say when the server listens")
    private boolean debug;

    private PrintWriter out;
    private PrintWriter err;
    private int connectsLeft;
    /** When each server path must have brought its first message; a slot is taken for good only then. */
    private HandshakeDeadlines<UdaddyNode> handshakes;
    /** Completions a server took on each path while waiting for its first message, by the path's index. */
    private int[] taken;
    private final List<UdaddyNode> nodes = new ArrayList<>();
    private final WorkCompletion[] wcs = WorkCompletion.array(POLL_BATCH);
    private WaitClock clock;
    /** Ids of refused connection requests, destroyed once their event is acknowledged. */
    private final RefusedIds refused = new RefusedIds("udaddy");

    /**
     * @param text -P: {@code udp} or {@code ipoib}.
     */
    @Option(order = 4, names = "-P", paramLabel = "port_space", description = "port space: udp (default) or ipoib")
    void portSpaceName(final String text)
    {
        final String lower = text.toLowerCase(Locale.ROOT);
        if (lower.startsWith("ipoib"))
        {
            portSpace = PortSpace.IPOIB;
        }
        else if (lower.startsWith("udp"))
        {
            portSpace = PortSpace.UDP;
        }
        else
        {
            spec.commandLine().getErr().println("Warning: unknown port space format");
            spec.commandLine().getErr().flush();
        }
    }

    /**
     * @param value -p: the port space as a number (udaddy's older flag).
     */
    @Option(order = 5, names = "-p", paramLabel = "port_space", converter = CNumber.class,
        description = "port space as a number: 0x0111 UDP (default), 0x0002 IPoIB")
    void portSpaceValue(final int value)
    {
        try
        {
            portSpace = PortSpace.fromValue(value);
            badPortSpace = null;
        }
        catch (final IllegalArgumentException ex)
        {
            badPortSpace = ex.getMessage();
        }
    }

    /**
     * @param value -t: the type of service, applied to the address vector the client gets with
     *              ESTABLISHED (rdma_set_option has no counterpart in the rdma4j CM).
     */
    @Option(order = 9, names = "-t", paramLabel = "type_of_service", converter = CNumber.class,
        description = "type of service (IP TOS) of the client's messages")
    void typeOfService(final int value)
    {
        tos = value & 0xFF;
    }

    /**
     * @return -s, or null for a server.
     */
    public String serverAddress()
    {
        return serverAddress;
    }

    /**
     * @return -b, or null.
     */
    public String bindAddress()
    {
        return bindAddress;
    }

    /**
     * @return -P / -p, whichever came last.
     */
    public PortSpace portSpace()
    {
        return portSpace;
    }

    /**
     * @return -c.
     */
    public int connections()
    {
        return connections;
    }

    /**
     * @return -C.
     */
    public int count()
    {
        return count;
    }

    /**
     * @return -S.
     */
    public int size()
    {
        return size;
    }

    /**
     * @return -t, or null when not given.
     */
    public Integer tos()
    {
        return tos;
    }

    /**
     * @return --timeout in seconds; 0 waits for ever.
     */
    public int timeoutSeconds()
    {
        return timeoutSeconds;
    }

    /**
     * @return udaddy's return value as an exit status (0..255).
     */
    @Override
    public Integer call()
    {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        if (badPortSpace != null)
        {
            say(err, "udaddy: %s", badPortSpace);
            return 1;
        }
        if (size == 0)
        {
            // udaddy: no message size means no messages
            count = 0;
        }
        connectsLeft = connections;
        clock = new WaitClock(timeoutSeconds);
        handshakes = new HandshakeDeadlines<>(handshakeSeconds);
        taken = new int[Math.max(0, connections)];
        final EventChannel channel;
        try
        {
            channel = DeviceOption.eventChannel(deviceName);
        }
        catch (final RdmaException ex)
        {
            say(err, "Failed to create event channel: %s", ex.getMessage());
            return 1;
        }
        int ret;
        try
        {
            ret = run(channel);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            ret = -Errno.EINTR.code();
        }
        catch (final RdmaException ex)
        {
            say(out, "udaddy: %s", ex.getMessage());
            ret = -ex.errnoCode();
        }
        say(out, "test complete");
        for (final UdaddyNode node : nodes)
        {
            node.close();
        }
        try
        {
            channel.close();
        }
        catch (final RdmaException ex)
        {
            say(err, "udaddy: destroying the event channel: %s", ex.getMessage());
        }
        say(out, "return status %d", ret);
        return ret & 0xFF;
    }

    private int run(final EventChannel channel) throws InterruptedException
    {
        if (serverAddress != null)
        {
            if (bindAddress == null)
            {
                // a client with no -b whose server is on this machine takes a free 127.0.0.x of its own
                SoftAddress.configure(null, serverAddress);
            }
            for (int i = 0; i < connections; i++)
            {
                final UdaddyNode node = new UdaddyNode(i);
                nodes.add(node);
                node.id(channel.createId(node, portSpace));
            }
            return runClient(channel);
        }
        for (int i = 0; i < connections; i++)
        {
            nodes.add(new UdaddyNode(i));
        }
        return runServer(channel);
    }

    private int runServer(final EventChannel channel) throws InterruptedException
    {
        say(out, "udaddy: starting server");
        final InetSocketAddress bind;
        try
        {
            bind = new InetSocketAddress(bindAddress == null ? InetAddress.ofLiteral("0.0.0.0") : lookup(bindAddress),
                PORT);
        }
        catch (final AddressLookup.Failure ex)
        {
            say(out, "rdma_getaddrinfo error: %s", ex.getMessage());
            return ex.code();
        }
        final CmId listenId = CmListener.listen(channel, this, portSpace, bind, "udaddy", debug, out, err);
        if (listenId == null)
        {
            return -1;
        }
        int ret;
        try
        {
            clock.start();
            while (true)
            {
                // udaddy goes on whatever became of the connection requests; only a timeout (ours) stops it
                ret = connectEvents(channel);
                if (ret == -Errno.ETIMEDOUT.code() && connectsLeft > 0)
                {
                    return ret;
                }
                ret = 0;
                if (count == 0)
                {
                    break;
                }
                // a path whose client never sends gives its slot to the next request
                final int dropped = awaitFirstMessages();
                if (dropped < 0)
                {
                    return dropped;
                }
                if (dropped == 0)
                {
                    break;
                }
                connectsLeft += dropped;
            }
            if (count > 0)
            {
                say(out, "receiving data transfers");
                ret = pollCqs(taken);
                if (ret != 0)
                {
                    return ret;
                }
                say(out, "sending replies");
                for (final UdaddyNode node : nodes)
                {
                    ret = postSends(node, SendFlags.SIGNALED);
                    if (ret != 0)
                    {
                        return ret;
                    }
                }
                ret = pollCqs(null);
                if (ret != 0)
                {
                    return ret;
                }
                say(out, "data transfers complete");
            }
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
                say(err, "udaddy: destroying the listening id: %s", ex.getMessage());
            }
        }
    }

    private int runClient(final EventChannel channel) throws InterruptedException
    {
        say(out, "udaddy: starting client");
        final InetSocketAddress source;
        final InetSocketAddress destination;
        try
        {
            source = bindAddress == null ? null : new InetSocketAddress(lookup(bindAddress), 0);
            destination = new InetSocketAddress(lookup(serverAddress), PORT);
        }
        catch (final AddressLookup.Failure ex)
        {
            say(out, "rdma_getaddrinfo error: %s", ex.getMessage());
            return ex.code();
        }
        say(out, "udaddy: connecting");
        for (final UdaddyNode node : nodes)
        {
            try
            {
                node.id().resolveAddr(source, destination, RESOLVE_TIMEOUT_MS);
            }
            catch (final RdmaException ex)
            {
                say(err, "udaddy: failure getting addr: %s", ex.getMessage());
                connectsLeft--;
                return -1;
            }
        }
        clock.start();
        int ret = connectEvents(channel);
        if (ret != 0)
        {
            return ret;
        }
        if (count > 0)
        {
            say(out, "initiating data transfers");
            for (final UdaddyNode node : nodes)
            {
                ret = postSends(node, 0);
                if (ret != 0)
                {
                    return ret;
                }
            }
            say(out, "receiving data transfers");
            ret = pollCqs(null);
            if (ret != 0)
            {
                return ret;
            }
            say(out, "data transfers complete");
        }
        return 0;
    }

    /**
     * udaddy's connect_events: handle events until every path is set up or has failed, or one
     * handler returns an error.
     */
    private int connectEvents(final EventChannel channel) throws InterruptedException
    {
        int ret = 0;
        while (connectsLeft > 0 && ret == 0)
        {
            final CmEvent event = channel.getEvent(clock.waitNanos(), TimeUnit.NANOSECONDS);
            if (event == null)
            {
                if (clock.timedOut())
                {
                    say(out, "udaddy: timed out after %d s with %d of %d connections not set up", timeoutSeconds,
                        connectsLeft, connections);
                    return -Errno.ETIMEDOUT.code();
                }
                continue;
            }
            try
            {
                ret = cmaHandler(event);
            }
            finally
            {
                event.ack();
                refused.destroy(err);
            }
        }
        return ret;
    }

    private int cmaHandler(final CmEvent event)
    {
        if (debug)
        {
            say(out, "udaddy: event %s, status %d", event.type().description(), event.status());
        }
        return switch (event.type())
        {
            case ADDR_RESOLVED -> addrHandler((UdaddyNode)event.id().context());
            case ROUTE_RESOLVED -> routeHandler((UdaddyNode)event.id().context());
            case CONNECT_REQUEST -> connectHandler(event.id());
            case ESTABLISHED -> resolvedHandler((UdaddyNode)event.id().context(), event);
            case ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE, REJECTED ->
            {
                say(out, "udaddy: event: %s, error: %d", event.type().description(), event.status());
                connectsLeft--;
                yield event.status();
            }
            // DEVICE_REMOVAL: the teardown after the test cleans up
            default -> 0;
        };
    }

    private int addrHandler(final UdaddyNode node)
    {
        try
        {
            node.id().resolveRoute(RESOLVE_TIMEOUT_MS);
            return 0;
        }
        catch (final RdmaException ex)
        {
            say(err, "udaddy: resolve route failed: %s", ex.getMessage());
            connectsLeft--;
            return -ex.errnoCode();
        }
    }

    private int routeHandler(final UdaddyNode node)
    {
        int ret = verifyTestParams(node);
        if (ret == 0)
        {
            ret = initNode(node);
        }
        if (ret == 0)
        {
            ret = postRecvs(node);
        }
        if (ret == 0)
        {
            try
            {
                node.id().connect(new ConnParam(null, 0, 0, 0, 0, 0, false, 0));
            }
            catch (final RdmaException ex)
            {
                say(err, "udaddy: failure connecting: %s", ex.getMessage());
                ret = -ex.errnoCode();
            }
        }
        if (ret != 0)
        {
            connectsLeft--;
        }
        return ret;
    }

    /** @return a path no request holds, or null. */
    private UdaddyNode freeNode()
    {
        for (final UdaddyNode node : nodes)
        {
            if (node.id() == null)
            {
                return node;
            }
        }
        return null;
    }

    private int connectHandler(final CmId id)
    {
        int ret;
        final UdaddyNode node = freeNode();
        if (node == null)
        {
            ret = -Errno.ENOMEM.code();
            refused.add(id);
        }
        else
        {
            node.id(id);
            id.context(node);
            ret = verifyTestParams(node);
            if (ret == 0)
            {
                ret = initNode(node);
            }
            if (ret == 0)
            {
                ret = postRecvs(node);
            }
            if (ret == 0)
            {
                try
                {
                    id.accept(new ConnParam(null, 0, 0, 0, 0, 0, false, node.qp().qpNum()));
                    node.connected(true);
                    handshakes.start(node);
                    taken[node.index()] = 0;
                    connectsLeft--;
                    return 0;
                }
                catch (final RdmaException ex)
                {
                    say(err, "udaddy: failure accepting: %s", ex.getMessage());
                    ret = -ex.errnoCode();
                }
            }
            refused.add(node.giveUp());
            connectsLeft--;
        }
        say(out, "udaddy: failing connection request");
        try
        {
            id.reject(null);
        }
        catch (final RdmaException ex)
        {
            say(err, "udaddy: rejecting: %s", ex.getMessage());
        }
        return ret;
    }

    private int resolvedHandler(final UdaddyNode node, final CmEvent event)
    {
        final UdParam ud = event.udParam();
        try
        {
            RdmaException.check(ud != null && ud.ahAttr() != null, Errno.EINVAL,
                "ESTABLISHED carries no UD parameters");
            node.remote(withTos(ud.ahAttr()), ud.qpNum(), ud.qkey());
        }
        catch (final RdmaException ex)
        {
            say(out, "udaddy: failure creating address handle");
            connectsLeft--;
            return -1;
        }
        node.connected(true);
        connectsLeft--;
        return 0;
    }

    private AhAttr withTos(final AhAttr attr)
    {
        if (tos == null || attr.grh() == null)
        {
            return attr;
        }
        final GlobalRoute grh = attr.grh();
        return new AhAttr(new GlobalRoute(grh.dgid(), grh.flowLabel(), grh.sgidIndex(), grh.hopLimit(), tos),
            attr.dlid(), attr.sl(), attr.srcPathBits(), attr.staticRate(), attr.portNum());
    }

    private int verifyTestParams(final UdaddyNode node)
    {
        // rdma_cm ids know their port; every rdma4j device has port 1
        final PortAttr port = node.verbs().queryPort(1);
        final int mtu = port.activeMtu().bytes();
        if (count > 0 && size > mtu)
        {
            say(out, "udaddy: message_size %d is larger than active mtu %d", size, mtu);
            return -Errno.EINVAL.code();
        }
        return 0;
    }

    private int initNode(final UdaddyNode node)
    {
        try
        {
            node.allocPd();
        }
        catch (final RdmaException ex)
        {
            say(out, "udaddy: unable to allocate PD");
            return -Errno.ENOMEM.code();
        }
        try
        {
            node.createCq(count > 0 ? count * 2 : 2);
        }
        catch (final RdmaException ex)
        {
            say(out, "udaddy: unable to create CQ");
            return -Errno.ENOMEM.code();
        }
        try
        {
            node.createQp(count > 0 ? count : 1);
        }
        catch (final RdmaException ex)
        {
            say(err, "udaddy: unable to create QP: %s", ex.getMessage());
            return -ex.errnoCode();
        }
        if (count > 0)
        {
            try
            {
                node.createMessage(size + ReplyAddress.GRH_BYTES);
            }
            catch (final RdmaException ex)
            {
                say(out, "failed to reg MR");
                say(out, "udaddy: failed to create messages: %d", -1);
                return -1;
            }
        }
        return 0;
    }

    private int postRecvs(final UdaddyNode node)
    {
        if (count == 0)
        {
            return 0;
        }
        try
        {
            node.postRecvs(count, size + ReplyAddress.GRH_BYTES);
            return 0;
        }
        catch (final RdmaException ex)
        {
            say(out, "failed to post receives: %d", ex.errnoCode());
            return ex.errnoCode();
        }
    }

    private int postSends(final UdaddyNode node, final int sendFlags)
    {
        if (!node.connected() || count == 0)
        {
            return 0;
        }
        try
        {
            node.postSends(count, size, sendFlags);
            return 0;
        }
        catch (final RdmaException ex)
        {
            say(out, "failed to post sends: %d", ex.errnoCode());
            return ex.errnoCode();
        }
    }

    /**
     * The server's wait for each new path's first message, at most --handshake-timeout from its request: a path
     * that brings none is dropped (its QP and id destroyed) and its slot freed for the next request.
     *
     * @return how many paths were dropped, or a negative errno when a completion failed or --timeout ran out.
     */
    private int awaitFirstMessages() throws InterruptedException
    {
        int dropped = 0;
        while (true)
        {
            boolean waiting = false;
            for (final UdaddyNode node : nodes)
            {
                if (!node.connected() || !handshakes.waiting(node))
                {
                    continue;
                }
                node.arm();
                int n = node.poll(wcs);
                if (n == 0 && node.await(clock.waitNanos()))
                {
                    n = node.poll(wcs);
                }
                if (n == 0)
                {
                    waiting = true;
                    continue;
                }
                final int rc = taken(node, n);
                if (rc != 0)
                {
                    return rc;
                }
                taken[node.index()] += n;
                handshakes.done(node);
            }
            for (final UdaddyNode late : handshakes.expired())
            {
                say(err, "udaddy: dropping connection %d: no message within %d s of its request", late.index(),
                    handshakes.seconds());
                final CmId id = late.giveUp();
                try
                {
                    id.close();
                }
                catch (final RdmaException ex)
                {
                    say(err, "udaddy: destroying a dropped id: %s", ex.getMessage());
                }
                dropped++;
            }
            if (!waiting)
            {
                return dropped;
            }
            if (clock.timedOut())
            {
                say(out, "udaddy: timed out after %d s waiting for the clients' first messages", timeoutSeconds);
                return -Errno.ETIMEDOUT.code();
            }
        }
    }

    /**
     * Check {@code n} completions just polled on a path; the first a server sees gives it the address to answer.
     *
     * @return 0, or the errno that fails the test.
     */
    private int taken(final UdaddyNode node, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            if (!wcs[i].isSuccess())
            {
                say(out, "udaddy: completion error on connection %d: %s", node.index(),
                    wcs[i].status().description());
                return -Errno.EIO.code();
            }
        }
        if (!node.hasAh())
        {
            final int rc = createReplyAh(node, wcs[0]);
            if (rc != 0)
            {
                say(out, "udaddy: failed to create reply AH");
                return rc;
            }
        }
        return 0;
    }

    /**
     * udaddy's poll_cqs: take {@code count} completions on every path that is up; the first a
     * server sees gives it the address to answer to. Unlike udaddy, a completion in error fails
     * the test rather than counting as done.
     *
     * @param already completions taken on each path before, by the path's index, or null for none.
     */
    private int pollCqs(final int[] already) throws InterruptedException
    {
        for (final UdaddyNode node : nodes)
        {
            if (!node.connected())
            {
                continue;
            }
            node.arm();
            int done = already == null ? 0 : already[node.index()];
            while (done < count)
            {
                final int n = node.poll(wcs);
                if (n == 0)
                {
                    if (!node.await(clock.waitNanos()) && clock.timedOut())
                    {
                        say(out, "udaddy: timed out after %d s with %d of %d completions on connection %d",
                            timeoutSeconds, done, count, node.index());
                        return -Errno.ETIMEDOUT.code();
                    }
                    continue;
                }
                final int rc = taken(node, n);
                if (rc != 0)
                {
                    return rc;
                }
                done += n;
            }
        }
        return 0;
    }

    private int createReplyAh(final UdaddyNode node, final WorkCompletion wc)
    {
        try
        {
            final AhAttr attr = node.verbs().initAhFromWc(1, wc, node.grh());
            // the sender put its QPN in the immediate data; the Q_Key is this QP's own
            node.remote(attr, wc.immData(), node.qp().query().qkey());
            return 0;
        }
        catch (final RdmaException ex)
        {
            if (debug)
            {
                say(out, "udaddy: %s", ex.getMessage());
            }
            return -1;
        }
    }

    private InetAddress lookup(final String host) throws AddressLookup.Failure
    {
        return AddressLookup.lookup(addressFormat, host, err);
    }

    private static void say(final PrintWriter to, final String format, final Object... args)
    {
        to.println(args.length == 0 ? format : String.format(format, args));
        to.flush();
    }
}
