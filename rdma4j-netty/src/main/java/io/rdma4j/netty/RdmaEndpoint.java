package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * One RC connection's verbs resources and its flow control, driven by its event loop's thread alone.
 * <p>
 * <b>Buffers.</b> {@code R} receive buffers of {@code S} bytes are registered once and stay posted; a received
 * message is copied out into a {@link ByteBuf} when the channel reads it, and only then is its buffer posted
 * again. Outgoing bytes are copied into one of the send slots, registered once too, and the slot is free again
 * at the SEND's completion.
 * <p>
 * <b>Credits.</b> A sender may have as many SENDs in flight as the peer has receives posted: it starts with the
 * peer's {@code R} (exchanged in the connection's private data) and spends one per SEND. Every SEND carries, in
 * its immediate data, how many receives its sender has posted again since its last SEND: the credits it gives
 * back. A SEND of no bytes carries credits alone. Data never takes the last credit, which stays for such an
 * update, so a side that has received data can always give the credits back; an update is sent when the peer
 * may be down to fewer than two credits (by what this side knows, it cannot have more than the receives posted
 * and not yet reported), or when half the receives wait to be reported, and there is no data to carry it. An
 * update's own receive is posted again at once and reported with the next SEND, never by an update of its own,
 * so updates do not answer each other. A reader that stops reading holds its buffers, the credits stop, and the
 * writer's bytes wait in its channel's outbound buffer, where Netty's water marks turn the channel unwritable.
 */
final class RdmaEndpoint implements CqConsumer
{
    /** Private data of both sides: this magic, then the receive count and size, big-endian. */
    static final int MAGIC = 0x52444e31;
    static final int PRIVATE_DATA_LENGTH = 12;
    /** How long a closed channel's SENDs may take to complete before the connection is cut anyway. */
    static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(5);

    private static final long SEND_TAG = 1L << 32;
    private static final int UPDATE_SLOT = 0xFFFF;
    private static final System.Logger LOG = System.getLogger(RdmaEndpoint.class.getName());

    /** What the channel learns from its endpoint; called on the event loop. */
    interface Owner
    {
        /** Received messages wait to be read. */
        void endpointReadable();

        /** Credits or send slots came back: flushed bytes may go on. */
        void endpointWritable();

        /**
         * @param cause a work request failed other than by being flushed.
         */
        void endpointFailed(IOException cause);
    }

    private enum State
    {
        OPEN, LINGERING, CLOSED
    }

    private final RdmaIoHandler handler;
    private final CmId id;
    private final Context verbs;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final Arena arena;
    private final MemoryRegion recvMr;
    private final MemoryRegion sendMr;
    private final ByteBuffer[] recvViews;
    private final ByteBuffer[] slotViews;
    private final int recvCount;
    private final int recvSize;
    private final int slotSize;
    private final int sqDepth;
    private final int[] freeSlots;
    private final int[] stashIndex;
    private final int[] stashLength;
    private final RecvWr recvWr = new RecvWr();
    private final SendWr sendWr = new SendWr();
    private final WorkCompletion[] wcs = WorkCompletion.array(32);

    private Owner owner;
    private State state = State.OPEN;
    private boolean connected;
    private boolean retired;
    private long lingerDeadline;
    private int freeSlotCount;
    private int stashHead;
    private int stashCount;
    /** SENDs the peer has receives for. */
    private int credits;
    private int peerRecvSize;
    /** Receives posted again and not yet reported to the peer. */
    private int owed;
    /** Of those, the ones that held data (an update's are not counted: they must not cause updates). */
    private int dataOwed;
    private int sqOutstanding;

