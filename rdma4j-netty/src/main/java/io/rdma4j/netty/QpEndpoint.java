package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.rdma4j.cm.CmId;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.EnumSet;

/**
 * What every endpoint of this transport is: a QP made on a connection-manager id in its loop's protection domain
 * of the device, its CQ on the loop's completion channel, receive buffers registered once that stay posted, and
 * send slots registered once that outgoing bytes are copied into, unless they lie in registered memory of an
 * {@link RdmaByteBufAllocator}, which a SEND reads in place; driven by its event loop's thread alone. The QP and
 * CQ are sized for every receive and SEND from the start, but the buffers may come in two steps: a few receives
 * first, the rest and the slots once the subclass asks ({@link #completeBuffers}), so that what a connection
 * request costs before it completes is small.
 * <p>
 * A received message waits in a ring (the stash) until the channel reads it, and only then is its buffer posted
 * again, at once ({@link #postReceive}) or with others in one chain ({@link #deferReceive}, {@link #postReceives});
 * a slot is free again at its SEND's completion, and a buffer sent in place is held ({@link HeldSends}) until then.
 * Copied and in-place SENDs together stay within the slot count. An endpoint is open; it may then linger, waiting
 * for its SENDs to complete; then it is closed, and retired once its CQ could be closed.
 * <p>
 * <b>Selective signalling.</b> SENDs are staged ({@link #stage}) and posted as one chain ({@link #postStaged}); of a
 * chain only every {@code signalEvery}-th SEND and the last are signaled. A send queue completes in order, so a
 * signaled completion (or any flushed or failed one) means every SEND posted before it is done too: each SEND's
 * work request id carries its place in the order it was posted, and a completion releases the slots and held
 * buffers of every SEND up to its own, each exactly once. The last of a chain is always signaled, so nothing
 * waits for a completion that no later SEND would bring.
 */
abstract class QpEndpoint
{
    /** What {@link #received} returns when the channel has messages to read. */
    static final int READABLE = 1;
    /** What {@link #received} returns when the channel may send again. */
    static final int WRITABLE = 2;
    /** In what {@link #takeCompletions} returns: at least one completion was taken. */
    static final int TOOK = 4;
    /** In what {@link #takeCompletions} returns: the channel fails with {@link #takeFailure()}. */
    static final int FAILED = 8;
    /** The slot of a SEND that carries no bytes. */
    static final int NO_SLOT = 0xFFFF;

    private static final long SEND_TAG = 1L << 32;
    /** In a SEND's token: it reads a held buffer, whose entry is the low bits. */
    private static final int HELD = 0x10000;

    /** Where an endpoint is in its life. */
    enum State
    {
        OPEN, LINGERING, CLOSED
    }

    // named for the concrete class, as each endpoint logged before they shared this code
    private final System.Logger log = System.getLogger(getClass().getName());
    private final RdmaIoRegistration registration;
    private final LoopDevices devices;
    private final CmId id;
    private final Context verbs;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final Arena arena;
    /** The first receives' buffers; the rest are in {@link #lateRecvMr}, from {@link #completeBuffers} on. */
    private final MemoryRegion recvMr;
    private MemoryRegion lateRecvMr;
    /** The send slots, from {@link #completeBuffers} on; null before. */
    private MemoryRegion sendMr;
    private final ByteBuffer[] recvViews;
    private final ByteBuffer[] slotViews;
    private final int recvCount;
    /** Receives registered and posted by the constructor: those below this index are in {@link #recvMr}. */
    private final int firstRecvs;
    private final int recvSize;
    private final int slotSize;
    private final int sqDepth;
    private final int[] freeSlots;
    private final int[] stashIndex;
    private final int[] stashLength;
    private final RecvWr recvWr = new RecvWr();
    /** Receives read and not yet posted again: a chain of {@link #deferred} of them. */
    private final RecvWr[] recvChain;
    /** The SENDs staged and not yet posted are the first {@link #staged}. */
    private final SendWr[] sendChain;
    /** The token of each SEND posted and not known complete, by its sequence number modulo the queue's depth. */
    private final int[] postedTokens;
    private final int signalEvery;
    private final WorkCompletion[] wcs = WorkCompletion.array(32);
    private final DeviceMemory memory;
    private final HeldSends held;
    private final int slotCount;

