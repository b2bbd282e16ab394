package io.rdma4j.tools;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.tools.common.DeviceOption;
import io.rdma4j.tools.common.GidText;
import io.rdma4j.tools.common.HistogramLogFile;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.PortAttr;
import io.rdma4j.verbs.RdmaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code rdma4j mckey}: librdmacm's mckey UD multicast test, with its flags, flow and output, plus
 * sequence numbers and timestamps in each message so receivers report loss, duplicates and
 * one-way latency.
 */
@Command(name = "mckey", mixinStandardHelpOptions = true, sortOptions = false,
    description = "UD multicast test through the connection manager, like librdmacm's mckey.")
public final class McKeyCommand implements Callable<Integer>
{
    /** How long rdma_resolve_addr may take, as mckey passes it. */
    static final int RESOLVE_TIMEOUT_MS = 2000;

    @Spec
    private CommandSpec spec;

    @Option(names = "-m", paramLabel = "multicast_address", description = "multicast group to join")
    private String group;

    @Option(names = "-M", paramLabel = "unmapped_multicast_address",
        description = "AF_IB MGID (InfiniBand only: refused on RoCE)")
    private String unmappedGroup;

    @Option(names = "-s", description = "sender (default: receiver)")
    private boolean sender;

    @Option(names = "-d", paramLabel = "device", description = "rdma4j: use this device's engine (default: the "
        + "engine of the bind or resolved address)")
    private String deviceName;

    @Option(names = "-b", paramLabel = "bind_address", description = "local address to bind to")
    private String bindAddress;

    @Option(names = "-c", paramLabel = "connections", defaultValue = "1", description = "CM ids / QPs (default: ${DEFAULT-VALUE})")
    private int connections;

    @Option(names = "-C", paramLabel = "message_count", defaultValue = "10", description = "messages (default: ${DEFAULT-VALUE})")
    private int count;

    @Option(names = "-S", paramLabel = "message_size", defaultValue = "100",
        description = "message size, at most the port's active MTU (default: ${DEFAULT-VALUE})")
    private int size;

    @Option(names = "-p", paramLabel = "port_space", defaultValue = "0x0111",
        description = "port space: 0x0111 UDP (default), 0x0002 IPoIB")
    private String portSpace;

    @Option(names = "-o", description = "join as a send-only full member (no attach, no IGMP join)")
    private boolean sendOnly;

    @Option(names = "-l", description = "join without multicast loopback: the QPs do not get back what they send "
        + "(IBV_QP_CREATE_BLOCK_SELF_MCAST_LB); other QPs and processes still do")
    private boolean blockLoopback;

    @Option(names = "--timeout", paramLabel = "seconds", defaultValue = "30",
        description = "give up joining or receiving after this long (default: ${DEFAULT-VALUE})")
    private int timeoutSeconds;

    @Option(names = "--delay-ms", paramLabel = "ms", defaultValue = "3000",
        description = "pause after joining before transfers, as mckey's 3 s sleep (default: ${DEFAULT-VALUE})")
    private long delayMs;

    @Option(names = "--expect", paramLabel = "n",
        description = "messages each receiving QP must get (default: message_count); 0 means it must get none")
    private Integer expect;

    @Option(names = "--interval-us", paramLabel = "us", defaultValue = "0",
        description = "sender: pause between posts (default: ${DEFAULT-VALUE}, as fast as posting goes)")
    private long intervalMicros;

    @Option(names = "--stop-on-stdin", description = "receiver: stop when stdin has a line or closes")
    private boolean stopOnStdin;

    @Option(names = "--histogram", paramLabel = "FILE",
        description = "receiver: write each node's one-way latencies (us) as an HdrHistogram log")
    private Path histogram;

    private PrintWriter out;

    /**
     * @return -m.
     */
    public String group()
    {
        return group;
    }

    /**
     * @return -s.
     */
    public boolean sender()
    {
        return sender;
    }

