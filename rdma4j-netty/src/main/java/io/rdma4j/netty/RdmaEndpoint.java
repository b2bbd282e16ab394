package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * One RC connection's verbs resources and its flow control, driven by its event loop's thread alone.
 * <p>
 * <b>Buffers.</b> {@code R} receive buffers of {@code S} bytes are registered once and stay posted; a received
 * message is copied out into a {@link ByteBuf} when the channel reads it, and only then is its buffer posted
 * again: the buffers read are posted together, in one chain, just before a SEND reports them to the peer. An
 * accepted connection registers only {@value #HALF_OPEN_RECEIVES} of them before it is established, and the rest,
 * with its send slots, at the establishment: a request that never completes (a forged REQ with no RTU) holds its
 * QP and those two buffers, not {@code R + slots} of them.
 * Outgoing bytes are copied into one of the send slots, registered once too, and the slot is free again at the
 * SEND's completion; bytes in registered memory of an {@link RdmaByteBufAllocator} of {@value SendSource#SMALL}
 * bytes or more are sent in place instead, their buffer held until the SEND completes.
 * <p>
 * <b>One flush, few SENDs.</b> The bytes to copy of one flush, small writes above all, are gathered: each SEND's
 * slot is filled up to the most one SEND carries before the next is taken, so a flush of many small writes costs
 * the peer one receive and one credit per {@code S} bytes, not one per write. The SENDs of a flush are posted as
 * one chain, of which only every {@code slots / 4}-th and the last are signaled ({@link QpEndpoint}).
 * <p>
 * <b>Credits.</b> A sender may have as many SENDs in flight as the peer has receives posted: it starts with the
 * receives the peer had posted when it sent its private data (all {@code R} on the active side, the first
 * {@value #HALF_OPEN_RECEIVES} on the accepting side, which names {@code R} too, as the most there can be) and
 * spends one per SEND; the accepting side posts the rest once established and reports them at once, in an update. Every SEND carries, in
 * its immediate data, how many receives its sender has posted again since its last SEND: the credits it gives
 * back. A SEND of no bytes carries credits alone. Data never takes the last credit, which stays for such an
 * update, so a side that has received data can always give the credits back; an update is sent when the peer
 * may be down to fewer than two credits (by what this side knows, it cannot have more than the receives posted
 * and not yet reported), or when half the receives wait to be reported, and there is no data to carry it. An
 * update's own receive is posted again at once and reported with the next SEND, never by an update of its own,
 * so updates do not answer each other. A reader that stops reading holds its buffers, the credits stop, and the
 * writer's bytes wait in its channel's outbound buffer, where Netty's water marks turn the channel unwritable.
 */
final class RdmaEndpoint extends QpEndpoint
{
    /**
     * Private data of both sides: this magic, then the receives posted now (the credits to start with), their
     * size, and the receives posted once the connection is established (the most credits there can be),
     * big-endian. Private data without the last is of a side that posts every receive at once.
     */
    static final int MAGIC = 0x52444e31;
    static final int PRIVATE_DATA_LENGTH = 16;
    /** The length of private data without the receives posted once established. */
    static final int SHORT_PRIVATE_DATA_LENGTH = 12;
    /**
     * Receives an accepted connection posts before it is established: its peer's SENDs before the accepting
     * side has made the rest of its buffers. Two, so that the peer may send one message at once (data never takes
     * the last credit); everything else waits for the establishment, which a forged request never reaches.
     */
    static final int HALF_OPEN_RECEIVES = 2;
    /** How long a closed channel's SENDs may take to complete before the connection is cut anyway. */
    static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final SendSource source = new SendSource();
    /** The slot bytes are being gathered into, or -1. */
    private int gatherSlot = -1;
    /** Bytes in it. */
    private int gathered;
    private boolean connected;
    /** SENDs the peer has receives for: never more than {@link #peerRecvCount}. */
    private int credits;
    /** The receives the peer keeps posted, from its private data: the most credits there can be. */
    private int peerRecvCount;
    /**
     * Whether the peer's private data was read ({@link #peer}). The active side reads it from its ESTABLISHED
     * event, which travels on the event channel while the peer's first SENDs travel on the CQ: the accepting side,
     * established by the RTU, may give back its late receives' credits before this side's loop has taken that
     * event. Credits that come first wait in {@link #creditsBeforePeer}, checked once the peer is known.
     */
    private boolean peerKnown;
    /** Credits given back before {@link #peerKnown}. */
    private long creditsBeforePeer;
    private int peerRecvSize;
    /** When data first waited for credits since data could last go ({@link System#nanoTime()}, never 0), or 0. */
    private long starvedSince;
    /** Receives posted again and not yet reported to the peer (those read and not posted yet are the QP's deferred). */
    private int owed;
    /** Of those and the deferred ones, the ones that held data (an update's are not counted: they must not cause
     *  updates). */
    private int dataOwed;
    /** SENDs of data or credits posted and messages received: keepalive's sign that the peer is heard from. */
    private int traffic;
    /** {@link #traffic} when keepalive last looked. */
    private int trafficSeen;

    /**
     * Make the QP on the id, register the first receive buffers and post them; on the event loop's thread.
     *
     * @param registration the channel's registration.
     * @param id           an id with a device: resolved (active side) or from a connection request.
     * @param recvCount    receives posted once established.
     * @param firstRecvs   receives posted now: {@code recvCount} on the active side, {@link #HALF_OPEN_RECEIVES}
     *                     for a connection request, whose other buffers and send slots wait for
     *                     {@link #established()}.
     * @param recvSize     bytes each.
     * @param slotCount    send slots.
     */
    RdmaEndpoint(final RdmaIoRegistration registration, final CmId id, final int recvCount, final int firstRecvs,
        final int recvSize, final int slotCount)
    {
        // slots as large as the receives; two SENDs more than the slots leave room for credit updates; a signaled
        // SEND every quarter of the slots frees them in time for the SENDs the peer's credits allow
        super(registration, id, QpType.RC, recvCount, firstRecvs, recvSize, slotCount, recvSize, slotCount + 2,
            Math.max(1, slotCount / 4));
    }

    /**
     * @param posted    receives posted now.
     * @param recvSize  bytes each.
     * @param recvCount receives posted once established.
     * @return what a side tells its peer in the connection's private data.
     */
    static byte[] privateData(final int posted, final int recvSize, final int recvCount)
    {
        return ByteBuffer.allocate(PRIVATE_DATA_LENGTH).order(ByteOrder.BIG_ENDIAN).putInt(MAGIC).putInt(posted)
            .putInt(recvSize).putInt(recvCount).array();
    }

    /**
     * @param recvCount receives posted, all at once.
     * @param recvSize  bytes each.
     * @return what a side that posts every receive at once tells its peer.
     */
    static byte[] privateData(final int recvCount, final int recvSize)
    {
        return privateData(recvCount, recvSize, recvCount);
    }

    /**
     * @param retryCount the channel's {@code RETRY_COUNT}.
     * @return the parameters of a connect or accept, with this side's receives in the private data: never an RNR
     *         retry, since credits rule RNR out and one would be a bug to report, not to hide.
     */
    ConnParam connParam(final int retryCount)
    {
        return ConnParam.builder().privateData(privateData(firstReceives(), receiveSize(), receiveCount()))
            .retryCount(retryCount).rnrRetryCount(0).build();
    }

    /**
     * What the peer's private data says of its receives.
     *
     * @param posted credits to start with: receives it posted before the connection was established.
     * @param count  the most credits there can be: receives it keeps posted once established.
     * @param size   bytes each.
     */
    record PeerReceives(int posted, int count, int size)
    {
    }

    /**
     * Read the peer's private data, before anything is made for its connection.
     *
     * @param data the peer's private data.
     * @return its receives.
     * @throws IOException if it is not this transport's.
     */
    static PeerReceives peerReceives(final byte[] data) throws IOException
    {
        if (data == null || data.length < SHORT_PRIVATE_DATA_LENGTH)
        {
            throw new IOException("the peer sent no rdma4j-netty parameters in its private data");
        }
        final ByteBuffer buffer = ByteBuffer.wrap(data).order(ByteOrder.BIG_ENDIAN);
        final int magic = buffer.getInt();
        final int posted = buffer.getInt();
        final int size = buffer.getInt();
        final int count = data.length >= PRIVATE_DATA_LENGTH ? buffer.getInt() : posted;
        if (magic != MAGIC || count < RdmaChannelConfig.MIN_RECEIVE_BUFFERS || posted < 1 || posted > count ||
            size <= 0)
        {
            throw new IOException("the peer's private data is not rdma4j-netty's (magic 0x" +
                Integer.toHexString(magic) + ", " + posted + " of " + count + " receives of " + size +
                " bytes posted)");
        }
        return new PeerReceives(posted, count, size);
    }

    /**
     * Take the peer's receives: the credits to start with, and the most there can be.
     *
     * @param receives from {@link #peerReceives}.
     */
    void peer(final PeerReceives receives) throws IOException
    {
        credits = receives.posted();
        peerRecvCount = receives.count();
        peerRecvSize = receives.size();
        peerKnown = true;
        final long early = creditsBeforePeer;
        creditsBeforePeer = 0;
        if (early > 0)
        {
            giveBack(early);
        }
    }

    /**
     * Credits the peer gave back: checked against the receives it announced.
     *
     * @param given how many.
     * @throws IOException if they are more than the peer has receives.
     */
    private void giveBack(final long given) throws IOException
    {
        if (given > peerRecvCount - credits)
        {
            throw new IOException("the peer gave back " + given + " credits with " + credits + " in hand, more " +
                "than the " + peerRecvCount + " receives it announced");
        }
        credits += (int)given;
        if (credits >= 2)
        {
            // data may go again; the receive of an update given back alone (credits stay below two) is not
            // progress, or a peer that returns only those would hold the connection for ever
            starvedSince = 0;
        }
    }

    /**
     * The connection is established: SENDs may go. An accepted connection makes the rest of its buffers now,
     * and gives their credits to the peer at once, in an update, after posting them.
     */
    void established()
    {
        // connected first: if the buffers cannot be made, the teardown still cuts the connection
        connected = true;
        final int late = completeBuffers();
        if (late > 0 && state() == State.OPEN && credits > 0 && sendQueueHasRoom())
        {
            traffic++;
            stageWithCredits(NO_SLOT, 0);
            postStaged();
        }
    }

    @Override
    protected boolean connected()
    {
        return connected;
    }

    /**
     * @return SENDs the peer has receives for now.
     */
    int credits()
    {
        return credits;
    }

    /**
     * @return the most bytes one SEND carries.
     */
    int maxMessage()
    {
        return Math.min(slotSize(), peerRecvSize);
    }

    /**
     * @return whether a data SEND may be posted now (one credit always stays for an update).
     */
    @Override
    boolean canSend()
    {
        if (connected && credits < 2 && starvedSince == 0)
        {
            starvedSince = System.nanoTime() | 1;
        }
        return connected && credits >= 2 && canPostSlot();
    }

    /**
     * @param now {@link System#nanoTime()}.
     * @return how long data has waited for the peer's credits, in ns; 0 if it does not wait for them.
     */
    long starvedNanos(final long now)
    {
        return starvedSince == 0 || credits >= 2 ? 0 : now - starvedSince;
    }

    /**
     * Take up to {@code length} bytes for the flush's SENDs, which carry the credits owed: in place if they lie in
     * registered memory and are not small, else copied into the slot being gathered into, or into a new one.
     * {@link #flushSends()} posts what was taken.
     *
     * @param buf    the bytes.
     * @param index  where they start.
     * @param length how many at most.
     * @return how many it took: fewer than {@code length} where a SEND is full or a composite buffer's registered
     *         component starts or ends; 0 if they need another SEND and {@link #canSend()} says no.
     */
    int send(final ByteBuf buf, final int index, final int length)
    {
        final int max = maxMessage();
        final int bytes = source.find(buf, index, Math.min(length, max));
        if (source.chunk() != null && bytes >= SendSource.SMALL)
        {
            closeGather();
            if (!canSend())
            {
                return 0;
            }
            final int held = holdSend(buf, source, bytes);
            if (held >= 0)
            {
                traffic++;
                stageWithCredits(held, bytes);
                return bytes;
            }
            // the device would not register the chunk: copied, below
        }
        if (gatherSlot >= 0 && gathered < max)
        {
            final int taken = Math.min(bytes, max - gathered);
            appendToSlot(gatherSlot, gathered, buf, index, taken);
            gathered += taken;
            return taken;
        }
        closeGather();
        if (!canSend())
        {
            return 0;
        }
        traffic++;
        gatherSlot = takeSlot();
        gathered = Math.min(bytes, max);
        appendToSlot(gatherSlot, 0, buf, index, gathered);
        return gathered;
    }

    /** Stage the slot bytes were gathered into, if any. */
    private void closeGather()
    {
        if (gatherSlot >= 0)
        {
            final int slot = gatherSlot;
            gatherSlot = -1;
            stageWithCredits(slot, gathered);
        }
    }

    /** Post what {@link #send} took, in one chain. */
    void flushSends()
    {
        closeGather();
        postStaged();
    }

    /**
     * @return whether nothing was sent or received since the last call: keepalive's silence.
     */
    boolean silentSinceLastLook()
    {
        final boolean silent = traffic == trafficSeen;
        trafficSeen = traffic;
        return silent;
    }

    /**
     * Keepalive's probe: a SEND of no bytes, which the peer's RC transport must acknowledge; its retries running
     * out fail the connection as a data SEND's would. It carries the credits owed, so it is an update too, and
     * like data it never takes the last credit; the peer reposts its receive at once.
     */
    void probe()
    {
        if (state() == State.OPEN && connected && credits >= 2 && sendQueueHasRoom())
        {
            stageWithCredits(NO_SLOT, 0);
            postStaged();
        }
    }

    /**
     * Stage a SEND that gives back the credits owed: the receives read are posted first, in one chain, since a
     * credit may only name a receive that is posted.
     */
    private void stageWithCredits(final int token, final int length)
    {
        owed += postReceives();
        sendWr(token, length).opcode(WrOpcode.SEND_WITH_IMM).immData(owed);
        stage(token);
        credits--;
        owed = 0;
        dataOwed = 0;
    }

    /**
     * Copy the oldest received message into {@code into}; its buffer is posted again with the next SEND's credits.
     *
     * @param into a buffer with room for {@link #peekLength()} bytes.
     */
    void read(final ByteBuf into)
    {
        final int length = stashedLength();
        final int index = unstash();
        into.writeBytes(receiveView(index).clear().limit(length));
        deferReceive(index);
        dataOwed++;
    }

    /**
     * @return the length of the oldest received message.
     */
    @Override
    int peekLength()
    {
        return stashedLength();
    }

    /**
     * Give the owed credits back in an update if the peer may be short of them and no data is on its way to
     * carry them; the channel calls it after it has flushed what it could.
     */
    void maybeSendUpdate()
    {
        final int owing = owed + deferredReceives();
        if (state() != State.OPEN || !connected || owing == 0 || credits == 0 || !sendQueueHasRoom())
        {
            return;
        }
        // the most credits the peer can have: our receives neither reported back nor held by the reader
        final int peerCredits = receiveCount() - owing - pending();
        if (peerCredits >= 2 && dataOwed < receiveCount() / 2)
        {
            return;
        }
        traffic++;
        closeGather();
        stageWithCredits(NO_SLOT, 0);
        postStaged();
    }

    @Override
    protected int received(final WorkCompletion wc)
    {
        if (wc.status() != WcStatus.SUCCESS)
        {
            // flushed receives are the connection going down, which the connection manager reports
            return 0;
        }
        traffic++;
        int events = 0;
        if ((wc.wcFlags() & WcFlags.WITH_IMM) != 0 && wc.immData() != 0)
        {
            // unsigned, and checked: the peer cannot give back more receives than it has, and a sum that wrapped
            // round would stop this side's SENDs for good
            final long given = Integer.toUnsignedLong(wc.immData());
            if (!peerKnown)
            {
                // bounded: no peer has more receives than an int counts, and a wrapped sum is refused at peer()
                creditsBeforePeer = Math.min(creditsBeforePeer + given, Integer.MAX_VALUE + 1L);
            }
            else
            {
                try
                {
                    giveBack(given);
                }
                catch (final IOException ex)
                {
                    violated(ex);
                    return 0;
                }
                events = WRITABLE;
            }
        }
        if (state() != State.OPEN)
        {
            // a closed channel reads nothing more: the buffer stays unposted
            return events;
        }
        final int index = (int)wc.wrId();
        if (wc.byteLen() == 0)
        {
            deferReceive(index);
            return events;
        }
        stash(index, wc.byteLen());
        return events | READABLE;
    }

    @Override
    protected String describe(final WorkCompletion wc)
    {
        return isSend(wc) ? "a SEND" : "a receive";
    }

    @Override
    protected void completionsDelivered()
    {
        maybeSendUpdate();
    }

    /**
     * The channel is closed: once the SENDs it posted have completed (or {@link #LINGER_NANOS} passed),
     * disconnect and let everything go.
     *
     * @param peerGone the peer disconnected already: nothing is left to deliver.
     */
    void close(final boolean peerGone)
    {
        if (state() != State.OPEN)
        {
            return;
        }
        if (connected && !peerGone && sendsInFlight() > 0)
        {
            linger(LINGER_NANOS);
            return;
        }
        tearDown(connected);
    }

    @Override
    public String toString()
    {
        return "RdmaEndpoint[" + id().localAddress() + " -> " + id().peerAddress() + ", " + state() +
            ", credits " + credits + ", owed " + owed + ", pending " + pending() + ", sends " + sendsInFlight() + "]";
    }
}
