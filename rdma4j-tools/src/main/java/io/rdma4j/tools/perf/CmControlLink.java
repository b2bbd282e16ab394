package io.rdma4j.tools.perf;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventException;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.tools.perf.perftest.PerftestLink;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * perftest's exchange with {@code -R}: instead of its TCP connection, an RC QP that rdma_cm connects on the test's
 * port, each message one SEND into the single receive the peer keeps posted (and posts again as soon as it has
 * copied a message out, before it answers). Its device context is the one the test's QPs are made on.
 */
final class CmControlLink implements PerftestLink, AutoCloseable
{
    private static final int BUFFER = 4096;
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(120);
    private static final int RESOLVE_MS = 2000;
    private static final int ADDR_TRIES = 10;

    private final EventChannel events;
    private final CmId id;
    private final ProtectionDomain pd;
    /** Sends and receives complete on their own CQs: the peer's answer may come before this side's ACK. */
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf;
    private final MemoryRegion mr;
    private final WorkCompletion[] wcs = WorkCompletion.array(1);
    private final SendWr sendWr = new SendWr();
    private final RecvWr recvWr = new RecvWr();
    private final IdleSpin spin = new IdleSpin();

    private CmControlLink(final EventChannel events, final CmId id)
    {
        this.events = events;
        this.id = id;
        final Context verbs = id.verbs();
        pd = verbs.allocPd();
        sendCq = verbs.createCq(4, null, 0);
        recvCq = verbs.createCq(4, null, 0);
        buf = arena.allocate(BUFFER, BUFFER);
        mr = pd.regMr(buf, EnumSet.of(AccessFlag.LOCAL_WRITE));
        id.createQp(pd, QpInitAttr.of(QpType.RC, sendCq, QpCap.of(2, 2)).withRecvCq(recvCq));
        recvWr.wrId(RdmaPeer.RECV_WRID).sge(mr, 0, BUFFER);
        id.qp().postRecv(recvWr);
    }