    /**
     * @return -b.
     */
    public String bindAddress()
    {
        return bindAddress;
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
     * @return -p, parsed.
     */
    public PortSpace portSpace()
    {
        return PortSpace.fromValue(Integer.decode(portSpace));
    }

    /**
     * @return -o.
     */
    public boolean sendOnly()
    {
        return sendOnly;
    }

    /**
     * @return -l.
     */
    public boolean blockLoopback()
    {
        return blockLoopback;
    }

    /**
     * @return --timeout in seconds.
     */
    public int timeoutSeconds()
    {
        return timeoutSeconds;
    }

    /**
     * @return --delay-ms.
     */
    public long delayMs()
    {
        return delayMs;
    }

    /**
     * @return messages each receiving QP must get.
     */
    public long expected()
    {
        return expect == null ? count : expect;
    }

    /**
     * @return mckey's status as a process returning it from main has it: 0 on success, else the
     *         negative errno printed as "return status", modulo 256 (-110, ETIMEDOUT, exits 146).
     */
    @Override
    public Integer call()
    {
        out = spec.commandLine().getOut();
        if (unmappedGroup != null)
        {
            out.println(bindAddress == null
                ? "unmapped multicast address requires binding to source address"
                : "mckey: -M needs AF_IB (InfiniBand) addressing; RoCE has none: use -m");
            out.flush();
            return 1;
        }
        if (group == null)
        {
            out.println("mckey: -m multicast_address is required");
            out.flush();
            return 1;
        }
        final PortSpace ps;
        try
        {
            ps = portSpace();
        }
        catch (final IllegalArgumentException ex)
        {
            out.println("mckey: " + ex.getMessage());
            out.flush();
            return 1;
        }
        if (size == 0)
        {
            // mckey: no message size means no messages.
            count = 0;
        }
        out.printf("mckey: starting %s%n", sender ? "client" : "server");
        int status;
        try (EventChannel channel = DeviceOption.eventChannel(deviceName))
        {
            status = runOn(channel, ps);
        }
        catch (final RdmaException ex)
        {
            out.println("mckey: " + ex.getMessage());
            status = -ex.errnoCode();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            status = -Errno.EINTR.code();
        }
        out.printf("return status %d%n", status);
        out.flush();
        return exitStatus(status);
    }

    /**
     * @param status what mckey's main returns.
     * @return the exit status a C process returning it has.
     */
    static int exitStatus(final int status)
    {
        return status & 0xFF;
    }

    private int runOn(final EventChannel channel, final PortSpace ps) throws InterruptedException
    {
        final InetSocketAddress groupAddr;
        final InetSocketAddress source;
        try
        {
            groupAddr = new InetSocketAddress(InetAddress.getByName(group), 0);
            source = bindAddress == null ? null : new InetSocketAddress(InetAddress.getByName(bindAddress), 0);
        }
        catch (final UnknownHostException ex)
        {
            out.printf("getaddrinfo failed (%s) - invalid hostname or IP address%n", ex.getMessage());
            return -Errno.EINVAL.code();
        }
        final List<McKeyNode> nodes = new ArrayList<>();
        CmEventPump pump = null;
        int status = 0;
        try
        {
            for (int i = 0; i < connections; i++)
            {
                final CmId id = channel.createId(null, ps);
                final McKeyNode node = new McKeyNode(i, id);
                // The node owns the id, so it becomes the id's context once both exist.
                id.context(node);
                nodes.add(node);
            }
            out.println("mckey: joining");
            for (final McKeyNode node : nodes)
            {
                if (source != null)
                {
                    try
                    {
                        node.id().bindAddr(source);
                    }
                    catch (final RdmaException ex)
                    {
                        out.println("mckey: addr bind failure: " + ex.getMessage());
                        return -ex.errnoCode();
                    }
                }
                try
                {
                    node.id().resolveAddr(source, groupAddr, RESOLVE_TIMEOUT_MS);
                }
                catch (final RdmaException ex)
                {
                    out.println("mckey: resolve addr failure: " + ex.getMessage());
                    return -ex.errnoCode();
                }
            }
            status = connectEvents(channel, groupAddr, nodes.size());
            if (status != 0)
            {
                return status;
            }
            pump = new CmEventPump(channel, out);
            pump.start();
            if (delayMs > 0)
            {
                Thread.sleep(delayMs);
            }
            if (count > 0)
            {
                status = sender ? sendAll(nodes) : receiveAll(nodes);
            }
            return status;
        }
        catch (final RdmaException ex)
        {
            // Reported before the teardown, where mckey's perror would have printed it.
            out.println("mckey: " + ex.getMessage());
            return -ex.errnoCode();
        }
        finally
        {
            if (pump != null)
            {
                pump.stop();
            }
            for (final McKeyNode node : nodes)
            {
                if (node.joined())
                {
                    try
                    {
                        node.id().leaveMulticast(groupAddr);
                    }
                    catch (final RdmaException ex)
                    {
                        out.println("mckey: failure leaving: " + ex.getMessage());
                    }
                }
            }
            out.println("test complete");
            for (final McKeyNode node : nodes)
            {
                node.close();
            }
        }
    }

    /**
     * mckey's connect_events: handle events until every id has joined or one failed.
     */
    private int connectEvents(final EventChannel channel, final InetSocketAddress groupAddr, final int ids)
        throws InterruptedException
    {
        int left = ids;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (left > 0)
        {
            final long wait = deadline - System.nanoTime();
            final CmEvent event = wait <= 0 ? null : channel.getEvent(wait, TimeUnit.NANOSECONDS);
            if (event == null)
            {
                out.printf("mckey: timed out after %d s waiting for %d join(s)%n", timeoutSeconds, left);
                return -Errno.ETIMEDOUT.code();
            }
            try
            {
                final McKeyNode node = (McKeyNode)event.id().context();
                switch (event.type())
                {
                    case ADDR_RESOLVED ->
                    {
                        final int st = addrHandler(node, groupAddr);
                        if (st != 0)
                        {
                            return st;
                        }
                    }
                    case MULTICAST_JOIN ->
                    {
                        joinHandler(node, event);
                        left--;
                    }
                    case ADDR_ERROR, ROUTE_ERROR, MULTICAST_ERROR ->
                    {
                        out.printf("mckey: event: %s, error: %d%n", event.type().description(), event.status());
                        return event.status() != 0 ? event.status() : -Errno.EINVAL.code();
                    }
                    default ->
                    {
                        // DEVICE_REMOVAL and the rest: cleanup happens when the test ends.
                    }
                }
            }
            finally
            {
                event.ack();
            }
        }
        return 0;
    }

    private int addrHandler(final McKeyNode node, final InetSocketAddress groupAddr)
    {
        // rdma_cm ids know their port; the API does not say, and every rdma4j device has port 1.
        final PortAttr port = node.id().verbs().queryPort(1);
        if (count > 0 && size > port.activeMtu().bytes())
        {
            out.printf("mckey: message_size %d is larger than active mtu %d%n", size, port.activeMtu().bytes());
            return -Errno.EINVAL.code();
        }
        try
        {
            node.init(count, size, blockLoopback);
        }
        catch (final RdmaException ex)
        {
            out.println("mckey: unable to create QP: " + ex.getMessage());
            return -ex.errnoCode();
        }
        if (!sender && count > 0)
        {
            try
            {
                node.postReceives();
            }
            catch (final RdmaException ex)
            {
                out.println("failed to post receives: " + ex.getMessage());
                return -ex.errnoCode();
            }
        }
        try
        {
            node.id().joinMulticast(groupAddr, sendOnly ? JoinFlags.SENDONLY_FULLMEMBER : JoinFlags.FULLMEMBER, node);
        }
        catch (final RdmaException ex)
        {
            out.println("mckey: failure joining: " + ex.getMessage());
            return -ex.errnoCode();
        }
        return 0;
    }

    private void joinHandler(final McKeyNode node, final CmEvent event)
    {
        final AhAttr ah = event.udParam().ahAttr();
        final String dgid = ah.isGlobal() ? GidText.of(ah.grh().dgid()) : "::";
        out.printf("mckey: joined dgid: %s mlid 0x%x sl %d%n", dgid, ah.dlid(), ah.sl());
        node.onJoin(event.udParam());
    }

    private int sendAll(final List<McKeyNode> nodes) throws InterruptedException
    {
        out.println("initiating data transfers");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        for (final McKeyNode node : nodes)
        {
            if (!node.send(count, size, TimeUnit.MICROSECONDS.toNanos(intervalMicros), deadline))
            {
                out.printf("mckey: node %d: sends did not all complete within %d s%n", node.index(), timeoutSeconds);
                return -Errno.ETIMEDOUT.code();
            }
            if (node.sendErrors() > 0)
            {
                out.printf("mckey: node %d: %d of %d sends completed in error%n",
                    node.index(), node.sendErrors(), count);
                return -Errno.EIO.code();
            }
        }
        out.println("data transfers complete");
        return 0;
    }

    private int receiveAll(final List<McKeyNode> nodes) throws InterruptedException
    {
        out.println("receiving data transfers");
        final AtomicBoolean stop = stopOnStdin ? watchStdin() : null;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        final long expected = expected();
        int status = 0;
        for (final McKeyNode node : nodes)
        {
            final boolean timedOut = node.receive(expected, deadline, stop);
            final ReceiveStats stats = node.stats();
            if (timedOut && expected > 0)
            {
                out.printf("mckey: node %d: timed out after %d s with %d of %d messages%n",
                    node.index(), timeoutSeconds, stats.unique(), expected);
            }
            out.println(stats.summary(node.index(), expected));
            final boolean ok = expected == 0 ? stats.received() == 0
                : stats.unique() >= expected && stats.errors() == 0;
            if (!ok && status == 0)
            {
                status = expected == 0 ? -Errno.EPROTO.code()
                    : stats.errors() > 0 ? -Errno.EIO.code() : -Errno.ETIMEDOUT.code();
            }
        }
        if (histogram != null)
        {
            writeHistograms(nodes);
        }
        if (status == 0)
        {
            out.println("data transfers complete");
        }
        return status;
    }

    private void writeHistograms(final List<McKeyNode> nodes)
    {
        try (HistogramLogFile log = new HistogramLogFile(histogram, "rdma4j mckey one-way latencies, values in us"))
        {
            for (final McKeyNode node : nodes)
            {
                log.write("mckey.node" + node.index(), node.stats().latencies());
            }
        }
        catch (final IOException ex)
        {
            out.println("mckey: " + ex.getMessage());
        }
    }

    /**
     * A stop flag set when stdin has a line or ends: how the demo tells the send-only member the
     * sender is done, without it guessing with a timeout.
     */
    private static AtomicBoolean watchStdin()
    {
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread watcher = Thread.ofPlatform().daemon().name("mckey-stdin").start(() ->
        {
            final InputStream in = System.in;
            try
            {
                int b;
                do
                {
                    b = in.read();
                }
                while (b != -1 && b != '\n');
            }
            catch (final IOException ex)
            {
                // A broken stdin is as good as a closed one.
            }
            stop.set(true);
        });
        watcher.setUncaughtExceptionHandler((t, e) -> stop.set(true));
        return stop;
    }
}