    /**
     * Make the QP on the id, register the buffers and post every receive; on the event loop's thread.
     *
     * @param handler    the loop's handler.
     * @param id         an id with a device: resolved (active side) or from a connection request.
     * @param recvCount  receives posted.
     * @param recvSize   bytes each.
     * @param slotCount  send slots.
     * @param owner      the channel.
     */
    RdmaEndpoint(final RdmaIoHandler handler, final CmId id, final int recvCount, final int recvSize,
        final int slotCount, final Owner owner)
    {
        this.handler = handler;
        this.id = id;
        this.owner = owner;
        this.recvCount = recvCount;
        this.recvSize = recvSize;
        this.slotSize = recvSize;
        // every SEND is signaled; two more than the slots leave room for credit updates
        this.sqDepth = slotCount + 2;
        this.verbs = id.verbs();
        CompletionQueue madeCq = null;
        Arena madeArena = null;
        MemoryRegion madeRecvMr = null;
        MemoryRegion madeSendMr = null;
        boolean held = false;
        boolean qpMade = false;
        try
        {
            final CompletionChannel channel = handler.holdCompletionChannel(verbs);
            held = true;
            madeCq = verbs.createCq(sqDepth + recvCount, channel, 0);
            this.qp = id.createQp(null, QpInitAttr.of(QpType.RC, madeCq, QpCap.of(sqDepth, recvCount)));
            qpMade = true;
            final ProtectionDomain pd = qp.pd();
            // the device reaches this memory from its own threads
            madeArena = Arena.ofShared();
            final MemorySegment recvMemory = madeArena.allocate((long)recvCount * recvSize, 64);
            final MemorySegment sendMemory = madeArena.allocate((long)slotCount * slotSize, 64);
            madeRecvMr = pd.regMr(recvMemory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            madeSendMr = pd.regMr(sendMemory, EnumSet.noneOf(AccessFlag.class));
            this.recvMr = madeRecvMr;
            this.sendMr = madeSendMr;
            this.recvViews = views(recvMemory, recvCount, recvSize);
            this.slotViews = views(sendMemory, slotCount, slotSize);
            this.cq = madeCq;
            this.arena = madeArena;
            for (int i = 0; i < recvCount; i++)
            {
                qp.postRecv(recvWr.wrId(i).sge(recvMr, (long)i * recvSize, recvSize));
            }
            madeCq.requestNotify(false);
        }
        catch (final RuntimeException ex)
        {
            if (qpMade)
            {
                quietly(id::destroyQp);
            }
            if (madeRecvMr != null)
            {
                quietly(madeRecvMr::close);
            }
            if (madeSendMr != null)
            {
                quietly(madeSendMr::close);
            }
            if (madeArena != null)
            {
                madeArena.close();
            }
            if (madeCq != null)
            {
                quietly(madeCq::close);
            }
            if (held)
            {
                handler.releaseCompletionChannel(verbs);
            }
            throw ex;
        }
        this.freeSlots = new int[slotCount];
        for (int i = 0; i < slotCount; i++)
        {
            freeSlots[i] = slotCount - 1 - i;
        }
        freeSlotCount = slotCount;
        stashIndex = new int[recvCount];
        stashLength = new int[recvCount];
        handler.add(this);
    }

    private static ByteBuffer[] views(final MemorySegment memory, final int count, final int size)
    {
        final ByteBuffer[] views = new ByteBuffer[count];
        for (int i = 0; i < count; i++)
        {
            views[i] = memory.asSlice((long)i * size, size).asByteBuffer();
        }
        return views;
    }

    /**
     * @param recvCount receives posted.
     * @param recvSize  bytes each.
     * @return what this side tells its peer in the connection's private data.
     */
    static byte[] privateData(final int recvCount, final int recvSize)
    {
        return ByteBuffer.allocate(PRIVATE_DATA_LENGTH).order(ByteOrder.BIG_ENDIAN).putInt(MAGIC).putInt(recvCount)
            .putInt(recvSize).array();
    }

    /**
     * @param config the channel's configuration.
     * @return the parameters of a connect or accept: never an RNR retry, since credits rule RNR out and one
     *         would be a bug to report, not to hide.
     */
    static ConnParam connParam(final RdmaChannelConfig config)
    {
        return ConnParam.builder().privateData(privateData(config.getReceiveBuffers(), config.getBufferSize()))
            .retryCount(config.getRetryCount()).rnrRetryCount(0).build();
    }

    /**
     * Take the peer's receive count and size from its private data: the credits to start with.
     *
     * @param data the peer's private data.
     * @throws IOException if it is not this transport's.
     */
    void peer(final byte[] data) throws IOException
    {
        if (data == null || data.length < PRIVATE_DATA_LENGTH)
        {
            throw new IOException("the peer sent no rdma4j-netty parameters in its private data");
        }
        final ByteBuffer buffer = ByteBuffer.wrap(data).order(ByteOrder.BIG_ENDIAN);
        final int magic = buffer.getInt();
        final int count = buffer.getInt();
        final int size = buffer.getInt();
        if (magic != MAGIC || count < RdmaChannelConfig.MIN_RECEIVE_BUFFERS || size <= 0)
        {
            throw new IOException("the peer's private data is not rdma4j-netty's (magic 0x" +
                Integer.toHexString(magic) + ", " + count + " receives of " + size + " bytes)");
        }
        credits = count;
        peerRecvSize = size;
    }

    /** The connection is established: SENDs may go. */
    void connected()
    {
        connected = true;
    }

    @Override
    public CompletionQueue cq()
    {
        return cq;
    }

    @Override
    public boolean lingering()
    {
        return state == State.LINGERING;
    }

    @Override
    public long lingerDeadline()
    {
        return lingerDeadline;
    }

    /**
     * @return the most bytes one SEND carries.
     */
    int maxMessage()
    {
        return Math.min(slotSize, peerRecvSize);
    }

    /**
     * @return whether a data SEND may be posted now (one credit always stays for an update).
     */
    boolean canSend()
    {
        return state == State.OPEN && connected && credits >= 2 && freeSlotCount > 0 && sqOutstanding < sqDepth;
    }

    /**
     * Copy up to {@link #maxMessage()} bytes into a slot and post them, with the credits owed; only when
     * {@link #canSend()}.
     *
     * @param buf    the bytes.
     * @param index  where they start.
     * @param length how many, at most {@link #maxMessage()}.
     */
    void send(final ByteBuf buf, final int index, final int length)
    {
        final int slot = freeSlots[--freeSlotCount];
        final ByteBuffer view = slotViews[slot];
        view.clear().limit(length);
        buf.getBytes(index, view);
        sendWr.wrId(SEND_TAG | slot).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED).immData(owed)
            .sge(sendMr, (long)slot * slotSize, length);
        try
        {
            qp.postSend(sendWr);
        }
        catch (final RdmaException ex)
        {
            freeSlots[freeSlotCount++] = slot;
            throw ex;
        }
        credits--;
        owed = 0;
        dataOwed = 0;
        sqOutstanding++;
    }

