package io.rdma4j.cm.ep;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventException;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * A synchronous connection-manager id with its QP ({@code rdma_create_ep}): librdmacm's convenience layer. It has
 * an event channel of its own, and each connection-manager call but {@link #disconnect()} blocks until the event it
 * leads to has come, so a client is create, connect, post, wait for the completion, disconnect, close; and a server
 * create, listen, {@link #getRequest()}, accept, and so on. Given QP attributes, an endpoint makes its QP, and the
 * send and receive CQs the attributes leave out, each CQ with a completion channel of its own, which
 * {@link #getSendComp} and {@link #getRecvComp} sleep on; a listener makes them for each request it hands out.
 * <p>
 * Errors are {@link RdmaException}s: the connection manager's event, when one came instead of the one expected,
 * as a {@link CmEventException} (ECONNREFUSED for a rejected connect, ETIMEDOUT or EHOSTUNREACH for one nobody
 * answered). {@link #close()} is {@code rdma_destroy_ep}: it destroys the QP, the CQs and channels the endpoint
 * made, and the id; close the memory regions registered on it first, as with {@code rdma_dereg_mr}.
 * <p>
 * Thread-safety: connection-manager calls from one thread at a time; sends, receives and each kind of completion
 * wait may each be called from their own thread. Posting allocates nothing.
 */
public final class Endpoint implements AutoCloseable
{
    /** The timeout {@code rdma_create_ep} gives address and route resolution. */
    public static final int RESOLVE_TIMEOUT_MS = 2000;

    private final SyncChannel sync;
    private final CmId id;
    private final boolean passive;
    private final ProtectionDomain requestPd;
    private final QpInitAttr requestAttr;
    private final SendWr sendWr = new SendWr();
    private final RecvWr recvWr = new RecvWr();
    private final WorkCompletion[] sendWc = WorkCompletion.array(1);
    private final WorkCompletion[] recvWc = WorkCompletion.array(1);
    private CompletionChannel sendChannel;
    private CompletionChannel recvChannel;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private boolean connected;
    private boolean closed;

    private Endpoint(final SyncChannel sync, final CmId id, final boolean passive, final ProtectionDomain requestPd,
        final QpInitAttr requestAttr)
    {
        this.sync = sync;
        this.id = id;
        this.passive = passive;
        this.requestPd = requestPd;
        this.requestAttr = requestAttr;
    }

    /**
     * Create an endpoint ({@code rdma_create_ep}) on the event channel {@link RdmaCm#createEventChannel()} gives,
     * whose ids take the engine of their address. A passive one is bound to the source; an active one has its
     * address and route resolved (in {@value #RESOLVE_TIMEOUT_MS} ms each) and, with QP attributes, its QP made.
     *
     * @param info     where: {@link AddrInfo#get}.
     * @param pd       the PD of the QP (and of each request's QP, on a listener), or null for the device's
     *                 default PD.
     * @param qpAttr   the QP's attributes, or null for an endpoint without a QP. Null CQs are made, with a
     *                 completion channel each; the type must be the port space's ({@link AddrInfo#qpType()}).
     * @return the endpoint.
     * @throws RdmaException        EINVAL for a QP type that does not match; what binding, resolution or the QP's
     *                              creation refused; a {@link CmEventException} if resolution failed.
     * @throws InterruptedException if interrupted while resolving.
     */
    public static Endpoint create(final AddrInfo info, final ProtectionDomain pd, final QpInitAttr qpAttr)
        throws InterruptedException
    {
        return create(RdmaCm.createEventChannel(), info, pd, qpAttr);
    }

    /**
     * Create an endpoint as {@link #create(AddrInfo, ProtectionDomain, QpInitAttr)} does, on a channel of the
     * caller's choice (an engine's own, say), which the endpoint then owns and closes.
     *
     * @param channel a new event channel, for this endpoint alone.
     * @param info    where.
     * @param pd      the QP's PD, or null.
     * @param qpAttr  the QP's attributes, or null.
     * @return the endpoint.
     * @throws InterruptedException if interrupted while resolving.
     */
    public static Endpoint create(final EventChannel channel, final AddrInfo info, final ProtectionDomain pd,
        final QpInitAttr qpAttr) throws InterruptedException
    {
        RdmaException.check(qpAttr == null || qpAttr.type() == info.qpType(), Errno.EINVAL, "QP type " +
            (qpAttr == null ? null : qpAttr.type()) + " does not match the " + info.portSpace() + " port space's " +
            info.qpType());
        final SyncChannel sync = new SyncChannel(channel);
        final CmId id;
        try
        {
            id = channel.createId(null, info.portSpace());
        }
        catch (final RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
        final Endpoint endpoint = new Endpoint(sync, id, info.passive(), pd, info.passive() ? qpAttr : null);
        try
        {
            if (info.passive())
            {
                id.bindAddr(info.source());
                return endpoint;
            }
            id.resolveAddr(info.source(), info.destination(), RESOLVE_TIMEOUT_MS);
            endpoint.await(CmEventType.ADDR_RESOLVED);
            id.resolveRoute(RESOLVE_TIMEOUT_MS);
            endpoint.await(CmEventType.ROUTE_RESOLVED);
            if (qpAttr != null)
            {
                endpoint.createQp(pd, qpAttr);
            }
            return endpoint;
        }
        catch (final RuntimeException | InterruptedException ex)
        {
            endpoint.closeQuietly(ex);
            throw ex;
        }
    }

    /**
     * @return the connection-manager id underneath.
     */
    public CmId id()
    {
        return id;
    }

    /**
     * @return the QP, or null if the endpoint has none.
     */
    public QueuePair qp()
    {
        return id.qp();
    }

    /**
     * @return the QP's PD ({@code id->pd}).
     * @throws RdmaException EINVAL if the endpoint has no QP.
     */
    public ProtectionDomain pd()
    {
        return requireQp("pd").pd();
    }

    /**
     * @return the CQ of the sends ({@code id->send_cq}), or null without a QP.
     */
    public CompletionQueue sendCq()
    {
        return id.qp() == null ? null : id.qp().sendCq();
    }

    /**
     * @return the CQ of the receives ({@code id->recv_cq}), or null without a QP.
     */
    public CompletionQueue recvCq()
    {
        return id.qp() == null ? null : id.qp().recvCq();
    }

    /**
     * @return the local address once bound or resolved.
     */
    public InetSocketAddress localAddress()
    {
        return id.localAddress();
    }

    /**
     * @return the peer's address once resolved or requested.
     */
    public InetSocketAddress peerAddress()
    {
        return id.peerAddress();
    }

    /**
     * Listen ({@code rdma_listen}).
     *
     * @param backlog pending requests kept.
     * @throws RdmaException EINVAL on an active endpoint; what the connection manager refused.
     */
    public void listen(final int backlog)
    {
        RdmaException.check(passive, Errno.EINVAL, "listen: the endpoint is active (made without RAI_PASSIVE)");
        id.listen(backlog);
    }

    /**
     * Wait for a connection request ({@code rdma_get_request}) for ever.
     *
     * @return a new endpoint for the request, with its QP made from the listener's attributes.
     * @throws InterruptedException if interrupted while waiting.
     * @see #getRequest(long, TimeUnit)
     */
    public Endpoint getRequest() throws InterruptedException
    {
        return getRequest(-1, TimeUnit.NANOSECONDS);
    }

    /**
     * Wait for a connection request ({@code rdma_get_request}) and make its endpoint; accept or reject it next.
     *
     * @param timeout how long; negative waits for ever.
     * @param unit    its unit.
     * @return the request's endpoint, or null if none came in time.
     * @throws RdmaException        EINVAL on an endpoint that does not listen; a {@link CmEventException} if another
     *                              event came; what creating the request's QP refused (the request is rejected).
     * @throws InterruptedException if interrupted while waiting.
     */
    public Endpoint getRequest(final long timeout, final TimeUnit unit) throws InterruptedException
    {
        checkOpen("getRequest");
        RdmaException.check(passive, Errno.EINVAL, "getRequest: the endpoint is active; only a listener has requests");
        final CmEvent event = sync.next(id, timeout < 0 ? -1 : unit.toNanos(timeout));
        if (event == null)
        {
            return null;
        }
        final CmId requestId = event.id();
        try
        {
            refuseUnless(event, CmEventType.CONNECT_REQUEST);
        }
        finally
        {
            event.ack();
        }
        sync.retain();
        final Endpoint request = new Endpoint(sync, requestId, false, null, null);
        try
        {
            if (requestAttr != null)
            {
                request.createQp(requestPd, requestAttr);
            }
            return request;
        }
        catch (final RuntimeException ex)
        {
            try
            {
                requestId.reject(null);
            }
            catch (final RdmaException rejectFailed)
            {
                ex.addSuppressed(rejectFailed);
            }
            request.closeQuietly(ex);
            throw ex;
        }
    }

    /**
     * Accept the request this endpoint stands for ({@code rdma_accept}) and wait until the connection is
     * established.
     *
     * @param param the connection parameters, or null for librdmacm's defaults.
     * @throws RdmaException        what the connection manager refused; a {@link CmEventException} if the
     *                              connection failed instead.
     * @throws InterruptedException if interrupted while waiting.
     */
    public void accept(final ConnParam param) throws InterruptedException
    {
        accept(param, -1, TimeUnit.NANOSECONDS);
    }

    /**
     * Accept the request this endpoint stands for and wait until the connection is established, or for so long:
     * a server that must not be held by a peer which never completes the handshake (no RTU) gives up on it and
     * destroys the endpoint.
     *
     * @param param   the connection parameters, or null for librdmacm's defaults.
     * @param timeout how long to wait for ESTABLISHED; negative waits for ever.
     * @param unit    its unit.
     * @return true once established; false if it was not within the timeout (the endpoint is still accepting).
     * @throws RdmaException        what the connection manager refused; a {@link CmEventException} if the
     *                              connection failed instead.
     * @throws InterruptedException if interrupted while waiting.
     */
    public boolean accept(final ConnParam param, final long timeout, final TimeUnit unit) throws InterruptedException
    {
        checkOpen("accept");
        id.accept(param == null ? ConnParam.defaults() : param);
        final CmEvent event = sync.next(id, timeout < 0 ? -1 : unit.toNanos(timeout));
        if (event == null)
        {
            return false;
        }
        try
        {
            refuseUnless(event, CmEventType.ESTABLISHED);
        }
        finally
        {
            event.ack();
        }
        connected = true;
        return true;
    }

    /**
     * Connect ({@code rdma_connect}) and wait until the connection is established.
     *
     * @param param the connection parameters, or null for librdmacm's defaults.
     * @throws RdmaException        EINVAL on a passive endpoint; a {@link CmEventException}: ECONNREFUSED if the
     *                              peer rejected it (nobody listening, say), ETIMEDOUT or EHOSTUNREACH if
     *                              nobody answered.
     * @throws InterruptedException if interrupted while waiting.
     */
    public void connect(final ConnParam param) throws InterruptedException
    {
        checkOpen("connect");
        RdmaException.check(!passive, Errno.EINVAL, "connect: the endpoint is passive (made with RAI_PASSIVE)");
        id.connect(param == null ? ConnParam.defaults() : param);
        await(CmEventType.ESTABLISHED);
        connected = true;
    }

    /**
     * Disconnect ({@code rdma_disconnect}): move the QP to ERR and send the DREQ, or answer the peer's, and return
     * without waiting for the peer's DREP, which a peer whose host is gone never sends (the DREQ would go on being
     * repeated for about a minute) and Linux does not send to a DREQ that crossed its own. The DISCONNECTED that
     * ends the exchange is taken here if it has come already (the peer disconnected first, or at the same time),
     * else {@link #close()} acknowledges it. librdmacm's synchronous {@code rdma_disconnect} waits for that event;
     * this one does not, so that a disconnect never stalls the caller on a peer that is gone.
     *
     * @throws RdmaException        EINVAL if the endpoint is not connected; a {@link CmEventException} if the
     *                              event that had come was not DISCONNECTED.
     * @throws InterruptedException if interrupted while taking an event that had come.
     */
    public void disconnect() throws InterruptedException
    {
        checkOpen("disconnect");
        RdmaException.check(connected, Errno.EINVAL, "disconnect: the endpoint is not connected");
        try
        {
            id.disconnect();
        }
        catch (final RdmaException ex)
        {
            // the connection has ended already (the peer's DREQ came first): its DISCONNECTED is what is left
            if (!takeDisconnected())
            {
                throw ex;
            }
            connected = false;
            return;
        }
        connected = false;
        takeDisconnected();
    }

    /**
     * @return true if the id's DISCONNECTED had come, and was taken and acknowledged.
     */
    private boolean takeDisconnected() throws InterruptedException
    {
        final CmEvent event = sync.next(id, 0);
        if (event == null)
        {
            return false;
        }
        try
        {
            refuseUnless(event, CmEventType.DISCONNECTED);
        }
        finally
        {
            event.ack();
        }
        return true;
    }

    /**
     * Register memory for sends and receives ({@code rdma_reg_msgs}): local write.
     *
     * @param memory the messages' memory.
     * @return the region; close it before the endpoint.
     */
    public MemoryRegion regMsgs(final MemorySegment memory)
    {
        return pd().regMr(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
    }

    /**
     * Register memory the peer will read ({@code rdma_reg_read}): local write, remote read.
     *
     * @param memory the memory.
     * @return the region.
     */
    public MemoryRegion regRead(final MemorySegment memory)
    {
        return pd().regMr(memory, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
    }

    /**
     * Register memory the peer will write ({@code rdma_reg_write}): local write, remote write.
     *
     * @param memory the memory.
     * @return the region.
     */
    public MemoryRegion regWrite(final MemorySegment memory)
    {
        return pd().regMr(memory, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
    }

    /**
     * Post a receive into one buffer ({@code rdma_post_recv}).
     *
     * @param wrId    the request's id, back in its completion ({@code context}).
     * @param message where the message lands.
     * @param mr      the region covering it.
     * @throws RdmaException EINVAL if the message is not inside the region; what the QP refused.
     */
    public void postRecv(final long wrId, final MemorySegment message, final MemoryRegion mr)
    {
        final QueuePair qp = requireQp("postRecv");
        checkInside("postRecv", message, mr);
        synchronized (recvWr)
        {
            qp.postRecv(recvWr.wrId(wrId).sge(message.address(), length(message), mr.lkey()));
        }
    }

    /**
     * Post a send of one buffer ({@code rdma_post_send}).
     *
     * @param wrId    the request's id.
     * @param message what to send.
     * @param mr      the region covering it; null only with {@link io.rdma4j.verbs.SendFlags#INLINE}.
     * @param flags   {@link io.rdma4j.verbs.SendFlags} bits.
     * @throws RdmaException EINVAL if the message is not inside the region; what the QP refused.
     */
    public void postSend(final long wrId, final MemorySegment message, final MemoryRegion mr, final int flags)
    {
        post("postSend", WrOpcode.SEND, wrId, message, mr, flags, 0, 0);
    }

    /**
     * Post an RDMA READ of the peer's memory into one buffer ({@code rdma_post_read}).
     *
     * @param wrId       the request's id.
     * @param local      where the data lands.
     * @param mr         the region covering it.
     * @param flags      {@link io.rdma4j.verbs.SendFlags} bits.
     * @param remoteAddr the peer's address.
     * @param rkey       the peer region's rkey.
     */
    public void postRead(final long wrId, final MemorySegment local, final MemoryRegion mr, final int flags,
        final long remoteAddr, final int rkey)
    {
        RdmaException.check(mr != null, Errno.EINVAL, "postRead: an RDMA READ lands in a memory region; mr is null");
        post("postRead", WrOpcode.RDMA_READ, wrId, local, mr, flags, remoteAddr, rkey);
    }

    /**
     * Post an RDMA WRITE of one buffer into the peer's memory ({@code rdma_post_write}).
     *
     * @param wrId       the request's id.
     * @param local      what to write.
     * @param mr         the region covering it; null only with {@link io.rdma4j.verbs.SendFlags#INLINE}.
     * @param flags      {@link io.rdma4j.verbs.SendFlags} bits.
     * @param remoteAddr the peer's address.
     * @param rkey       the peer region's rkey.
     */
    public void postWrite(final long wrId, final MemorySegment local, final MemoryRegion mr, final int flags,
        final long remoteAddr, final int rkey)
    {
        post("postWrite", WrOpcode.RDMA_WRITE, wrId, local, mr, flags, remoteAddr, rkey);
    }

    private void post(final String call, final WrOpcode opcode, final long wrId, final MemorySegment local,
        final MemoryRegion mr, final int flags, final long remoteAddr, final int rkey)
    {
        final QueuePair qp = requireQp(call);
        if (mr != null)
        {
            checkInside(call, local, mr);
        }
        synchronized (sendWr)
        {
            qp.postSend(sendWr.wrId(wrId).opcode(opcode).sendFlags(flags).rdma(remoteAddr, rkey)
                .sge(local.address(), length(local), mr == null ? 0 : mr.lkey()));
        }
    }

    /**
     * Wait for the next send completion ({@code rdma_get_send_comp}) for ever.
     *
     * @param wc where to write it; check its status.
     * @throws InterruptedException if interrupted while waiting.
     */
    public void getSendComp(final WorkCompletion wc) throws InterruptedException
    {
        getSendComp(wc, -1, TimeUnit.NANOSECONDS);
    }

    /**
     * Wait for the next completion on the send CQ ({@code rdma_get_send_comp}): poll, arm, poll again, sleep on
     * the CQ's channel. A completion in error is returned like any other.
     *
     * @param wc      where to write it; check its status.
     * @param timeout how long; negative waits for ever.
     * @param unit    its unit.
     * @return false if none came in time.
     * @throws RdmaException        EINVAL if the endpoint has no QP.
     * @throws InterruptedException if interrupted while waiting.
     */
    public boolean getSendComp(final WorkCompletion wc, final long timeout, final TimeUnit unit)
        throws InterruptedException
    {
        return completion(requireQp("getSendComp").sendCq(), sendWc, wc, timeout, unit);
    }

    /**
     * Wait for the next receive completion ({@code rdma_get_recv_comp}) for ever.
     *
     * @param wc where to write it; check its status.
     * @throws InterruptedException if interrupted while waiting.
     */
    public void getRecvComp(final WorkCompletion wc) throws InterruptedException
    {
        getRecvComp(wc, -1, TimeUnit.NANOSECONDS);
    }

    /**
     * Wait for the next completion on the receive CQ ({@code rdma_get_recv_comp}).
     *
     * @param wc      where to write it; check its status.
     * @param timeout how long; negative waits for ever.
     * @param unit    its unit.
     * @return false if none came in time.
     * @throws RdmaException        EINVAL if the endpoint has no QP.
     * @throws InterruptedException if interrupted while waiting.
     */
    public boolean getRecvComp(final WorkCompletion wc, final long timeout, final TimeUnit unit)
        throws InterruptedException
    {
        return completion(requireQp("getRecvComp").recvCq(), recvWc, wc, timeout, unit);
    }

    private static boolean completion(final CompletionQueue cq, final WorkCompletion[] one, final WorkCompletion wc,
        final long timeout, final TimeUnit unit) throws InterruptedException
    {
        synchronized (one)
        {
            if (cq.poll(one, timeout, unit) == 0)
            {
                return false;
            }
            wc.copyFrom(one[0]);
            return true;
        }
    }

    /**
     * Destroy the endpoint ({@code rdma_destroy_ep}): its QP, the CQs and completion channels it made, and the
     * id; a listener rejects the requests nobody took. Once it succeeded, another call does nothing; after a
     * failure, another call goes on from where it stopped.
     *
     * @throws RdmaException EBUSY while memory regions registered on its PD are open.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        // each step is done once: a close that failed (a region still open) can be called again
        if (id.qp() != null)
        {
            id.destroyQp();
        }
        closeQueues();
        sync.forget(id);
        id.close();
        closed = true;
        sync.release();
    }

    @Override
    public String toString()
    {
        return "Endpoint{" + (passive ? "passive" : "active") + ", local=" + id.localAddress() + ", peer=" +
            id.peerAddress() + (closed ? ", closed" : "") + '}';
    }

    private void createQp(final ProtectionDomain pd, final QpInitAttr attr)
    {
        final Context verbs = id.verbs();
        RdmaException.check(verbs != null, Errno.EINVAL, "the id is on no device yet: no QP can be made");
        RdmaException.check(pd == null || pd.context() == verbs, Errno.EINVAL,
            "the PD is of another device than the id's " + verbs.device().name());
        CompletionQueue send = attr.sendCq();
        CompletionQueue recv = attr.recvCq();
        if (send == null)
        {
            sendChannel = verbs.createCompChannel();
            sendCq = verbs.createCq(Math.max(1, attr.cap().maxSendWr()), sendChannel, 0);
            send = sendCq;
        }
        if (recv == null)
        {
            recvChannel = verbs.createCompChannel();
            recvCq = verbs.createCq(Math.max(1, attr.cap().maxRecvWr()), recvChannel, 0);
            recv = recvCq;
        }
        id.createQp(pd, new QpInitAttr(attr.type(), send, recv, attr.srq(), attr.cap(), attr.sqSigAll(),
            attr.createFlags()));
    }

    private void closeQueues()
    {
        final AutoCloseable[] made = {sendCq, recvCq, sendChannel, recvChannel};
        sendCq = null;
        recvCq = null;
        sendChannel = null;
        recvChannel = null;
        for (final AutoCloseable resource : made)
        {
            if (resource != null)
            {
                try
                {
                    resource.close();
                }
                catch (final Exception ex)
                {
                    throw ex instanceof final RuntimeException runtime ? runtime :
                        new IllegalStateException("closing " + resource + " failed", ex);
                }
            }
        }
    }

    private void closeQuietly(final Exception cause)
    {
        try
        {
            close();
        }
        catch (final RuntimeException ex)
        {
            cause.addSuppressed(ex);
        }
    }

    private void await(final CmEventType type) throws InterruptedException
    {
        final CmEvent event = sync.next(id, -1);
        try
        {
            refuseUnless(event, type);
        }
        finally
        {
            event.ack();
        }
    }

    private static void refuseUnless(final CmEvent event, final CmEventType type)
    {
        if (event.type() != type)
        {
            throw CmEventException.unexpected(type, event);
        }
    }

    private QueuePair requireQp(final String call)
    {
        checkOpen(call);
        final QueuePair qp = id.qp();
        RdmaException.check(qp != null, Errno.EINVAL, call + ": the endpoint has no QP (create it with QP " +
            "attributes, or take it from a listener that has them)");
        return qp;
    }

    private void checkOpen(final String call)
    {
        RdmaException.check(!closed, Errno.EINVAL, call + ": the endpoint is closed");
    }

    private static void checkInside(final String call, final MemorySegment message, final MemoryRegion mr)
    {
        final long start = message.address();
        final long end = start + message.byteSize();
        RdmaException.check(start >= mr.address() && end <= mr.address() + mr.length(), Errno.EINVAL, call +
            ": the message [0x" + Long.toHexString(start) + ", +" + message.byteSize() + ") is outside the memory " +
            "region [0x" + Long.toHexString(mr.address()) + ", +" + mr.length() + ")");
    }

    private static int length(final MemorySegment message)
    {
        RdmaException.check(message.byteSize() <= Integer.MAX_VALUE, Errno.EINVAL, "a message of " +
            message.byteSize() + " bytes exceeds an SGE's 32-bit length");
        return (int) message.byteSize();
    }
}