    /**
     * The client's side: resolve the server, connect, wait for ESTABLISHED.
     *
     * @param server the server's address.
     * @param port   the port it listens on.
     * @return the link.
     * @throws PerfException        if the connection manager refuses.
     * @throws InterruptedException if interrupted.
     */
    static CmControlLink connect(final String server, final int port) throws PerfException, InterruptedException
    {
        final EventChannel events = RdmaCm.createEventChannel();
        CmId id = null;
        try
        {
            id = events.createId(null, PortSpace.TCP);
            final InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(server), port);
            resolve(events, id, target);
            final CmControlLink link = new CmControlLink(events, id);
            id.connect(params());
            events.expect(CmEventType.ESTABLISHED, 30, TimeUnit.SECONDS).ack();
            return link;
        }
        catch (final RdmaException | IOException ex)
        {
            closeQuietly(events, id);
            throw new PerfException("rdma_cm connection to " + server + ":" + port + " for perftest's exchange: " +
                ex.getMessage(), ex);
        }
    }

    /**
     * Resolve address and route, trying the address again on ADDR_ERROR as perftest does.
     */
    static void resolve(final EventChannel events, final CmId id, final InetSocketAddress target)
        throws InterruptedException
    {
        for (int tries = 1; ; tries++)
        {
            id.resolveAddr(null, target, RESOLVE_MS);
            try
            {
                events.expect(CmEventType.ADDR_RESOLVED, 30, TimeUnit.SECONDS).ack();
                break;
            }
            catch (final CmEventException ex)
            {
                if (tries == ADDR_TRIES)
                {
                    throw ex;
                }
            }
        }
        id.resolveRoute(RESOLVE_MS);
        events.expect(CmEventType.ROUTE_RESOLVED, 30, TimeUnit.SECONDS).ack();
    }

    /**
     * The server's side: listen on the port, say so, accept the first request and stop listening (the test's QPs
     * connect to the same port later).
     *
     * @param bind  the local address, or null for every one.
     * @param port  the port.
     * @param out   where the waiting line goes.
     * @param label the test, for that line.
     * @return the link.
     * @throws PerfException        if the connection manager refuses.
     * @throws InterruptedException if interrupted.
     */
    static CmControlLink accept(final InetAddress bind, final int port, final PrintWriter out, final String label)
        throws PerfException, InterruptedException
    {
        final EventChannel events = RdmaCm.createEventChannel();
        CmId id = null;
        try (CmId listener = events.createId(null, PortSpace.TCP))
        {
            listener.bindAddr(new InetSocketAddress(bind == null ? InetAddress.getByName("0.0.0.0") : bind, port));
            listener.listen(1);
            out.printf(Locale.ROOT, "# %s server (perftest's exchange over rdma_cm, -R): waiting for a client on " +
                "rdma_cm port %d%n", label, port);
            out.flush();
            final CmEvent request = events.expect(CmEventType.CONNECT_REQUEST, -1, TimeUnit.SECONDS);
            id = request.id();
            request.ack();
            final CmControlLink link = new CmControlLink(events, id);
            id.accept(params());
            events.expect(CmEventType.ESTABLISHED, 30, TimeUnit.SECONDS).ack();
            return link;
        }
        catch (final RdmaException | IOException ex)
        {
            closeQuietly(events, id);
            throw new PerfException("rdma_cm port " + port + " for perftest's exchange: " + ex.getMessage(), ex);
        }
    }

    private static ConnParam params()
    {
        return ConnParam.builder().retryCount(7).rnrRetryCount(7).build();
    }

    private static void closeQuietly(final EventChannel events, final CmId id)
    {
        try
        {
            if (id != null)
            {
                if (id.qp() != null)
                {
                    id.destroyQp();
                }
                id.close();
            }
            events.close();
        }
        catch (final RuntimeException ex)
        {
            // the first failure is the one reported
        }
    }

    /**
     * @return the device context the connection manager chose, where the test's resources go.
     */
    Context verbs()
    {
        return id.verbs();
    }

    @Override
    public void send(final byte[] message) throws IOException
    {
        MemorySegment.copy(message, 0, buf, ValueLayout.JAVA_BYTE, 0, message.length);
        sendWr.wrId(RdmaPeer.SEND_WRID).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(mr, 0, message.length);
        id.qp().postSend(sendWr);
        awaitOne(sendCq, RdmaPeer.SEND_WRID);
    }

    @Override
    public byte[] receive(final int size) throws IOException
    {
        final WorkCompletion wc = awaitOne(recvCq, RdmaPeer.RECV_WRID);
        if (wc.byteLen() < size)
        {
            throw new IOException("the peer's message is " + wc.byteLen() + " bytes; perftest's step here has " +
                size);
        }
        final byte[] message = buf.asSlice(0, size).toArray(ValueLayout.JAVA_BYTE);
        id.qp().postRecv(recvWr);
        return message;
    }

    private WorkCompletion awaitOne(final CompletionQueue cq, final long wrId) throws IOException
    {
        final long deadline = System.nanoTime() + WAIT_NS;
        while (cq.poll(wcs) == 0)
        {
            spin.idle();
            if (System.nanoTime() - deadline > 0)
            {
                throw new IOException("no message from the peer on the rdma_cm exchange for " +
                    TimeUnit.NANOSECONDS.toSeconds(WAIT_NS) + " s");
            }
        }
        spin.reset();
        final WorkCompletion wc = wcs[0];
        if (!wc.isSuccess() || wc.wrId() != wrId)
        {
            throw new IOException(String.format(Locale.ROOT, "the rdma_cm exchange's %s failed: %s (%d)",
                wc.opcode(), wc.status().description(), wc.status().value()));
        }
        return wc;
    }

    @Override
    public void close()
    {
        try
        {
            id.disconnect();
        }
        catch (final RdmaException ex)
        {
            // the peer may have gone first: nothing more to say to it
        }
        id.destroyQp();
        id.close();
        events.close();
        mr.close();
        sendCq.close();
        recvCq.close();
        pd.close();
        arena.close();
    }
}