    /**
     * @return messages received and not yet read.
     */
    int pending()
    {
        return stashCount;
    }

    /**
     * Copy the oldest received message into {@code into} and post its buffer again.
     *
     * @param into a buffer with room for {@link #peekLength()} bytes.
     */
    void read(final ByteBuf into)
    {
        final int index = stashIndex[stashHead];
        final int length = stashLength[stashHead];
        stashHead = (stashHead + 1) % recvCount;
        stashCount--;
        final ByteBuffer view = recvViews[index];
        view.clear().limit(length);
        into.writeBytes(view);
        repost(index);
        dataOwed++;
    }

    /**
     * @return the length of the oldest received message.
     */
    int peekLength()
    {
        return stashLength[stashHead];
    }

    private void repost(final int index)
    {
        qp.postRecv(recvWr.wrId(index).sge(recvMr, (long)index * recvSize, recvSize));
        owed++;
    }

    /**
     * Give the owed credits back in an update if the peer may be short of them and no data is on its way to
     * carry them; the channel calls it after it has flushed what it could.
     */
    void maybeSendUpdate()
    {
        if (state != State.OPEN || !connected || owed == 0 || credits == 0 || sqOutstanding >= sqDepth)
        {
            return;
        }
        // the most credits the peer can have: our receives neither reported back nor held by the reader
        final int peerCredits = recvCount - owed - stashCount;
        if (peerCredits >= 2 && dataOwed < recvCount / 2)
        {
            return;
        }
        sendWr.wrId(SEND_TAG | UPDATE_SLOT).opcode(WrOpcode.SEND_WITH_IMM).sendFlags(SendFlags.SIGNALED)
            .immData(owed).sgList().numSge(0);
        qp.postSend(sendWr);
        credits--;
        owed = 0;
        dataOwed = 0;
        sqOutstanding++;
    }

