package io.rdma4j.tools.cmtime;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.tools.common.CNumber;
import io.rdma4j.tools.common.SoftAddress;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code rdma4j cmtime}: librdmacm's cmtime (its client/server form, {@code -s}/{@code -b}/{@code -c}/{@code -p}).
 * The client creates {@code -c} ids and takes them through each step together: bind, resolve addr, resolve route,
 * create qp, connect, disconnect, destroy qp, destroy id; the server accepts them. Both meet between phases over a
 * TCP connection on the same port number, as cmtime does, run a one-connection warm-up, then the test, and print
 * cmtime's table. rdma_create_qp leaves the QP in INIT and the connection manager takes it to RTR and RTS, so the
 * "init/rtr/rts qp" rows stay 0; cmtime's CM-only run ("no QPs"), -m, -n and -q are not done. With {@code --no-oob}
 * it speaks the older cmtime's form instead (rdma-core 44, Debian 12's): no TCP meeting and no warm-up; the client
 * takes its ids through the steps at once, and the server accepts {@code -c} connections, disconnects each when its
 * peer does, prints its table and exits (the older server printed nothing and never exited).
 */
@Command(name = "cmtime", mixinStandardHelpOptions = true, sortOptions = false, exitCodeOnInvalidInput = 1,
    description = "Time each step of RC connection setup and teardown through the connection manager, for many "
        + "connections at once, like librdmacm's cmtime.")
public final class CmtimeCommand implements Callable<Integer>
{
    /** How long a client waits for its server's out-of-band port to listen. */
    private static final long OOB_PATIENCE_MS = 30_000;

    @Spec
    private CommandSpec spec;

    @Option(order = 1, names = "-s", paramLabel = "server_address",
        description = "the server to connect to; without it this is the server")
    private String server;

    @Option(order = 2, names = "-b", paramLabel = "bind_address", description = "the local address (the server's "
        + "listening address; default for a client: a free 127.0.0.x of its own when the server is on this machine)")
    private String bind;

    @Option(order = 3, names = "-c", paramLabel = "connections", defaultValue = "100", converter = CNumber.class,
        description = "connections per test (default ${DEFAULT-VALUE})")
    private int connections;

    @Option(order = 4, names = "-p", paramLabel = "port_number", defaultValue = "7471",
        description = "the CM's port and the out-of-band TCP port (default ${DEFAULT-VALUE})")
    private int port;

    @Option(order = 5, names = "-r", paramLabel = "retries", defaultValue = "2", converter = CNumber.class,
        description = "times a failed address or route resolution is tried again (default ${DEFAULT-VALUE})")
    private int retries;

    @Option(order = 6, names = "-t", paramLabel = "timeout_ms", defaultValue = "2000", converter = CNumber.class,
        description = "address and route resolution timeout (default ${DEFAULT-VALUE})")
    private int timeoutMs;

    @Option(order = 7, names = "--warmup-table", description = "rdma4j: print the warm-up's table too: the first "
        + "connection of the process, class loading and device start included")
    private boolean warmupTable;

    @Option(order = 8, names = "--no-oob", description = "rdma4j: the older cmtime's protocol (rdma-core 44, as in "
        + "Debian 12): no out-of-band TCP connection and no warm-up, for a peer that has none")
    private boolean noOob;

    private PrintWriter out;
    private InetSocketAddress destination;

    @Override
    public Integer call() throws Exception
    {
        out = spec.commandLine().getOut();
        if (connections < 1)
        {
            spec.commandLine().getErr().println("cmtime: -c " + connections + " is not a number of connections");
            return 1;
        }
        if (server != null && bind == null)
        {
            SoftAddress.configure(null, server);
        }
        else if (bind != null)
        {
            SoftAddress.configure(bind, server);
        }
        try (EventChannel channel = RdmaCm.createEventChannel())
        {
            if (server != null)
            {
                runClient(channel);
            }
            else
            {
                runServer(channel);
            }
            return 0;
        }
        catch (final RdmaException | IOException ex)
        {
            out.println("cmtime: " + ex.getMessage());
            out.flush();
            return 1;
        }
    }

    // ---- client ----

    private void runClient(final EventChannel channel) throws IOException, InterruptedException
    {
        final InetAddress serverAddress = InetAddress.getByName(server);
        destination = new InetSocketAddress(serverAddress, port);
        final InetSocketAddress source = bind == null ? null : new InetSocketAddress(InetAddress.getByName(bind), 0);
        if (noOob)
        {
            out.printf("Connect (%d) QPs test%n", connections);
            out.flush();
            clientTest(channel, null, source, connections).print(out, true);
            return;
        }
        try (Oob oob = Oob.connect(serverAddress, port, OOB_PATIENCE_MS))
        {
            out.println("Client warmup");
            out.flush();
            final StepTimes warmup = clientTest(channel, oob, source, 1);
            if (warmupTable)
            {
                warmup.print(out, true);
            }
            out.printf("Connect (%d) QPs test%n", connections);
            out.flush();
            clientTest(channel, oob, source, connections).print(out, true);
        }
    }

