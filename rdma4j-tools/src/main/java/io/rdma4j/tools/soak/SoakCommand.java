package io.rdma4j.tools.soak;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.Verbs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;

/**
 * {@code rdma4j soak}: repeat a set-up and tear-down cycle many times and print what the process
 * holds (heap after GC, direct and native memory, RSS, file descriptors, threads) at ten checkpoints,
 * so a leak shows as a trend. Four cycles: a UD QP's multicast attach and detach; a connection-manager
 * join and leave; and, between two processes, an RC connect and disconnect ({@code server} and
 * {@code connect}). Run the JVM with {@code RDMA4J_JAVA_OPTS=-XX:NativeMemoryTracking=summary} to get
 * the native-memory figure.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
    description = "Repeat attach/detach, join/leave or connect/disconnect cycles and report the footprint.",
    subcommands = {
        SoakCommand.Attach.class, SoakCommand.Join.class, SoakCommand.Server.class, SoakCommand.Connect.class })
public final class SoakCommand implements Runnable
{
    private static final long EVENT_TIMEOUT_S = 30;
    private static final int CHECKPOINTS = 10;

    @Spec
    private CommandSpec spec;

    @Override
    public void run()
    {
        spec.commandLine().usage(spec.commandLine().getErr());
    }

    /** One cycle of a soak; {@code cycle} counts from 0. */
    @FunctionalInterface
    interface Cycle
    {
        void run(long cycle) throws Exception;
    }

    /**
     * Run {@code cycles} cycles after one warm-up cycle, printing the footprint at each tenth, and
     * the change from the first checkpoint to the last: the first tenth also loads and compiles what
     * the loop and the measuring need, a one-off cost, while a leak grows with every tenth after it.
     *
     * @return 0.
     */
    static int soak(final PrintWriter out, final String name, final long cycles, final Cycle cycle) throws Exception
    {
        cycle.run(-1);
        out.printf("soak %s: start: %s%n", name, ProcessFootprint.measure());
        out.flush();
        final long step = Math.max(1, cycles / CHECKPOINTS);
        final long began = System.nanoTime();
        ProcessFootprint first = null;
        ProcessFootprint last = null;
        long firstCycle = 0;
        for (long i = 0; i < cycles; i++)
        {
            cycle.run(i);
            if ((i + 1) % step == 0 || i + 1 == cycles)
            {
                last = ProcessFootprint.measure();
                if (first == null)
                {
                    first = last;
                    firstCycle = i + 1;
                }
                out.printf("soak %s: cycle %d: %s%n", name, i + 1, last);
                out.flush();
            }
        }
        final double seconds = (System.nanoTime() - began) / 1e9;
        out.printf("soak %s: %d cycles in %.1f s (%.0f/s); from cycle %d to %d: %s%n", name, cycles, seconds,
            cycles / seconds, firstCycle, cycles, last.changeSince(first));
        out.flush();
        return 0;
    }

    private static CmEvent expect(final EventChannel channel, final CmEventType type) throws InterruptedException
    {
        final CmEvent event = channel.getEvent(EVENT_TIMEOUT_S, TimeUnit.SECONDS);
        if (event == null)
        {
            throw new IllegalStateException("no " + type.description() + " within " + EVENT_TIMEOUT_S + " s");
        }
        if (event.type() != type)
        {
            final String got = event.type().description() + " (status " + event.status() + ")";
            event.ack();
            throw new IllegalStateException("expected " + type.description() + ", got " + got);
        }
        return event;
    }

    private static InetAddress address(final String text) throws UnknownHostException
    {
        return InetAddress.getByName(text);
    }

    /** {@code soak attach}: attach a UD QP to a group and detach it. */
    @Command(name = "attach", mixinStandardHelpOptions = true,
        description = "Attach a UD QP to a multicast group and detach it, N times.")
    static final class Attach implements java.util.concurrent.Callable<Integer>
    {
        @Spec
        private CommandSpec spec;

        @Option(names = "-n", description = "cycles (default ${DEFAULT-VALUE})", defaultValue = "1000000")
        private long cycles;

        @Option(names = "-m", description = "the group (default ${DEFAULT-VALUE})", defaultValue = "239.77.0.1")
        private String group;

        @Option(names = "-d", description = "device name (default: the first)")
        private String device;

        @Override
        public Integer call() throws Exception
        {
            try (Context context = (device == null ? Verbs.getDeviceList().getFirst() : Verbs.getDevice(device)).open())
            {
                final ProtectionDomain pd = context.allocPd();
                final CompletionQueue cq = context.createCq(16, null, 0);
                final QueuePair qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
                qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(RdmaCm.UDP_QKEY));
                final Gid gid = Gid.parse(group);
                final int status = soak(spec.commandLine().getOut(), "attach", cycles, i ->
                {
                    qp.attachMulticast(gid, 0);
                    qp.detachMulticast(gid, 0);
                });
                qp.close();
                cq.close();
                pd.close();
                return status;
            }
        }
    }

    /** {@code soak join}: join a group through the connection manager and leave it. */
    @Command(name = "join", mixinStandardHelpOptions = true,
        description = "Join a multicast group through the CM (with a UD QP on the id) and leave it, N times.")
    static final class Join implements java.util.concurrent.Callable<Integer>
    {
        @Spec
        private CommandSpec spec;

        @Option(names = "-n", description = "cycles (default ${DEFAULT-VALUE})", defaultValue = "1000000")
        private long cycles;

        @Option(names = "-m", description = "the group (default ${DEFAULT-VALUE})", defaultValue = "239.77.0.2")
        private String group;

        @Option(names = "-b", description = "local address to bind (default ${DEFAULT-VALUE})",
            defaultValue = "127.0.0.1")
        private String bind;

        @Option(names = "-o", description = "join send-only (SENDONLY_FULLMEMBER)")
        private boolean sendOnly;

        @Override
        public Integer call() throws Exception
        {
            final InetSocketAddress groupAddress = new InetSocketAddress(address(group), 0);
            final JoinFlags flags = sendOnly ? JoinFlags.SENDONLY_FULLMEMBER : JoinFlags.FULLMEMBER;
            try (EventChannel channel = RdmaCm.createEventChannel())
            {
                final CmId id = channel.createId(null, PortSpace.UDP);
                id.bindAddr(new InetSocketAddress(address(bind), 0));
                final CompletionQueue cq = id.verbs().createCq(16, null, 0);
                id.createQp(null, QpInitAttr.of(QpType.UD, cq, QpCap.of(4, 4)));
                final int status = soak(spec.commandLine().getOut(), "join", cycles, i ->
                {
                    id.joinMulticast(groupAddress, flags, null);
                    expect(channel, CmEventType.MULTICAST_JOIN).ack();
                    id.leaveMulticast(groupAddress);
                });
                id.destroyQp();
                cq.close();
                id.close();
                return status;
            }
        }
    }

    /** {@code soak server}: accept RC connections and tear each down when the client disconnects. */
    @Command(name = "server", mixinStandardHelpOptions = true,
        description = "Accept N RC connections, one at a time, each torn down when its client disconnects.")
    static final class Server implements java.util.concurrent.Callable<Integer>
    {
        @Spec
        private CommandSpec spec;

        @Option(names = "-n", description = "connections (default ${DEFAULT-VALUE})", defaultValue = "100000")
        private long cycles;

        @Option(names = "-b", description = "address to listen on", required = true)
        private String bind;

        @Option(names = "-p", description = "port (default ${DEFAULT-VALUE})", defaultValue = "7471")
        private int port;

        @Override
        public Integer call() throws Exception
        {
            final PrintWriter out = spec.commandLine().getOut();
            try (EventChannel channel = RdmaCm.createEventChannel())
            {
                final CmId listener = channel.createId(null, PortSpace.TCP);
                listener.bindAddr(new InetSocketAddress(address(bind), port));
                listener.listen(4);
                out.printf("soak server: listening on %s%n", listener.localAddress());
                out.flush();
                final Connections connections = new Connections();
                final int status = soak(out, "server", cycles, i -> connections.serveOne(channel));
                connections.close();
                listener.close();
                return status;
            }
        }
    }

    /** {@code soak connect}: connect to a soak server and disconnect. */
    @Command(name = "connect", mixinStandardHelpOptions = true,
        description = "Connect an RC QP to a soak server and disconnect, N times.")
    static final class Connect implements java.util.concurrent.Callable<Integer>
    {
        @Spec
        private CommandSpec spec;

        @Option(names = "-n", description = "cycles (default ${DEFAULT-VALUE})", defaultValue = "100000")
        private long cycles;

        @Option(names = "-s", description = "the server's address", required = true)
        private String server;

        @Option(names = "-b", description = "local address", required = true)
        private String bind;

        @Option(names = "-p", description = "port (default ${DEFAULT-VALUE})", defaultValue = "7471")
        private int port;

        @Override
        public Integer call() throws Exception
        {
            final InetSocketAddress source = new InetSocketAddress(address(bind), 0);
            final InetSocketAddress destination = new InetSocketAddress(address(server), port);
            try (EventChannel channel = RdmaCm.createEventChannel())
            {
                final Connections connections = new Connections();
                final int status = soak(spec.commandLine().getOut(), "connect", cycles,
                    i -> connections.connectOnce(channel, source, destination));
                connections.close();
                return status;
            }
        }
    }

    /**
     * The resources a side keeps across cycles (PD and CQ of the device, as an application that
     * reconnects would) and one connection's worth of set-up and tear-down.
     */
    static final class Connections implements AutoCloseable
    {
        private Context context;
        private ProtectionDomain pd;
        private CompletionQueue cq;

        private QpInitAttr qpAttr(final CmId id)
        {
            if (context == null)
            {
                context = id.verbs();
                pd = context.allocPd();
                cq = context.createCq(16, null, 0);
            }
            return QpInitAttr.of(QpType.RC, cq, QpCap.of(2, 2));
        }

        void serveOne(final EventChannel channel) throws InterruptedException
        {
            final CmEvent request = expect(channel, CmEventType.CONNECT_REQUEST);
            final CmId id = request.id();
            request.ack();
            final QpInitAttr attr = qpAttr(id);
            id.createQp(pd, attr);
            id.accept(null);
            expect(channel, CmEventType.ESTABLISHED).ack();
            expect(channel, CmEventType.DISCONNECTED).ack();
            id.destroyQp();
            id.close();
        }

        void connectOnce(final EventChannel channel, final InetSocketAddress source,
            final InetSocketAddress destination) throws InterruptedException
        {
            final CmId id = channel.createId(null, PortSpace.TCP);
            try
            {
                id.resolveAddr(source, destination, 2000);
                expect(channel, CmEventType.ADDR_RESOLVED).ack();
                id.resolveRoute(2000);
                expect(channel, CmEventType.ROUTE_RESOLVED).ack();
                final QpInitAttr attr = qpAttr(id);
                id.createQp(pd, attr);
                id.connect(null);
                expect(channel, CmEventType.ESTABLISHED).ack();
                id.disconnect();
                expect(channel, CmEventType.DISCONNECTED).ack();
                id.destroyQp();
            }
            finally
            {
                id.close();
            }
        }

        @Override
        public void close()
        {
            if (cq != null)
            {
                cq.close();
            }
            if (pd != null)
            {
                pd.close();
            }
        }
    }
}