    /**
     * Take every completion: the CQ announced some. Re-arms first, so one that comes while this runs announces
     * itself again rather than waiting for the next.
     */
    @Override
    public void onCompletions()
    {
        if (state == State.CLOSED)
        {
            return;
        }
        cq.requestNotify(false);
        boolean readable = false;
        boolean writable = false;
        IOException failure = null;
        int n;
        while (state != State.CLOSED && (n = cq.poll(wcs)) > 0)
        {
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = wcs[i];
                final long wrId = wc.wrId();
                final boolean ok = wc.status() == WcStatus.SUCCESS;
                if ((wrId & SEND_TAG) != 0)
                {
                    sqOutstanding--;
                    final int slot = (int)(wrId & 0xFFFF);
                    if (slot != UPDATE_SLOT)
                    {
                        freeSlots[freeSlotCount++] = slot;
                    }
                    writable = true;
                    if (!ok && wc.status() != WcStatus.WR_FLUSH_ERR && failure == null)
                    {
                        failure = new IOException("a SEND failed: " + wc.status().description() + " (" + wc + ")");
                    }
                    continue;
                }
                if (!ok)
                {
                    // flushed receives are the connection going down, which the connection manager reports
                    if (wc.status() != WcStatus.WR_FLUSH_ERR && failure == null)
                    {
                        failure = new IOException("a receive failed: " + wc.status().description() + " (" + wc +
                            ")");
                    }
                    continue;
                }
                if ((wc.wcFlags() & WcFlags.WITH_IMM) != 0 && wc.immData() > 0)
                {
                    credits += wc.immData();
                    writable = true;
                }
                if (state != State.OPEN)
                {
                    // a closed channel reads nothing more: the buffer stays unposted
                    continue;
                }
                final int index = (int)wrId;
                if (wc.byteLen() == 0)
                {
                    repost(index);
                }
                else
                {
                    final int tail = (stashHead + stashCount) % recvCount;
                    stashIndex[tail] = index;
                    stashLength[tail] = wc.byteLen();
                    stashCount++;
                    readable = true;
                }
            }
        }
        if (state == State.LINGERING)
        {
            if (sqOutstanding == 0)
            {
                tearDown(true);
            }
            return;
        }
        final Owner current = owner;
        if (state != State.OPEN || current == null)
        {
            return;
        }
        if (failure != null)
        {
            current.endpointFailed(failure);
            return;
        }
        if (readable)
        {
            current.endpointReadable();
        }
        if (writable && state == State.OPEN)
        {
            current.endpointWritable();
        }
        maybeSendUpdate();
    }

    /**
     * Drain the CQ now: the connection manager reported the peer gone, and what the peer sent before its
     * disconnect is already in the CQ.
     */
    void drain()
    {
        onCompletions();
    }

    /**
     * The channel is closed: once the SENDs it posted have completed (or {@link #LINGER_NANOS} passed),
     * disconnect and let everything go.
     *
     * @param peerGone the peer disconnected already: nothing is left to deliver.
     */
    void close(final boolean peerGone)
    {
        if (state != State.OPEN)
        {
            return;
        }
        owner = null;
        if (connected && !peerGone && sqOutstanding > 0)
        {
            state = State.LINGERING;
            lingerDeadline = System.nanoTime() + LINGER_NANOS;
            return;
        }
        tearDown(connected);
    }

    /** Tear down now, whatever is still in flight: the event loop is going away or the linger ran out. */
    @Override
    public void forceClose()
    {
        owner = null;
        if (state != State.CLOSED)
        {
            tearDown(connected);
        }
    }

    private void tearDown(final boolean disconnect)
    {
        state = State.CLOSED;
        if (disconnect)
        {
            // EINVAL when the peer's disconnect came first: nothing to do then
            quietly(id::disconnect);
        }
        quietly(id::destroyQp);
        quietly(recvMr::close);
        quietly(sendMr::close);
        arena.close();
        handler.retire(this);
    }

    /**
     * The last steps, after the QP is gone: close the CQ (EBUSY while the channel's waiting thread holds an
     * event of it not yet acknowledged), give back the completion channel, and close the id, in the order the
     * connection manager needs: the device's context goes with its last id, and only if nothing made from it is
     * left.
     *
     * @return true when done; false to be called again.
     */
    @Override
    public boolean finishRetiring()
    {
        if (retired)
        {
            return true;
        }
        try
        {
            cq.close();
        }
        catch (final RdmaException ex)
        {
            if (ex.errno() == Errno.EBUSY)
            {
                return false;
            }
            LOG.log(System.Logger.Level.WARNING, "closing a completion queue failed", ex);
        }
        retired = true;
        handler.releaseCompletionChannel(verbs);
        quietly(id::close);
        return true;
    }

    private static void quietly(final Runnable action)
    {
        try
        {
            action.run();
        }
        catch (final RuntimeException ex)
        {
            LOG.log(System.Logger.Level.DEBUG, "ignored during teardown", ex);
        }
    }

    @Override
    public String toString()
    {
        return "RdmaEndpoint[" + id.localAddress() + " -> " + id.peerAddress() + ", " + state + ", credits " +
            credits + ", owed " + owed + ", pending " + stashCount + ", sends " + sqOutstanding + "]";
    }
}