    private StepTimes clientTest(final EventChannel channel, final Oob oob, final InetSocketAddress source,
        final int count) throws IOException, InterruptedException
    {
        final StepTimes times = new StepTimes(count);
        final CmId[] ids = new CmId[count];
        meet(oob, 0);
        times.start(Step.FULL_CONNECT);
        times.start(Step.CREATE_ID);
        for (int i = 0; i < count; i++)
        {
            times.start(i, Step.FULL_CONNECT);
            times.start(i, Step.CREATE_ID);
            ids[i] = channel.createId(i, PortSpace.TCP);
            times.end(i, Step.CREATE_ID);
        }
        times.end(Step.CREATE_ID);
        if (source != null)
        {
            times.start(Step.BIND);
            for (int i = 0; i < count; i++)
            {
                times.start(i, Step.BIND);
                ids[i].bindAddr(source);
                times.end(i, Step.BIND);
            }
            times.end(Step.BIND);
        }
        times.start(Step.RESOLVE_ADDR);
        for (int i = 0; i < count; i++)
        {
            times.start(i, Step.RESOLVE_ADDR);
            ids[i].resolveAddr(null, destination, timeoutMs);
        }
        awaitAll(channel, times, ids, CmEventType.ADDR_RESOLVED, Step.RESOLVE_ADDR, count);
        times.end(Step.RESOLVE_ADDR);
        times.start(Step.RESOLVE_ROUTE);
        for (int i = 0; i < count; i++)
        {
            times.start(i, Step.RESOLVE_ROUTE);
            ids[i].resolveRoute(timeoutMs);
        }
        awaitAll(channel, times, ids, CmEventType.ROUTE_RESOLVED, Step.RESOLVE_ROUTE, count);
        times.end(Step.RESOLVE_ROUTE);
        final Verbs verbs = new Verbs();
        times.start(Step.CREATE_QP);
        for (int i = 0; i < count; i++)
        {
            times.start(i, Step.CREATE_QP);
            ids[i].createQp(verbs.pd(ids[i].verbs()), verbs.qpAttr());
            times.end(i, Step.CREATE_QP);
        }
        times.end(Step.CREATE_QP);
        times.start(Step.CONNECT);
        for (int i = 0; i < count; i++)
        {
            times.start(i, Step.CONNECT);
            ids[i].connect(null);
        }
        awaitAll(channel, times, ids, CmEventType.ESTABLISHED, Step.CONNECT, count);
        for (int i = 0; i < count; i++)
        {
            times.end(i, Step.FULL_CONNECT);
        }
        times.end(Step.CONNECT);
        times.end(Step.FULL_CONNECT);
        meet(oob, Step.CONNECT.ordinal());
        times.start(Step.DISCONNECT);
        for (int i = 0; i < count; i++)
        {
            times.start(i, Step.DISCONNECT);
            ids[i].disconnect();
            times.end(i, Step.DISCONNECT);
        }
        times.end(Step.DISCONNECT);
        // the DREP (or the peer's DREQ) ends each connection before its QP goes, as cmtime's event thread sees
        awaitAll(channel, null, ids, CmEventType.DISCONNECTED, null, count);
        meet(oob, Step.DISCONNECT.ordinal());
        destroy(times, ids);
        verbs.close();
        return times;
    }

    // ---- server ----

    private void runServer(final EventChannel channel) throws IOException, InterruptedException
    {
        final InetAddress local = InetAddress.getByName(bind == null ? "0.0.0.0" : bind);
        final CmId listener = channel.createId(null, PortSpace.TCP);
        listener.bindAddr(new InetSocketAddress(local, port));
        listener.listen(0);
        if (noOob)
        {
            try
            {
                out.printf("Accept (%d) QPs test%n", connections);
                out.flush();
                serverTest(channel, null, connections).print(out, true);
            }
            finally
            {
                listener.close();
            }
            return;
        }
        try (Oob oob = Oob.accept(local, port))
        {
            out.println("Server warmup");
            out.flush();
            final StepTimes warmup = serverTest(channel, oob, 1);
            if (warmupTable)
            {
                warmup.print(out, true);
            }
            out.printf("Accept (%d) QPs test%n", connections);
            out.flush();
            serverTest(channel, oob, connections).print(out, true);
        }
        finally
        {
            listener.close();
        }
    }

