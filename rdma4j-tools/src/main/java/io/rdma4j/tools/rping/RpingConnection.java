package io.rdma4j.tools.rping;

import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.tools.common.Closing;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One rping connection, the counterpart of rping's control block: its verbs resources, the
 * state the CM and CQ threads report through, the semaphore the main thread waits on, and the
 * two halves of the ping protocol.
 * <p>
 * Per ping, the client SENDs an advert of its source buffer; the server RDMA READs that buffer
 * into its own and SENDs a go-ahead; the client SENDs an advert of its sink buffer; the server
 * RDMA WRITEs the text back into it and SENDs again; the client may compare source and sink.
 * Every SEND is {@value RpingAdvert#BYTES} bytes, and a receive of any other size is refused.
 */
final class RpingConnection
{
    /** Send queue depth; the CQ has twice as many entries. */
    static final int SQ_DEPTH = 16;
    /** Receives the QP can hold; one is posted at a time. */
    static final int RQ_DEPTH = 2;
    /** How long a waiting thread sleeps on the completion channel before looking at its stop flag. */
    private static final long CQ_WAIT_SLICE_MS = 100;

    final boolean server;
    final int size;
    final int count;
    final boolean verbose;
    final boolean validate;
    /** -q: the QP is made with ibv_create_qp and moved with rdma_init_qp_attr, not made on the id. */
    final boolean selfCreatedQp;
    private final RpingOutput output;

    /** Set by the CM and CQ threads, read by the main thread after each wake-up. */
    volatile RpingState state = RpingState.IDLE;
    /** Released once per event the main thread waits for (rping's sem). */
    final Semaphore sem = new Semaphore(0);
    /** The listener's: taken by the CM thread per request, returned once the request has its own connection. */
    final Semaphore acceptReady = new Semaphore(1);
    /** Counted down on DISCONNECTED. */
    final CountDownLatch disconnected = new CountDownLatch(1);

    /** The client's id, or on a server the connection's own id (the listener is the session's). */
    volatile CmId id;

    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue cq;
    private QueuePair qp;
    private Arena arena;
    private MemorySegment recvBuf;
    private MemoryRegion recvMr;
    private MemorySegment sendBuf;
    private MemoryRegion sendMr;
    private MemorySegment rdmaBuf;
    private MemoryRegion rdmaMr;
    private MemorySegment startBuf;
    private MemoryRegion startMr;
    private RecvWr recvWr;
    private SendWr sendWr;
    private SendWr rdmaWr;
    private final WorkCompletion[] wcs = WorkCompletion.array(1);
    private Thread cqThread;
    private volatile boolean stopCq;

    private volatile long remoteAddr;
    private volatile int remoteRkey;
    private volatile int remoteLen;

    RpingConnection(
        final boolean server, final int size, final int count, final boolean verbose, final boolean validate,
        final boolean selfCreatedQp, final RpingOutput output)
    {
        this.server = server;
        this.selfCreatedQp = selfCreatedQp;
        this.size = size;
        this.count = count;
        this.verbose = verbose;
        this.validate = validate;
        this.output = output;
    }

    /**
     * @return a fresh control block with the same settings, for one more connection of a
     *         persistent server.
     */
    RpingConnection copy()
    {
        return new RpingConnection(server, size, count, verbose, validate, selfCreatedQp, output);
    }

    /**
     * rping's connection parameters: one RDMA READ in flight each way, seven retries of each kind.
     */
    ConnParam connParam()
    {
        // with -q the id has no QP: the CM learns the application's QP from qp_num
        return ConnParam.builder().responderResources(1).initiatorDepth(1)
            .qpNum(selfCreatedQp && qp != null ? qp.qpNum() : 0).build();
    }

    /**
     * rping_self_modify_qp: move the application's QP to a state with the attributes the id gives.
     *
     * @return 0, or -1 after reporting a failure.
     */
    private int modifySelf(final CmId cmId, final QpState state)
    {
        try
        {
            qp.modify(cmId.initQpAttr(state));
            return 0;
        }
        catch (final RdmaException ex)
        {
            output.err("rping_self_modify_qp to %s: %s", state, ex.getMessage());
            return -1;
        }
    }

    void wake(final RpingState newState)
    {
        state = newState;
        sem.release();
    }

    /**
     * Wait for the next wake-up.
     */
    void await() throws InterruptedException
    {
        sem.acquire();
    }

    /**
     * Wait for the next state change and check it is the one expected, as rping's loops do.
     *
     * @return false, the failure printed, if it is another.
     */
    private boolean reached(final RpingState expected) throws InterruptedException
    {
        await();
        if (state != expected)
        {
            output.err("wait for %s state %d", expected.name(), state.code());
            return false;
        }
        return true;
    }

    /**
     * PD, completion channel, CQ of twice the send depth (armed), and an RC QP through the CM.
     *
     * @return 0, or what rping returns for the failure (already reported).
     */
    int setupQp(final CmId cmId)
    {
        final Context verbs = cmId.verbs();
        try
        {
            pd = verbs.allocPd();
        }
        catch (final RdmaException ex)
        {
            output.err("ibv_alloc_pd failed");
            return ex.errnoCode();
        }
        output.debug("created pd %s", pd);
        try
        {
            channel = verbs.createCompChannel();
            output.debug("created channel %s", channel);
            cq = verbs.createCq(SQ_DEPTH * 2, channel, 0);
            output.debug("created cq %s", cq);
            cq.requestNotify(false);
        }
        catch (final RdmaException ex)
        {
            output.err(channel == null ? "ibv_create_comp_channel failed" : "ibv_create_cq failed");
            freeQp(null);
            return ex.errnoCode();
        }
        try
        {
            final QpInitAttr attr = QpInitAttr.of(QpType.RC, cq, new QpCap(SQ_DEPTH, RQ_DEPTH, 1, 1, 0));
            qp = selfCreatedQp ? pd.createQp(attr) : cmId.createQp(pd, attr);
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_create_qp: %s", ex.getMessage());
            freeQp(null);
            return -1;
        }
        output.debug("created qp 0x%06x", qp.qpNum());
        return selfCreatedQp ? modifySelf(cmId, QpState.INIT) : 0;
    }

    /**
     * Register the receive and send buffers (one advert each), the RDMA buffer (the server's READ
     * sink and WRITE source; the client's WRITE sink) and, on the client, the source buffer the
     * server READs.
     *
     * @return 0, or an errno (already reported).
     */
    int setupBuffers()
    {
        output.debug("rping_setup_buffers called on cb %s", this);
        arena = Arena.ofShared();
        final EnumSet<AccessFlag> remote =
            EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);
        try
        {
            recvBuf = arena.allocate(RpingAdvert.BYTES, 8);
            recvMr = register(recvBuf, EnumSet.of(AccessFlag.LOCAL_WRITE), "recv_buf");
            sendBuf = arena.allocate(RpingAdvert.BYTES, 8);
            sendMr = register(sendBuf, EnumSet.noneOf(AccessFlag.class), "send_buf");
            rdmaBuf = arena.allocate(size, 64);
            rdmaMr = register(rdmaBuf, remote, "rdma_buf");
            if (!server)
            {
                startBuf = arena.allocate(size, 64);
                startMr = register(startBuf, remote, "start_buf");
            }
        }
        catch (final RdmaException ex)
        {
            freeBuffers();
            return ex.errnoCode();
        }
        recvWr = new RecvWr().sge(recvMr, 0, RpingAdvert.BYTES);
        sendWr = new SendWr().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(sendMr, 0, RpingAdvert.BYTES);
        rdmaWr = new SendWr().sendFlags(SendFlags.SIGNALED);
        output.debug("allocated & registered buffers...");
        return 0;
    }

    private MemoryRegion register(final MemorySegment buffer, final EnumSet<AccessFlag> access, final String name)
    {
        try
        {
            return pd.regMr(buffer, access);
        }
        catch (final RdmaException ex)
        {
            output.err("%s reg_mr failed", name);
            throw ex;
        }
    }

    /**
     * @return 0, or -1 after reporting a failure.
     */
    int postRecv()
    {
        try
        {
            qp.postRecv(recvWr);
            return 0;
        }
        catch (final RdmaException ex)
        {
            output.err("ibv_post_recv failed: %s", ex.getMessage());
            return -1;
        }
    }

    /**
     * Start the thread that sleeps on the completion channel and handles completions.
     */
    void startCqThread()
    {
        stopCq = false;
        cqThread = Thread.ofPlatform().daemon().name("rping-cq").start(this::cqLoop);
    }

    /**
     * Stop the CQ thread (it also ends by itself on a flushed or failed completion) and wait for it.
     */
    void stopCqThread() throws InterruptedException
    {
        stopCq = true;
        if (cqThread != null)
        {
            cqThread.join();
            cqThread = null;
        }
    }

    private void cqLoop()
    {
        output.debug("cq_thread started.");
        try
        {
            while (!stopCq)
            {
                final CompletionQueue fired = channel.getCqEvent(CQ_WAIT_SLICE_MS, TimeUnit.MILLISECONDS);
                if (fired == null)
                {
                    continue;
                }
                if (fired != cq)
                {
                    output.err("Unknown CQ!");
                    return;
                }
                try
                {
                    cq.requestNotify(false);
                }
                catch (final RdmaException ex)
                {
                    output.err("Failed to set notify!");
                    fired.ackEvents(1);
                    return;
                }
                final int ret = handleCompletions();
                cq.ackEvents(1);
                if (ret != 0)
                {
                    return;
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        catch (final RdmaException ex)
        {
            output.err("Failed to get cq event!");
            wake(RpingState.ERROR);
        }
        catch (final RuntimeException ex)
        {
            output.err("rping: completion handling failed: %s", ex);
            wake(RpingState.ERROR);
        }
    }

    /**
     * Drain the CQ. A receive completion updates the state from the advert and reposts the
     * receive; READ and WRITE completions move the state on; every such completion wakes the
     * main thread.
     *
     * @return 0 to go on, 1 if a flushed completion showed the QP is going down, -1 on an error.
     */
    int handleCompletions()
    {
        boolean flushed = false;
        while (cq.poll(wcs, 1) == 1)
        {
            final WorkCompletion wc = wcs[0];
            if (!wc.isSuccess())
            {
                if (wc.status() == WcStatus.WR_FLUSH_ERR)
                {
                    flushed = true;
                    continue;
                }
                output.err("cq completion failed status %d", wc.status().value());
                wake(RpingState.ERROR);
                return -1;
            }
            switch (wc.opcode())
            {
                case SEND -> output.debug("send completion");
                case RDMA_WRITE ->
                {
                    output.debug("rdma write completion");
                    wake(RpingState.RDMA_WRITE_COMPLETE);
                }
                case RDMA_READ ->
                {
                    output.debug("rdma read completion");
                    wake(RpingState.RDMA_READ_COMPLETE);
                }
                case RECV ->
                {
                    output.debug("recv completion");
                    final int ret = server ? serverRecv(wc) : clientRecv(wc);
                    if (ret != 0)
                    {
                        output.err("recv wc error: %d", ret);
                        wake(RpingState.ERROR);
                        return -1;
                    }
                    try
                    {
                        qp.postRecv(recvWr);
                    }
                    catch (final RdmaException ex)
                    {
                        output.err("post recv error: %s", ex.getMessage());
                        wake(RpingState.ERROR);
                        return -1;
                    }
                    sem.release();
                }
                default ->
                {
                    output.debug("unknown!!!!! completion");
                    wake(RpingState.ERROR);
                    return -1;
                }
            }
        }
        return flushed ? 1 : 0;
    }

    private int serverRecv(final WorkCompletion wc)
    {
        if (wc.byteLen() != RpingAdvert.BYTES)
        {
            output.err("Received bogus data, size %d", wc.byteLen());
            return -1;
        }
        final RpingAdvert advert = RpingAdvert.readFrom(recvBuf);
        remoteRkey = advert.rkey();
        remoteAddr = advert.address();
        remoteLen = advert.length();
        output.debug("Received rkey %x addr %x len %d from peer", remoteRkey, remoteAddr, remoteLen);
        final RpingState now = state;
        state = now.beforePings() || now == RpingState.RDMA_WRITE_COMPLETE ?
            RpingState.RDMA_READ_ADV : RpingState.RDMA_WRITE_ADV;
        return 0;
    }

    private int clientRecv(final WorkCompletion wc)
    {
        if (wc.byteLen() != RpingAdvert.BYTES)
        {
            output.err("Received bogus data, size %d", wc.byteLen());
            return -1;
        }
        state = state == RpingState.RDMA_READ_ADV ? RpingState.RDMA_WRITE_ADV : RpingState.RDMA_WRITE_COMPLETE;
        return 0;
    }

    /**
     * The server's half: for each ping, READ the advertised source, say go, WRITE the text to
     * the advertised sink, say go; until the client disconnects.
     * <p>
     * DESIGN (fail loudly): rping counts a disconnect at any step as the end of the run; here only
     * a disconnect between pings (waiting for the next advert) is. A client gone in the middle of
     * a ping is a failed run, and the status says so, as scripts and tests rely on it.
     *
     * @return 0 if the loop ended because the client disconnected between pings, else -1 or the
     *         post's errno.
     */
    int testServer() throws InterruptedException
    {
        int ret;
        while (true)
        {
            if (!reached(RpingState.RDMA_READ_ADV))
            {
                // the client's disconnect after its last ping comes here: the normal end
                ret = state == RpingState.DISCONNECTED ? 0 : -1;
                break;
            }
            output.debug("server received sink adv");
            rdmaWr.opcode(WrOpcode.RDMA_READ).rdma(remoteAddr, remoteRkey).sge(rdmaMr, 0, remoteLen);
            ret = post(rdmaWr);
            if (ret != 0)
            {
                break;
            }
            output.debug("server posted rdma read req ");
            if (!reached(RpingState.RDMA_READ_COMPLETE))
            {
                ret = -1;
                break;
            }
            output.debug("server received read complete");
            if (verbose)
            {
                output.out("server ping data: %s", PingPattern.cString(rdmaBuf, size));
            }
            ret = post(sendWr);
            if (ret != 0)
            {
                break;
            }
            output.debug("server posted go ahead");
            if (!reached(RpingState.RDMA_WRITE_ADV))
            {
                ret = -1;
                break;
            }
            output.debug("server received sink adv");
            // the text and its NUL, as strlen + 1
            final int length = Math.min(size, PingPattern.cStringLength(rdmaBuf, size) + 1);
            rdmaWr.opcode(WrOpcode.RDMA_WRITE).rdma(remoteAddr, remoteRkey).sge(rdmaMr, 0, length);
            output.debug("rdma write from lkey %x laddr %x len %d", rdmaMr.lkey(), rdmaMr.address(), length);
            ret = post(rdmaWr);
            if (ret != 0)
            {
                break;
            }
            if (!reached(RpingState.RDMA_WRITE_COMPLETE))
            {
                ret = -1;
                break;
            }
            output.debug("server rdma write complete ");
            ret = post(sendWr);
            if (ret != 0)
            {
                break;
            }
            output.debug("server posted go ahead");
        }
        return ret;
    }

    /**
     * The client's half: {@link #count} pings (0: until something fails).
     * <p>
     * DESIGN (fail loudly): rping's client returns success when the server disconnected, whatever
     * step it was at; a server that goes away before the last ping is a failed run here.
     *
     * @return 0 when all pings are done, else -1 (the server went away, an unexpected state, a
     *         mismatch) or the post's errno.
     */
    int testClient() throws InterruptedException
    {
        final PingPattern pattern = new PingPattern();
        int ret = 0;
        for (int ping = 0; count == 0 || ping < count; ping++)
        {
            state = RpingState.RDMA_READ_ADV;
            pattern.fill(startBuf, size, ping);
            formatSend(startMr);
            ret = post(sendWr);
            if (ret != 0)
            {
                break;
            }
            if (!reached(RpingState.RDMA_WRITE_ADV))
            {
                ret = -1;
                break;
            }
            formatSend(rdmaMr);
            ret = post(sendWr);
            if (ret != 0)
            {
                break;
            }
            if (!reached(RpingState.RDMA_WRITE_COMPLETE))
            {
                ret = -1;
                break;
            }
            if (validate && startBuf.asSlice(0, size).mismatch(rdmaBuf.asSlice(0, size)) != -1)
            {
                output.err("data mismatch!");
                ret = -1;
                break;
            }
            if (verbose)
            {
                output.out("ping data: %s", PingPattern.cString(rdmaBuf, size));
            }
        }
        return ret;
    }

    /**
     * Put the advert of a whole buffer ({@link #size} bytes) into the send buffer.
     */
    private void formatSend(final MemoryRegion mr)
    {
        final RpingAdvert advert = new RpingAdvert(mr.address(), mr.rkey(), size);
        advert.writeTo(sendBuf);
        output.debug("RDMA addr %x rkey %x len %d", advert.address(), advert.rkey(), advert.length());
    }

    private int post(final SendWr wr)
    {
        try
        {
            qp.postSend(wr);
            return 0;
        }
        catch (final RdmaException ex)
        {
            output.err("post send error %d: %s", ex.errnoCode(), ex.getMessage());
            return ex.errnoCode();
        }
    }

    /**
     * @param handshakeSeconds how long to wait for ESTABLISHED; 0 for ever.
     * @return what to print for a failure to accept; 0 once the connection is up.
     */
    int accept(final CmId cmId, final int handshakeSeconds) throws InterruptedException
    {
        output.debug("accepting client connection request");
        if (selfCreatedQp && (modifySelf(cmId, QpState.RTR) != 0 || modifySelf(cmId, QpState.RTS) != 0))
        {
            return -1;
        }
        try
        {
            cmId.accept(selfCreatedQp ? connParam() : null);
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_accept: %s", ex.getMessage());
            return -1;
        }
        if (handshakeSeconds <= 0)
        {
            await();
        }
        else if (!sem.tryAcquire(handshakeSeconds, TimeUnit.SECONDS))
        {
            // a peer that never sends its RTU holds a QP and buffers: let them go
            output.err("rping: dropping a connection not established within %d s", handshakeSeconds);
            return -1;
        }
        if (state == RpingState.ERROR)
        {
            output.err("wait for CONNECTED state %d", state.code());
            return -1;
        }
        return 0;
    }

    /**
     * @return 0 once ESTABLISHED, else -1 (reported).
     */
    int connect(final CmId cmId) throws InterruptedException
    {
        try
        {
            cmId.connect(connParam());
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_connect: %s", ex.getMessage());
            return -1;
        }
        if (!reached(RpingState.CONNECTED))
        {
            return -1;
        }
        if (selfCreatedQp)
        {
            // CONNECT_RESPONSE: the REP is in; our QP goes to RTR and RTS, then the RTU goes out
            if (modifySelf(cmId, QpState.RTR) != 0 || modifySelf(cmId, QpState.RTS) != 0)
            {
                return -1;
            }
            try
            {
                cmId.establish();
            }
            catch (final RdmaException ex)
            {
                output.err("rdma_establish: %s", ex.getMessage());
                return -1;
            }
        }
        output.debug("rdma_connect successful");
        return 0;
    }

    /**
     * {@code rdma_disconnect}: the QP goes to ERR, and a DREQ (or the DREP to the peer's DREQ) goes out.
     */
    void disconnect(final CmId cmId)
    {
        try
        {
            cmId.disconnect();
        }
        catch (final RdmaException ex)
        {
            output.err("rdma_disconnect: %s", ex.getMessage());
        }
    }

    /**
     * Deregister and free the buffers.
     */
    void freeBuffers()
    {
        output.debug("rping_free_buffers called on cb %s", this);
        closeQuietly(recvMr);
        closeQuietly(sendMr);
        closeQuietly(rdmaMr);
        closeQuietly(startMr);
        recvMr = null;
        sendMr = null;
        rdmaMr = null;
        startMr = null;
        if (arena != null)
        {
            arena.close();
            arena = null;
        }
    }

    /**
     * Destroy the QP (through its id, which made it), the CQ, the channel and the PD.
     *
     * @param cmId the id the QP was made on, or null if there is no QP.
     */
    void freeQp(final CmId cmId)
    {
        if (qp != null && cmId != null)
        {
            try
            {
                if (selfCreatedQp)
                {
                    qp.close();
                }
                else
                {
                    cmId.destroyQp();
                }
            }
            catch (final RdmaException ex)
            {
                output.err(selfCreatedQp ? "ibv_destroy_qp: %s" : "rdma_destroy_qp: %s", ex.getMessage());
            }
            qp = null;
        }
        closeQuietly(cq);
        closeQuietly(channel);
        closeQuietly(pd);
        cq = null;
        channel = null;
        pd = null;
    }

    private void closeQuietly(final AutoCloseable resource)
    {
        Closing.closeReporting(resource, message -> output.err("rping: cleanup: %s", message));
    }

    @Override
    public String toString()
    {
        return "cb@" + Integer.toHexString(System.identityHashCode(this));
    }
}
