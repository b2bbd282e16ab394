package io.rdma4j.bench.connect;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.rdma4j.bench.netty.Transport;
import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.Verbs;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One process's first connection, timed step by step from {@code main}: over the connection manager itself
 * ({@code cm}: provider look-up, event channel, id, bind, address and route resolution, QP, connect), over a plain
 * TCP socket ({@code tcp}: open, bind, connect) or through Netty's bootstrap over one of the Netty comparison's
 * transports (event loop group, connect). It prints a {@code step NAME US} line per step, then
 * {@code result main_us US total_us US outcome OUTCOME}: the JVM's start to {@code main}, {@code main} to the
 * outcome, and the outcome (established, rejected, unreachable, refused, or the failure's class).
 */
public final class ConnectClient
{
    /** How long the CM side waits for any one event: far above every CM timer the outcome could hide behind. */
    private static final long EVENT_PATIENCE_S = 60;

    private long mark;

    private ConnectClient()
    {
    }

    /**
     * @param args {@code KIND REMOTE_HOST PORT LOCAL_HOST}; KIND is {@code cm}, {@code tcp} or a Netty
     *             comparison transport's key.
     * @throws Exception if the run itself fails (a refused connect is an outcome, not a failure).
     */
    public static void main(final String[] args) throws Exception
    {
        final long start = System.nanoTime();
        final long mainUs = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis() -
            ManagementFactory.getRuntimeMXBean().getStartTime());
        if (args.length != 4)
        {
            System.err.println("usage: ConnectClient cm|tcp|TRANSPORT REMOTE_HOST PORT LOCAL_HOST");
            System.exit(2);
        }
        final InetSocketAddress remote = new InetSocketAddress(InetAddress.getByName(args[1]),
            Integer.parseInt(args[2]));
        final InetSocketAddress local = new InetSocketAddress(InetAddress.getByName(args[3]), 0);
        final ConnectClient client = new ConnectClient();
        client.mark = start;
        final String outcome = switch (args[0])
        {
            case "cm" -> client.cm(remote, local);
            case "tcp" -> client.tcp(remote, local);
            default -> client.netty(Transport.of(args[0]), remote, local);
        };
        System.out.printf(Locale.ROOT, "result main_us %d total_us %d outcome %s%n", mainUs,
            TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start), outcome);
        System.out.flush();
        // the process's end is not timed; exit runs the devices' clean-up (their stat files and inboxes)
        System.exit(0);
    }

    private void step(final String name)
    {
        final long now = System.nanoTime();
        System.out.printf(Locale.ROOT, "step %s %d%n", name, TimeUnit.NANOSECONDS.toMicros(now - mark));
        mark = System.nanoTime();
    }

    private String cm(final InetSocketAddress remote, final InetSocketAddress local) throws InterruptedException
    {
        Verbs.providers();
        step("providers");
        final EventChannel channel = RdmaCm.createEventChannel();
        step("event_channel");
        final CmId id = channel.createId(null, PortSpace.TCP);
        step("create_id");
        id.bindAddr(local);
        step("bind_addr");
        id.resolveAddr(null, remote, 2000);
        CmEventType type = next(channel);
        step("resolve_addr");
        if (type != CmEventType.ADDR_RESOLVED)
        {
            return name(type);
        }
        id.resolveRoute(2000);
        type = next(channel);
        step("resolve_route");
        if (type != CmEventType.ROUTE_RESOLVED)
        {
            return name(type);
        }
        final ProtectionDomain pd = id.verbs().allocPd();
        final CompletionQueue cq = id.verbs().createCq(16, null, 0);
        id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(1, 1)));
        step("create_qp");
        id.connect(null);
        type = next(channel);
        step("connect");
        return name(type);
    }

    private static String name(final CmEventType type)
    {
        return type == null ? "no_event_in_" + EVENT_PATIENCE_S + "_s" : type.name().toLowerCase(Locale.ROOT);
    }

    /** @return the next event's type, null if none came in {@link #EVENT_PATIENCE_S}. */
    private static CmEventType next(final EventChannel channel) throws InterruptedException
    {
        final CmEvent event = channel.getEvent(EVENT_PATIENCE_S, TimeUnit.SECONDS);
        if (event == null)
        {
            return null;
        }
        final CmEventType type = event.type();
        event.ack();
        return type;
    }

    private String tcp(final InetSocketAddress remote, final InetSocketAddress local) throws IOException
    {
        final SocketChannel socket = SocketChannel.open();
        step("open");
        socket.bind(local);
        step("bind");
        try
        {
            socket.connect(remote);
            return "established";
        }
        catch (final java.net.ConnectException ex)
        {
            return "refused";
        }
        finally
        {
            step("connect");
        }
    }

    private String netty(final Transport transport, final InetSocketAddress remote, final InetSocketAddress local)
        throws InterruptedException
    {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        step("group");
        final Bootstrap bootstrap = new Bootstrap().group(group).channel(transport.channel())
            .handler(new ChannelInboundHandlerAdapter());
        final io.netty.channel.ChannelFuture connected = bootstrap.connect(remote, local).await();
        step("connect");
        if (connected.isSuccess())
        {
            final Channel channel = connected.channel();
            return channel.isActive() ? "established" : "inactive";
        }
        final Throwable cause = connected.cause();
        return cause instanceof java.net.ConnectException ? "refused" : cause.getClass().getSimpleName() + ":" +
            String.valueOf(cause.getMessage()).replace(' ', '_');
    }
}
