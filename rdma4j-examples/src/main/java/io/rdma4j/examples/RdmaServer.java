package io.rdma4j.examples;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The passive side of "Building an RDMA-capable application with IB verbs, part 2: the server", in
 * Java: listen, and for each connection build a QP, pre-post a receive, accept, send a greeting once
 * established, print what arrives, and tear down on disconnect. One PD, completion channel and CQ
 * (with a thread pulling completions) serve every connection.
 * <p>
 * One change from the C code: a connection is torn down by the thread that pulls completions, after it has
 * drained the CQ. The peer's message completes before its disconnect request arrives, but the CM thread may
 * see the disconnect before the CQ thread sees that completion; freeing the connection at once would leave
 * the completion pointing at nothing.
 * <p>
 * Usage: {@code RdmaServer [ADDRESS [CONNECTIONS]]}; it listens on a free port of ADDRESS (default
 * 127.0.0.1) and stops after CONNECTIONS connections (default: never).
 */
public final class RdmaServer
{
    static final int BUFFER_SIZE = 1024;

    /** Connections by the wr_id of their work requests, as the C code passes the connection in wr_id. */
    private final Map<Long, Connection> byWrId = new ConcurrentHashMap<>();
    /** Disconnected ids, torn down by the CQ thread once it has drained what they completed. */
    private final Queue<CmId> disconnected = new ConcurrentLinkedQueue<>();
    private long nextWrId;
    private ProtectionDomain pd;
    private CompletionChannel compChannel;
    private CompletionQueue cq;
    private Thread poller;

    /** What a connection owns: its buffers and their registrations (the QP lives on the id). */
    private record Connection(long wrId, Arena arena, MemorySegment recv, MemorySegment send, MemoryRegion recvMr,
        MemoryRegion sendMr)
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final InetAddress address = InetAddress.getByName(args.length > 0 ? args[0] : "127.0.0.1");
        final int connections = args.length > 1 ? Integer.parseInt(args[1]) : Integer.MAX_VALUE;
        new RdmaServer().run(address, connections);
    }

    private void run(final InetAddress address, final int connections) throws Exception
    {
        try (EventChannel channel = RdmaCm.createEventChannel())
        {
            final CmId listener = channel.createId(null, PortSpace.TCP);
            listener.bindAddr(new InetSocketAddress(address, 0));   // port 0: pick a free one
            listener.listen(10);
            System.out.printf("listening on port %d.%n", listener.localAddress().getPort());

            int disconnects = 0;
            while (disconnects < connections)
            {
                // copy what the handlers need, then acknowledge: destroying an id waits for its acks
                final CmEvent event = channel.getEvent(-1, TimeUnit.SECONDS);
                final CmEventType type = event.type();
                final CmId id = event.id();
                event.ack();
                switch (type)
                {
                    case CONNECT_REQUEST -> onConnectRequest(id);
                    case ESTABLISHED -> onConnection(id);
                    case DISCONNECTED ->
                    {
                        onDisconnect(id);
                        disconnects++;
                    }
                    default -> throw new IllegalStateException("on_event: unknown event " + type);
                }
            }
            listener.close();
            poller.interrupt();   // it waits on the channel: stop it before destroying what it waits on
            poller.join();
            drainAndTearDown();   // what the poller had not reached yet
            cq.close();
            compChannel.close();
            pd.close();
        }
    }

    private void onConnectRequest(final CmId id)
    {
        System.out.println("received connection request.");
        buildContext(id.verbs());
        id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(10, 10)));
        final Arena arena = Arena.ofShared();   // the device reaches this memory from its own threads
        final MemorySegment recv = arena.allocate(BUFFER_SIZE);
        final MemorySegment send = arena.allocate(BUFFER_SIZE);
        final Connection conn = new Connection(++nextWrId, arena, recv, send,
            pd.regMr(recv, EnumSet.of(AccessFlag.LOCAL_WRITE)), pd.regMr(send, EnumSet.noneOf(AccessFlag.class)));
        id.context(conn);
        byWrId.put(conn.wrId(), conn);
        // RC has no buffering: the receive must be there before the peer can send
        id.qp().postRecv(new RecvWr().wrId(conn.wrId()).sge(conn.recvMr(), 0, BUFFER_SIZE));
        id.accept(null);
    }

    /** The first request brings the device: one PD, channel and CQ, and a thread draining the CQ. */
    private void buildContext(final Context verbs)
    {
        if (pd != null)
        {
            return;
        }
        pd = verbs.allocPd();
        compChannel = verbs.createCompChannel();
        cq = verbs.createCq(10, compChannel, 0);
        cq.requestNotify(false);
        poller = Thread.ofPlatform().daemon().name("cq-poller").start(this::pollCq);
    }

    private void pollCq()
    {
        final WorkCompletion[] wcs = WorkCompletion.array(8);
        try
        {
            while (true)
            {
                // a bounded wait, so a disconnect with no completion after it is still torn down soon
                final CompletionQueue ready = compChannel.getCqEvent(100, TimeUnit.MILLISECONDS);
                if (ready != null)
                {
                    ready.ackEvents(1);
                    ready.requestNotify(false);   // re-arm before draining, so nothing slips between
                }
                drainAndTearDown(wcs);
            }
        }
        catch (final InterruptedException ex)
        {
            // the server is shutting down
        }
    }

    private void drainAndTearDown()
    {
        drainAndTearDown(WorkCompletion.array(8));
    }

    /** Handle every completion in the CQ, then tear down the connections disconnected before it was read. */
    private void drainAndTearDown(final WorkCompletion[] wcs)
    {
        final int pending = disconnected.size();
        int n;
        while ((n = cq.poll(wcs)) > 0)
        {
            for (int i = 0; i < n; i++)
            {
                onCompletion(wcs[i]);
            }
        }
        for (int i = 0; i < pending; i++)
        {
            tearDown(disconnected.remove());
        }
    }

    private void onCompletion(final WorkCompletion wc)
    {
        if (!wc.isSuccess())
        {
            System.out.println("on_completion: status is not success: " + wc.status());
        }
        else if (wc.opcode() == WcOpcode.RECV)
        {
            final Connection conn = byWrId.get(wc.wrId());
            System.out.println("received message: " + conn.recv().getString(0, StandardCharsets.US_ASCII));
        }
        else
        {
            System.out.println("send completed successfully.");
        }
    }

    private static void onConnection(final CmId id)
    {
        final Connection conn = (Connection)id.context();
        final String message = "message from passive/server side with pid " + ProcessHandle.current().pid();
        conn.send().setString(0, message, StandardCharsets.US_ASCII);
        id.qp().postSend(new SendWr().wrId(conn.wrId()).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(conn.sendMr(), 0, message.length() + 1));
    }

    private void onDisconnect(final CmId id)
    {
        System.out.println("peer disconnected.");
        disconnected.add(id);
    }

    private void tearDown(final CmId id)
    {
        final Connection conn = (Connection)id.context();
        byWrId.remove(conn.wrId());
        id.destroyQp();
        conn.recvMr().close();
        conn.sendMr().close();
        conn.arena().close();
        id.close();
    }
}