    private StepTimes serverTest(final EventChannel channel, final Oob oob, final int count)
        throws IOException, InterruptedException
    {
        final StepTimes times = new StepTimes(count);
        final CmId[] ids = new CmId[count];
        final Verbs verbs = new Verbs();
        answer(oob, 0);
        int accepted = 0;
        int established = 0;
        while (established < count)
        {
            final CmEvent event = next(channel);
            final CmId id = event.id();
            final CmEventType type = event.type();
            event.ack();
            if (type == CmEventType.CONNECT_REQUEST && accepted < count)
            {
                final int i = accepted++;
                ids[i] = id;
                id.context(i);
                if (i == 0)
                {
                    times.start(Step.FULL_CONNECT);
                    times.start(Step.CONNECT);
                }
                times.start(i, Step.FULL_CONNECT);
                times.start(i, Step.CONNECT);
                times.start(i, Step.CREATE_QP);
                id.createQp(verbs.pd(id.verbs()), verbs.qpAttr());
                times.end(i, Step.CREATE_QP);
                id.accept(null);
            }
            else if (type == CmEventType.ESTABLISHED)
            {
                final int i = (Integer)id.context();
                times.end(i, Step.CONNECT);
                times.end(i, Step.FULL_CONNECT);
                established++;
            }
            else
            {
                throw new IOException("cmtime: " + type + " while accepting, status " + event.status());
            }
        }
        times.end(Step.CONNECT);
        times.end(Step.FULL_CONNECT);
        answer(oob, Step.CONNECT.ordinal());
        times.start(Step.DISCONNECT);
        for (int disconnected = 0; disconnected < count; disconnected++)
        {
            final CmEvent event = next(channel);
            final CmEventType type = event.type();
            final CmId id = event.id();
            event.ack();
            if (type != CmEventType.DISCONNECTED)
            {
                throw new IOException("cmtime: " + type + " while disconnecting, status " + event.status());
            }
            final int i = (Integer)id.context();
            times.start(i, Step.DISCONNECT);
            id.disconnect();
            times.end(i, Step.DISCONNECT);
        }
        times.end(Step.DISCONNECT);
        answer(oob, Step.DISCONNECT.ordinal());
        destroy(times, ids);
        verbs.close();
        return times;
    }

    // ---- shared ----

    /** The client's meeting at a phase; none without the out-of-band connection (--no-oob). */
    private static void meet(final Oob oob, final int phase) throws IOException
    {
        if (oob != null)
        {
            oob.sendRecv(phase);
        }
    }

    /** The server's side of {@link #meet}. */
    private static void answer(final Oob oob, final int phase) throws IOException
    {
        if (oob != null)
        {
            oob.recvSend(phase);
        }
    }

    private void awaitAll(final EventChannel channel, final StepTimes times, final CmId[] ids,
        final CmEventType expected, final Step step, final int count) throws IOException, InterruptedException
    {
        int seen = 0;
        while (seen < count)
        {
            final CmEvent event = next(channel);
            final CmEventType type = event.type();
            final CmId id = event.id();
            final int status = event.status();
            event.ack();
            if (type == expected)
            {
                if (times != null)
                {
                    times.end((Integer)id.context(), step);
                }
                seen++;
            }
            else if ((type == CmEventType.ADDR_ERROR || type == CmEventType.ROUTE_ERROR) && retry(id, type))
            {
                continue;
            }
            else if (type != CmEventType.DISCONNECTED || expected != CmEventType.DISCONNECTED)
            {
                throw new IOException("cmtime: " + type + " where " + expected + " was due, status " + status +
                    " (" + count + " ids, " + ids.length + " made)");
            }
        }
    }

    private final Map<Integer, Integer> retried = new HashMap<>();

    /** cmtime's -r: an address or route error is tried again, up to -r times per id. */
    private boolean retry(final CmId id, final CmEventType type)
    {
        final int i = (Integer)id.context();
        final int tries = retried.merge(i, 1, Integer::sum);
        if (tries > retries)
        {
            return false;
        }
        if (type == CmEventType.ADDR_ERROR)
        {
            id.resolveAddr(null, destination, timeoutMs);
        }
        else
        {
            id.resolveRoute(timeoutMs);
        }
        return true;
    }

    private CmEvent next(final EventChannel channel) throws IOException, InterruptedException
    {
        final CmEvent event = channel.getEvent(Math.max(10_000, 4L * timeoutMs), TimeUnit.MILLISECONDS);
        if (event == null)
        {
            throw new IOException("cmtime: no CM event within " + Math.max(10_000, 4L * timeoutMs) + " ms");
        }
        return event;
    }

    private static void destroy(final StepTimes times, final CmId[] ids)
    {
        times.start(Step.DESTROY_QP);
        for (int i = 0; i < ids.length; i++)
        {
            times.start(i, Step.DESTROY_QP);
            ids[i].destroyQp();
            times.end(i, Step.DESTROY_QP);
        }
        times.end(Step.DESTROY_QP);
        times.start(Step.DESTROY_ID);
        for (int i = 0; i < ids.length; i++)
        {
            times.start(i, Step.DESTROY_ID);
            ids[i].close();
            times.end(i, Step.DESTROY_ID);
        }
        times.end(Step.DESTROY_ID);
    }

    /** The PD and CQ of the device the ids are on, made at the first QP, as cmtime allocates them once. */
    private static final class Verbs
    {
        private Context context;
        private ProtectionDomain pd;
        private CompletionQueue cq;

        ProtectionDomain pd(final Context on)
        {
            if (context != on)
            {
                close();
                context = on;
                pd = on.allocPd();
                cq = on.createCq(1024, null, 0);
            }
            return pd;
        }

        QpInitAttr qpAttr()
        {
            return QpInitAttr.of(QpType.RC, cq, QpCap.of(1, 1));
        }

        void close()
        {
            if (cq != null)
            {
                cq.close();
                pd.close();
                cq = null;
                pd = null;
                context = null;
            }
        }
    }
}