    private State state = State.OPEN;
    private boolean retired;
    /** Run once the id is closed. */
    private Runnable idClosed = Teardown.NOTHING;
    private int freeSlotCount;
    private int stashHead;
    private int stashCount;
    private int sendsInFlight;
    private int staged;
    /** SENDs staged since the last signaled one. */
    private int unsignaled;
    /** The sequence number of the oldest SEND not known complete, and of the next one staged (both wrap). */
    private int oldestSeq;
    private int nextSeq;
    private int deferred;
    private long signaledSends;
    private long receiveChains;
    private long copiedSends;
    private long inPlaceSends;
    /** What the peer did against the protocol in the completions being taken, or null. */
    private IOException violation;
    /** Why the channel fails, from the last {@link #takeCompletions} that said {@link #FAILED}; or null. */
    private IOException failure;

    /**
     * An endpoint that signals every SEND and makes every buffer at once; see the constructor below.
     *
     * @param registration the channel's registration, which the CQ is submitted to.
     * @param id        an id with a device.
     * @param type      the QP's type.
     * @param recvCount receives posted.
     * @param recvSize  bytes each.
     * @param slotCount send slots.
     * @param slotSize  bytes each.
     * @param sqDepth   SENDs in flight at most: the send queue's depth.
     */
    QpEndpoint(final RdmaIoRegistration registration, final CmId id, final QpType type, final int recvCount,
        final int recvSize, final int slotCount, final int slotSize, final int sqDepth)
    {
        this(registration, id, type, recvCount, recvCount, recvSize, slotCount, slotSize, sqDepth, 1);
    }

