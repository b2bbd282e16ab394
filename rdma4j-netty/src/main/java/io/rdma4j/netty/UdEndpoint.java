package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.rdma4j.cm.CmId;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * A UD QP made on a UDP-space id, with registered receive buffers (each the 40-byte GRH slot and one MTU) and
 * send slots; driven by its event loop's thread alone. UD has no flow control: a datagram that finds no
 * receive posted is dropped, as one that finds a full socket buffer is.
 */
final class UdEndpoint implements CqConsumer
{
    private static final long SEND_TAG = 1L << 32;
    private static final int IPV4_HEADER = 20;
    private static final System.Logger LOG = System.getLogger(UdEndpoint.class.getName());

    /** What the channel learns from its endpoint; called on the event loop. */
    interface Owner
    {
        /** Datagrams wait to be read. */
        void readable();

        /** Send slots came back. */
        void writable();

        /**
         * @param cause a work request failed other than by being flushed.
         */
        void failed(IOException cause);
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
    private final int maxDatagram;
    private final int[] freeSlots;
    private final int[] stashIndex;
    private final int[] stashLength;
    private final List<AddressHandle> addressHandles = new ArrayList<>();
    private final RecvWr recvWr = new RecvWr();
    private final SendWr sendWr = new SendWr();
    private final WorkCompletion[] wcs = WorkCompletion.array(32);
    private final byte[] address4 = new byte[4];
    private final byte[] address6 = new byte[16];

    private Owner owner;
    private boolean closed;
    private boolean retired;
    private int freeSlotCount;
    private int stashHead;
    private int stashCount;