    /**
     * Make the QP (and CQ) on the id, sized for every receive and SEND, register the first {@code firstRecvs}
     * receive buffers and post them; on the event loop's thread. The rest of the receive buffers and the send
     * slots are made by {@link #completeBuffers}: here already when {@code firstRecvs} is all of them, else once
     * the subclass calls it (a connection, once established: a request that never completes costs little).
     *
     * @param registration the channel's registration, which the CQ is submitted to.
     * @param id        an id with a device.
     * @param type      the QP's type.
     * @param recvCount receives posted once the buffers are complete.
     * @param firstRecvs receives posted now, 1..{@code recvCount}.
     * @param recvSize  bytes each.
     * @param slotCount send slots.
     * @param slotSize  bytes each.
     * @param sqDepth   SENDs in flight at most: the send queue's depth.
     * @param signalEvery of a chain of SENDs, every this many is signaled (and its last); 1 signals every SEND.
     */
    QpEndpoint(final RdmaIoRegistration registration, final CmId id, final QpType type, final int recvCount,
        final int firstRecvs, final int recvSize, final int slotCount, final int slotSize, final int sqDepth,
        final int signalEvery)
    {
        this.registration = registration;
        this.devices = registration.handler().devices();
        this.id = id;
        this.recvCount = recvCount;
        this.firstRecvs = Math.clamp(firstRecvs, 1, recvCount);
        this.recvSize = recvSize;
        this.slotSize = slotSize;
        this.sqDepth = sqDepth;
        this.slotCount = slotCount;
        this.signalEvery = Math.max(1, signalEvery);
        this.recvChain = new RecvWr[recvCount];
        for (int i = 0; i < recvCount; i++)
        {
            recvChain[i] = new RecvWr();
        }
        this.sendChain = new SendWr[sqDepth];
        for (int i = 0; i < sqDepth; i++)
        {
            sendChain[i] = new SendWr();
        }
        this.postedTokens = new int[sqDepth];
        this.verbs = id.verbs();
        this.held = new HeldSends(slotCount);
        this.recvViews = new ByteBuffer[recvCount];
        this.slotViews = new ByteBuffer[slotCount];
        // no slot is free until the slots are made
        this.freeSlots = new int[slotCount];
        this.stashIndex = new int[recvCount];
        this.stashLength = new int[recvCount];
        CompletionQueue madeCq = null;
        DeviceMemory heldMemory = null;
        Arena madeArena = null;
        MemoryRegion madeRecvMr = null;
        boolean held = false;
        boolean qpMade = false;
        try
        {
            final CompletionChannel channel = devices.holdCompletionChannel(verbs);
            held = true;
            madeCq = verbs.createCq(sqDepth + recvCount, channel, 0);
            heldMemory = devices.holdMemory(verbs);
            this.qp = id.createQp(heldMemory.pd(), QpInitAttr.of(type, madeCq, QpCap.of(sqDepth, recvCount)));
            qpMade = true;
            // the device reaches this memory from its own threads
            madeArena = Arena.ofShared();
            final MemorySegment recvMemory = madeArena.allocate((long)this.firstRecvs * recvSize, 64);
            madeRecvMr = qp.pd().regMr(recvMemory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            this.recvMr = madeRecvMr;
            views(recvMemory, recvViews, 0, this.firstRecvs, recvSize);
            this.cq = madeCq;
            this.arena = madeArena;
            this.memory = heldMemory;
            if (this.firstRecvs == recvCount)
            {
                completeBuffers();
            }
            for (int i = 0; i < this.firstRecvs; i++)
            {
                postReceive(i);
            }
            madeCq.requestNotify(false);
            // from here the CQ's events reach the channel's handle, until the teardown releases it
            registration.submit(RdmaIoOps.completions(madeCq));
        }
        catch (final RuntimeException | Error ex)
        {
            if (qpMade)
            {
                quietly(id::destroyQp);
            }
            if (madeRecvMr != null)
            {
                quietly(madeRecvMr::close);
            }
            if (sendMr != null)
            {
                quietly(sendMr::close);
            }
            if (madeArena != null)
            {
                madeArena.close();
            }
            if (heldMemory != null)
            {
                devices.releaseMemory(verbs);
            }
            if (madeCq != null)
            {
                quietly(madeCq::close);
            }
            if (held)
            {
                devices.releaseCompletionChannel(verbs);
            }
            throw ex;
        }
    }

    /**
     * Register the receive buffers beyond the first ones and the send slots; once (later calls do nothing). The
     * new receives are kept as {@link #deferReceive} keeps them, for the subclass to post with the credits that
     * report them ({@link #postReceives}), since a credit may only name a receive that is posted.
     *
     * @return the receives kept to be posted: 0 once done, or when the constructor made every receive.
     */
    protected final int completeBuffers()
    {
        if (sendMr != null)
        {
            return 0;
        }
        final int late = recvCount - firstRecvs;
        if (late > 0)
        {
            final MemorySegment lateMemory = arena.allocate((long)late * recvSize, 64);
            lateRecvMr = qp.pd().regMr(lateMemory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            views(lateMemory, recvViews, firstRecvs, late, recvSize);
        }
        final MemorySegment sendMemory = arena.allocate((long)slotCount * slotSize, 64);
        final MemoryRegion madeSendMr = qp.pd().regMr(sendMemory, EnumSet.noneOf(AccessFlag.class));
        views(sendMemory, slotViews, 0, slotCount, slotSize);
        for (int i = 0; i < slotCount; i++)
        {
            freeSlots[i] = slotCount - 1 - i;
        }
        freeSlotCount = slotCount;
        sendMr = madeSendMr;
        for (int i = firstRecvs; i < recvCount; i++)
        {
            deferReceive(i);
        }
        return late;
    }

    /**
     * @return bytes of receive buffers and send slots registered now.
     */
    final long bufferBytes()
    {
        long bytes = recvMr.length();
        if (lateRecvMr != null)
        {
            bytes += lateRecvMr.length();
        }
        if (sendMr != null)
        {
            bytes += sendMr.length();
        }
        return bytes;
    }

    private static void views(final MemorySegment memory, final ByteBuffer[] views, final int first, final int count,
        final int size)
    {
        for (int i = 0; i < count; i++)
        {
            views[first + i] = memory.asSlice((long)i * size, size).asByteBuffer();
        }
    }

    /**
     * Take a receive completion that {@link #takeCompletions} handed over: stash its message, post its buffer
     * again, or keep it; a failure of it is reported already.
     *
     * @param wc the completion.
     * @return {@link #READABLE} and {@link #WRITABLE}, or'ed, as the completion makes the channel.
     */
    protected abstract int received(WorkCompletion wc);

    /**
     * @param wc a completion that failed.
     * @return what failed, in the words of the exception the channel gets ("a SEND").
     */
    protected abstract String describe(WorkCompletion wc);

    /**
     * @return whether there is a connection to cut before the QP goes.
     */
    protected abstract boolean connected();

    /**
     * @return whether a SEND of the channel's may be posted now.
     */
    abstract boolean canSend();

    /**
     * @return the bytes the channel reads of the oldest message stashed.
     */
    abstract int peekLength();

    /**
     * The CQ was drained by {@link #takeCompletions} and the endpoint is open: every completion there was is
     * handed over, before the channel acts on them.
     */
    protected void completionsTaken()
    {
        // nothing to note by default
    }

    /** The channel has heard of a batch of completions (or of none, from a busy poll) and the endpoint is open. */
    protected void completionsDelivered()
    {
        // nothing to follow up on by default
    }

    /** The QP is destroyed: let go of what it could still have used, before the buffers go. */
    protected void qpDestroyed()
    {
        // nothing beside the buffers by default
    }

    /**
     * @param wc a completion.
     * @return whether it is a SEND's.
     */
    protected static boolean isSend(final WorkCompletion wc)
    {
        return (wc.wrId() & SEND_TAG) != 0;
    }

    /**
     * @return where the endpoint is in its life.
     */
    protected final State state()
    {
        return state;
    }

    /**
     * @return the id the QP was made on.
     */
    protected final CmId id()
    {
        return id;
    }

    /**
     * @return the protection domain the QP is in.
     */
    protected final ProtectionDomain pd()
    {
        return qp.pd();
    }

    /**
     * @return receives posted once the buffers are complete ({@link #completeBuffers}).
     */
    protected final int receiveCount()
    {
        return recvCount;
    }

    /**
     * @return receives the constructor posted.
     */
    protected final int firstReceives()
    {
        return firstRecvs;
    }

    /**
     * @return bytes per receive buffer.
     */
    protected final int receiveSize()
    {
        return recvSize;
    }

    /**
     * @return bytes per send slot.
     */
    protected final int slotSize()
    {
        return slotSize;
    }

    /**
     * @return SENDs posted and not yet completed.
     */
    protected final int sendsInFlight()
    {
        return sendsInFlight;
    }

    /**
     * @return whether the send queue has room for one more SEND.
     */
    protected final boolean sendQueueHasRoom()
    {
        return sendsInFlight < sqDepth;
    }

    /**
     * @return whether a SEND of data, copied or in place, may be posted now, as far as the QP goes.
     */
    protected final boolean canPostSlot()
    {
        return state == State.OPEN && slotCount - freeSlotCount + held.inUse() < slotCount && sendQueueHasRoom();
    }

    /**
     * Hold a buffer whose bytes a SEND is to read in place, as {@link #fillSlot} copies them for one; only when
     * {@link #canPostSlot()}. The buffer is released when the SEND completes, or if its post fails.
     *
     * @param buf    the buffer, which keeps its own reference.
     * @param source where its bytes lie, from {@link SendSource#find}.
     * @param length how many.
     * @return the SEND's token, to give {@link #sendWr} and {@link #post}; -1 if the device would not register
     *         the chunk, and the bytes are to be copied.
     */
    protected final int holdSend(final ByteBuf buf, final SendSource source, final int length)
    {
        final MemoryRegion region = memory.region(source.chunk());
        if (region == null)
        {
            return -1;
        }
        final int token = HELD | held.hold(buf);
        sendChain[staged].sge(region, source.offset(), length);
        inPlaceSends++;
        return token;
    }

    /**
     * Copy bytes into a free slot; only when {@link #canPostSlot()}.
     *
     * @param buf    the bytes.
     * @param index  where they start.
     * @param length how many, at most {@link #slotSize()}.
     * @return the slot, to give {@link #sendWr} and {@link #post}.
     */
    protected final int fillSlot(final ByteBuf buf, final int index, final int length)
    {
        final int slot = takeSlot();
        appendToSlot(slot, 0, buf, index, length);
        return slot;
    }

    /**
     * Take a free slot for bytes to be copied into ({@link #appendToSlot}) and then sent; only when
     * {@link #canPostSlot()}.
     *
     * @return the slot.
     */
    protected final int takeSlot()
    {
        copiedSends++;
        return freeSlots[--freeSlotCount];
    }

    /**
     * Copy bytes into a slot taken, after those it holds already.
     *
     * @param slot   the slot.
     * @param at     the bytes it holds already.
     * @param buf    the bytes.
     * @param index  where they start.
     * @param length how many: {@code at + length} at most {@link #slotSize()}.
     */
    protected final void appendToSlot(final int slot, final int at, final ByteBuf buf, final int index,
        final int length)
    {
        final ByteBuffer view = slotViews[slot];
        view.clear().position(at).limit(at + length);
        buf.getBytes(index, view);
    }

    /**
     * @param token  a slot from {@link #fillSlot}, a token from {@link #holdSend} (whose SGE is set already), or
     *               {@link #NO_SLOT} for a SEND of no bytes.
     * @param length the bytes in the slot.
     * @return the work request of a SEND of them, for the subclass to finish and {@link #post} or {@link #stage}.
     */
    protected final SendWr sendWr(final int token, final int length)
    {
        final SendWr sendWr = sendChain[staged];
        sendWr.sendFlags(0).next(null);
        if (token == NO_SLOT)
        {
            sendWr.sgList().numSge(0);
        }
        else if ((token & HELD) == 0)
        {
            sendWr.sge(sendMr, (long)token * slotSize, length);
        }
        return sendWr;
    }

    /**
     * Post the work request {@link #sendWr} or {@link #holdSend} gave, signaled, with whatever was staged before it;
     * if that fails, its slot is free again, or its buffer released.
     *
     * @param token the slot it sends, {@link #NO_SLOT}, or the token of {@link #holdSend}.
     */
    protected final void post(final int token)
    {
        stage(token);
        postStaged();
    }

    /**
     * Stage the work request {@link #sendWr} or {@link #holdSend} gave, to be posted by {@link #postStaged} with
     * the others of the chain; it counts as in flight from now on. Signaled if it is the {@code signalEvery}-th
     * since the last signaled one.
     *
     * @param token the slot it sends, {@link #NO_SLOT}, or the token of {@link #holdSend}.
     */
    protected final void stage(final int token)
    {
        final SendWr wr = sendChain[staged];
        final int seq = nextSeq++;
        postedTokens[Integer.remainderUnsigned(seq, sqDepth)] = token;
        wr.wrId(SEND_TAG | Integer.toUnsignedLong(seq));
        if (++unsignaled >= signalEvery)
        {
            wr.sendFlags(wr.sendFlags() | SendFlags.SIGNALED);
            unsignaled = 0;
            signaledSends++;
        }
        if (staged > 0)
        {
            sendChain[staged - 1].next(wr);
        }
        staged++;
        sendsInFlight++;
    }

    /**
     * @return SENDs staged and not yet posted.
     */
    protected final int staged()
    {
        return staged;
    }

    /**
     * Post the SENDs staged, in one chain whose last is signaled. Those the device refuses are not in flight: their
     * slots are free again and their buffers released, and the exception says why.
     */
    protected final void postStaged()
    {
        if (staged == 0)
        {
            return;
        }
        final int count = staged;
        final SendWr last = sendChain[count - 1];
        if ((last.sendFlags() & SendFlags.SIGNALED) == 0)
        {
            last.sendFlags(last.sendFlags() | SendFlags.SIGNALED);
            signaledSends++;
        }
        unsignaled = 0;
        staged = 0;
        try
        {
            qp.postSend(sendChain[0]);
        }
        catch (final RdmaException ex)
        {
            // those from the refused one on are not posted: the newest, so they come off the end of the order
            final int posted = ex instanceof PostException refused ? Math.max(0, refused.badIndex()) : 0;
            for (int i = count - 1; i >= posted; i--)
            {
                final int seq = --nextSeq;
                sendsInFlight--;
                sent(postedTokens[Integer.remainderUnsigned(seq, sqDepth)]);
            }
            throw ex;
        }
        finally
        {
            for (int i = 0; i < count; i++)
            {
                sendChain[i].next(null);
            }
        }
    }

    /**
     * A SEND completed (in whatever status): so did every SEND posted before it, as a send queue completes in
     * order; their slots and buffers go, each once.
     *
     * @param seq its sequence number.
     */
    private void sendsCompletedThrough(final int seq)
    {
        // a SEND completed before (a flushed one after a signaled one's completion) is passed already
        while (seq - oldestSeq >= 0 && oldestSeq != nextSeq)
        {
            final int token = postedTokens[Integer.remainderUnsigned(oldestSeq, sqDepth)];
            oldestSeq++;
            sendsInFlight--;
            sent(token);
        }
    }

    /**
     * @param token a SEND's token: its SEND completed or was never posted, so its slot or buffer goes.
     */
    private void sent(final int token)
    {
        if ((token & HELD) != 0)
        {
            held.release(token & ~HELD);
        }
        else if (token != NO_SLOT)
        {
            freeSlots[freeSlotCount++] = token;
        }
    }

    /**
     * @return SENDs whose bytes were copied into a slot, since the endpoint was made.
     */
    final long copiedSends()
    {
        return copiedSends;
    }

    /**
     * @return SENDs that read a registered buffer in place, since the endpoint was made.
     */
    final long inPlaceSends()
    {
        return inPlaceSends;
    }

    /**
     * @return SENDs posted signaled, since the endpoint was made (each a completion to take).
     */
    final long signaledSends()
    {
        return signaledSends;
    }

    /**
     * @return chains of receives read that {@link #postReceives} posted, since the endpoint was made.
     */
    final long receiveChains()
    {
        return receiveChains;
    }

    /**
     * @param index a receive buffer.
     */
    protected final void postReceive(final int index)
    {
        qp.postRecv(receiveWr(recvWr, index));
    }

    /**
     * @param wr    a receive's work request.
     * @param index a receive buffer.
     * @return the work request, set to receive into the buffer.
     */
    private RecvWr receiveWr(final RecvWr wr, final int index)
    {
        return index < firstRecvs ? wr.wrId(index).sge(recvMr, (long)index * recvSize, recvSize) :
            wr.wrId(index).sge(lateRecvMr, (long)(index - firstRecvs) * recvSize, recvSize);
    }

    /**
     * Keep a receive buffer to be posted again with others by {@link #postReceives}.
     *
     * @param index a receive buffer the channel is done with.
     */
    protected final void deferReceive(final int index)
    {
        final RecvWr wr = receiveWr(recvChain[deferred], index).next(null);
        if (deferred > 0)
        {
            recvChain[deferred - 1].next(wr);
        }
        deferred++;
    }

    /**
     * @return receive buffers kept by {@link #deferReceive} and not posted yet.
     */
    protected final int deferredReceives()
    {
        return deferred;
    }

    /**
     * Post the receives {@link #deferReceive} kept, in one chain.
     *
     * @return how many.
     */
    protected final int postReceives()
    {
        final int count = deferred;
        if (count == 0)
        {
            return 0;
        }
        deferred = 0;
        qp.postRecv(recvChain[0]);
        receiveChains++;
        return count;
    }

    /**
     * Keep a received message until the channel reads it.
     *
     * @param index  its receive buffer.
     * @param length its bytes.
     */
    protected final void stash(final int index, final int length)
    {
        final int tail = (stashHead + stashCount) % recvCount;
        stashIndex[tail] = index;
        stashLength[tail] = length;
        stashCount++;
    }

    /**
     * @return the bytes of the oldest message stashed.
     */
    protected final int stashedLength()
    {
        return stashLength[stashHead];
    }

    /**
     * Take the oldest message off the stash; its buffer is the caller's to read and post again.
     *
     * @return its receive buffer's index.
     */
    protected final int unstash()
    {
        final int index = stashIndex[stashHead];
        stashHead = (stashHead + 1) % recvCount;
        stashCount--;
        return index;
    }

    /**
     * @param index a receive buffer.
     * @return its bytes, whole; the caller sets position and limit.
     */
    protected final ByteBuffer receiveView(final int index)
    {
        return recvViews[index];
    }

    /**
     * @return messages received and not yet read.
     */
    final int pending()
    {
        return stashCount;
    }

    /**
     * @return the CQ, submitted to the channel's registration.
     */
    final CompletionQueue cq()
    {
        return cq;
    }

    /**
     * @return whether the channel still hears from it: neither lingering nor closed.
     */
    final boolean isOpen()
    {
        return state == State.OPEN;
    }

    /**
     * Take every completion there is; the channel's handle calls it with each {@link CqReady}. A lingering
     * endpoint whose last SEND completes tears itself down.
     *
     * @param arm re-arm the CQ first (the CQ announced completions), so that one that comes while this runs
     *            announces itself again; false for a busy poll, which in the software device's polling mode also
     *            receives on the calling thread.
     * @return {@link #TOOK}, {@link #READABLE}, {@link #WRITABLE} and {@link #FAILED}, or'ed; only {@link #TOOK}
     *     once the endpoint is not open.
     */
    final int takeCompletions(final boolean arm)
    {
        if (state == State.CLOSED)
        {
            return 0;
        }
        if (arm)
        {
            cq.requestNotify(false);
        }
        int events = 0;
        IOException failed = null;
        int n;
        while (state != State.CLOSED && (n = cq.poll(wcs)) > 0)
        {
            events |= TOOK;
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = wcs[i];
                // flushed work is the QP going down, which the connection manager or the close reports
                if (failed == null && wc.status() != WcStatus.SUCCESS && wc.status() != WcStatus.WR_FLUSH_ERR)
                {
                    failed = new IOException(describe(wc) + " failed: " + wc.status().description() + " (" + wc +
                        ")");
                }
                if (isSend(wc))
                {
                    sendsCompletedThrough((int)wc.wrId());
                    events |= WRITABLE;
                }
                else
                {
                    events |= received(wc);
                }
            }
        }
        if (state == State.LINGERING)
        {
            if (sendsInFlight == 0)
            {
                tearDown(true);
            }
            return events & TOOK;
        }
        if (state != State.OPEN)
        {
            return events & TOOK;
        }
        completionsTaken();
        if (failed == null)
        {
            failed = violation;
        }
        violation = null;
        if (failed != null)
        {
            failure = failed;
            return TOOK | FAILED;
        }
        return events;
    }

    /**
     * @return why the channel fails, after {@link #takeCompletions} said {@link #FAILED}; then null.
     */
    final IOException takeFailure()
    {
        final IOException cause = failure;
        failure = null;
        return cause;
    }

    /**
     * The peer broke the protocol in a completion being taken: the channel fails once the batch is taken.
     *
     * @param cause what it did, naming the limit or state at fault.
     */
    protected final void violated(final IOException cause)
    {
        if (violation == null)
        {
            violation = cause;
        }
    }

    /**
     * Wait for the SENDs in flight before tearing down; the connection is cut once they complete.
     *
     * @param nanos the longest wait.
     */
    protected final void linger(final long nanos)
    {
        state = State.LINGERING;
        registration.linger(System.nanoTime() + nanos);
    }

    /** Tear down now, whatever is still in flight: the event loop is going away or the linger ran out. */
    final void forceClose()
    {
        if (state != State.CLOSED)
        {
            tearDown(connected());
        }
    }

    /**
     * Destroy the QP and let the buffers go; the CQ, the completion channel's hold and the id follow in
     * {@link #finishRetiring}.
     *
     * @param disconnect cut the connection first.
     */
    protected final void tearDown(final boolean disconnect)
    {
        state = State.CLOSED;
        if (disconnect)
        {
            // EINVAL when the peer's disconnect came first: nothing to do then
            quietly(id::disconnect);
        }
        quietly(id::destroyQp);
        qpDestroyed();
        // completions not taken: the device reads none of their buffers any more
        held.releaseAll();
        quietly(recvMr::close);
        if (lateRecvMr != null)
        {
            quietly(lateRecvMr::close);
        }
        if (sendMr != null)
        {
            quietly(sendMr::close);
        }
        arena.close();
        devices.releaseMemory(verbs);
        registration.release(this::finishRetiring);
    }

    /**
     * The last steps, after the QP is gone: close the CQ (EBUSY while the channel's waiting thread holds an
     * event of it not yet acknowledged), give back the completion channel, and close the id (which leaves its
     * multicast groups), in the order the connection manager needs: the device's context goes with its last id,
     * and only if nothing made from it is left.
     *
     * @return true when done; false to be called again.
     */
    private boolean finishRetiring()
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
            log.log(System.Logger.Level.WARNING, "closing a completion queue failed", ex);
        }
        retired = true;
        devices.releaseCompletionChannel(verbs);
        quietly(id::close);
        idClosed.run();
        return true;
    }

    /**
     * @param action what to run, on whichever thread retires the endpoint, once it has closed its id: an accepted
     *               id lives on its listener loop's event channel, which waits for it ({@link LoopDevices#adoptId}).
     */
    final void onIdClosed(final Runnable action)
    {
        idClosed = action;
    }

    /**
     * @param action a teardown step whose failure must not stop the others.
     */
    protected final void quietly(final Runnable action)
    {
        Teardown.quietly(log, System.Logger.Level.DEBUG, "ignored during teardown", action);
    }
}