    /**
     * @param handler   the loop's handler.
     * @param id        a bound UDP-space id.
     * @param recvCount receives posted.
     * @param slotCount send slots.
     * @param owner     the channel.
     */
    UdEndpoint(final RdmaIoHandler handler, final CmId id, final int recvCount, final int slotCount,
        final Owner owner)
    {
        this.handler = handler;
        this.id = id;
        this.owner = owner;
        this.recvCount = recvCount;
        this.verbs = id.verbs();
        this.maxDatagram = verbs.queryPort(1).activeMtu().bytes();
        this.recvSize = ReplyAddress.GRH_BYTES + maxDatagram;
        CompletionQueue madeCq = null;
        Arena madeArena = null;
        MemoryRegion madeRecvMr = null;
        MemoryRegion madeSendMr = null;
        boolean qpMade = false;
        boolean held = false;
        try
        {
            final CompletionChannel channel = handler.holdCompletionChannel(verbs);
            held = true;
            madeCq = verbs.createCq(slotCount + recvCount, channel, 0);
            this.qp = id.createQp(null, QpInitAttr.of(QpType.UD, madeCq, QpCap.of(slotCount, recvCount)));
            qpMade = true;
            final ProtectionDomain pd = qp.pd();
            madeArena = Arena.ofShared();
            final MemorySegment recvMemory = madeArena.allocate((long)recvCount * recvSize, 64);
            final MemorySegment sendMemory = madeArena.allocate((long)slotCount * maxDatagram, 64);
            madeRecvMr = pd.regMr(recvMemory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            madeSendMr = pd.regMr(sendMemory, EnumSet.noneOf(AccessFlag.class));
            this.recvMr = madeRecvMr;
            this.sendMr = madeSendMr;
            this.recvViews = views(recvMemory, recvCount, recvSize);
            this.slotViews = views(sendMemory, slotCount, maxDatagram);
            this.cq = madeCq;
            this.arena = madeArena;
            for (int i = 0; i < recvCount; i++)
            {
                repost(i);
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
        freeSlots = new int[slotCount];
        for (int i = 0; i < slotCount; i++)
        {
            freeSlots[i] = i;
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
     * @return the largest datagram: the port's MTU.
     */
    int maxDatagram()
    {
        return maxDatagram;
    }

    /**
     * @param attr the address vector of a group or peer.
     * @return an address handle, closed with the endpoint (a SEND still posted may use it until then).
     */
    AddressHandle addressHandle(final AhAttr attr)
    {
        final AddressHandle ah = qp.pd().createAh(attr);
        addressHandles.add(ah);
        return ah;
    }

    boolean canSend()
    {
        return !closed && freeSlotCount > 0;
    }

    /**
     * Copy a datagram into a slot and post it; only when {@link #canSend()}.
     *
     * @param buf    the datagram.
     * @param length its bytes, at most {@link #maxDatagram()}.
     * @param ah     where to.
     * @param qpn    the remote QPN (the multicast QPN for a group).
     * @param qkey   the remote Q_Key.
     */
    void send(final ByteBuf buf, final int length, final AddressHandle ah, final int qpn, final int qkey)
    {
        final int slot = freeSlots[--freeSlotCount];
        final ByteBuffer view = slotViews[slot];
        view.clear().limit(length);
        buf.getBytes(buf.readerIndex(), view);
        sendWr.wrId(SEND_TAG | slot).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(sendMr, (long)slot * maxDatagram, length).ud(ah, qpn, qkey);
        try
        {
            qp.postSend(sendWr);
        }
        catch (final RdmaException ex)
        {
            freeSlots[freeSlotCount++] = slot;
            throw ex;
        }
    }

    int pending()
    {
        return stashCount;
    }

    /**
     * @return the payload length of the oldest datagram received.
     */
    int peekLength()
    {
        return stashLength[stashHead] - ReplyAddress.GRH_BYTES;
    }

    /**
     * Copy the oldest datagram's payload into {@code into}, note its addresses and post its buffer again.
     *
     * @param into      a buffer with room for {@link #peekLength()} bytes.
     * @param addresses where the source and destination IP addresses go: [0] source, [1] destination.
     */
    void read(final ByteBuf into, final InetAddress[] addresses)
    {
        final int index = stashIndex[stashHead];
        final int length = stashLength[stashHead];
        stashHead = (stashHead + 1) % recvCount;
        stashCount--;
        final ByteBuffer view = recvViews[index];
        // the GRH slot holds an IPv6 header, or twenty unused bytes and an IPv4 header
        if ((view.get(IPV4_HEADER) & 0xF0) == 0x40)
        {
            view.get(IPV4_HEADER + 12, address4);
            addresses[0] = inet(address4);
            view.get(IPV4_HEADER + 16, address4);
            addresses[1] = inet(address4);
        }
        else
        {
            view.get(8, address6);
            addresses[0] = Gid.of(address6).toInet();
            view.get(24, address6);
            addresses[1] = Gid.of(address6).toInet();
        }
        view.clear().position(ReplyAddress.GRH_BYTES).limit(length);
        into.writeBytes(view);
        repost(index);
    }

    private static InetAddress inet(final byte[] address)
    {
        try
        {
            return InetAddress.getByAddress(address);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private void repost(final int index)
    {
        qp.postRecv(recvWr.wrId(index).sge(recvMr, (long)index * recvSize, recvSize));
    }

    @Override
    public CompletionQueue cq()
    {
        return cq;
    }

    @Override
    public void onCompletions()
    {
        if (closed)
        {
            return;
        }
        cq.requestNotify(false);
        boolean readable = false;
        boolean writable = false;
        IOException failure = null;
        int n;
        while ((n = cq.poll(wcs)) > 0)
        {
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = wcs[i];
                final boolean ok = wc.status() == WcStatus.SUCCESS;
                if ((wc.wrId() & SEND_TAG) != 0)
                {
                    freeSlots[freeSlotCount++] = (int)(wc.wrId() & 0xFFFF);
                    writable = true;
                }
                else if (ok)
                {
                    final int tail = (stashHead + stashCount) % recvCount;
                    stashIndex[tail] = (int)wc.wrId();
                    stashLength[tail] = wc.byteLen();
                    stashCount++;
                    readable = true;
                }
                if (!ok && wc.status() != WcStatus.WR_FLUSH_ERR && failure == null)
                {
                    failure = new IOException("a UD work request failed: " + wc.status().description() + " (" +
                        wc + ")");
                }
            }
        }
        final Owner current = owner;
        if (current == null)
        {
            return;
        }
        if (failure != null)
        {
            current.failed(failure);
            return;
        }
        if (readable)
        {
            current.readable();
        }
        if (writable && !closed)
        {
            current.writable();
        }
    }

    @Override
    public boolean lingering()
    {
        return false;
    }

    @Override
    public long lingerDeadline()
    {
        return Long.MAX_VALUE;
    }

    /** The channel is closed: datagrams are not delivered once sent anyway, so nothing waits. */
    void close()
    {
        forceClose();
    }

    @Override
    public void forceClose()
    {
        owner = null;
        if (closed)
        {
            return;
        }
        closed = true;
        quietly(id::destroyQp);
        for (final AddressHandle ah : addressHandles)
        {
            quietly(ah::close);
        }
        quietly(recvMr::close);
        quietly(sendMr::close);
        arena.close();
        handler.retire(this);
    }

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
        // closing the id leaves its groups
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
}
