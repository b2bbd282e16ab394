package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.rdma4j.cm.CmId;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A UD QP made on a UDP-space id, with registered receive buffers (each the 40-byte GRH slot and one MTU) and
 * send slots; driven by its event loop's thread alone. UD has no flow control: a datagram that finds no
 * receive posted is dropped, as one that finds a full socket buffer is.
 * <p>
 * The datagrams of a flush go as one chain of SENDs ({@link #stageDatagram}, {@link #postDatagrams}), signaled
 * every quarter of the slots and at its end, so that the device sends a burst in one system call; the receives
 * read (and those of own datagrams passed over) go back in one chain per delivery. A SEND to a group this QP is
 * attached to comes back to it (the device loops a group's datagram back to its members, the sender's QP too),
 * so it costs one of its receives: {@link #receivesFree()} counts those the copies of the SENDs posted since the
 * CQ was last drained will take.
 */
final class UdEndpoint extends QpEndpoint
{
    private final List<AddressHandle> addressHandles = new ArrayList<>();
    private final GrhAddresses addresses = new GrhAddresses();
    /** Each receive buffer's sender QP, from its completion: where a reply goes. */
    private final int[] sourceQpn;
    private final int ownQpn;
    /** This endpoint's own address as the GRH holds it: an IPv4 address's int, or an IPv6 address's halves. */
    private final boolean ownIpv4;
    private final int ownIpv4Address;
    private final long ownHigh;
    private final long ownLow;
    private final BooleanSupplier skipOwn;
    private long ownSkipped;
    /** SENDs staged to groups this QP is attached to since the CQ was last drained: their copies take receives. */
    private int loopedBack;

    /**
     * @param registration the channel's registration.
     * @param id           a bound UDP-space id.
     * @param recvCount    receives posted.
     * @param slotCount    send slots.
     * @param skipOwn      whether datagrams this QP sent are to be passed over (loopback mode disabled), asked
     *                     per datagram, so that it may change at any time.
     */
    UdEndpoint(final RdmaIoRegistration registration, final CmId id, final int recvCount, final int slotCount,
        final BooleanSupplier skipOwn)
    {
        // a slot per SEND: the send queue needs no more room than the slots; a SEND signaled every quarter of the
        // slots frees them in time for the rest of a long flush
        super(registration, id, QpType.UD, recvCount, recvCount, ReplyAddress.GRH_BYTES + mtu(id), slotCount,
            mtu(id), slotCount, Math.max(1, slotCount / 4));
        this.skipOwn = skipOwn;
        this.sourceQpn = new int[recvCount];
        this.ownQpn = id.qp().qpNum();
        final byte[] own = ((InetSocketAddress)id.localAddress()).getAddress().getAddress();
        final ByteBuffer ownBytes = ByteBuffer.wrap(own);
        ownIpv4 = own.length == 4;
        ownIpv4Address = ownIpv4 ? ownBytes.getInt(0) : 0;
        ownHigh = ownIpv4 ? 0 : ownBytes.getLong(0);
        ownLow = ownIpv4 ? 0 : ownBytes.getLong(8);
    }

    private static int mtu(final CmId id)
    {
        return id.verbs().queryPort(1).activeMtu().bytes();
    }

    /**
     * @return this endpoint's QP number: the port of the {@link UdAddress} its datagrams arrive from.
     */
    int qpNum()
    {
        return ownQpn;
    }

    /**
     * @return datagrams of this QP's own that came back to it and were passed over (loopback mode disabled).
     */
    long ownSkipped()
    {
        return ownSkipped;
    }

    /**
     * @return whether the channel passes its own datagrams over now (loopback mode disabled).
     */
    boolean skipsOwn()
    {
        return skipOwn.getAsBoolean();
    }

    /**
     * @return the largest datagram: the port's MTU.
     */
    int maxDatagram()
    {
        return slotSize();
    }

    /**
     * @param attr the address vector of a group or peer.
     * @return an address handle, closed with the endpoint (a SEND still posted may use it until then).
     */
    AddressHandle addressHandle(final AhAttr attr)
    {
        final AddressHandle ah = pd().createAh(attr);
        addressHandles.add(ah);
        return ah;
    }

    @Override
    boolean canSend()
    {
        return canPostSlot();
    }

    /**
     * Copy a datagram into a slot and stage its SEND, to be posted with the rest of the flush by
     * {@link #postDatagrams}; only when {@link #canSend()}.
     *
     * @param buf       the datagram.
     * @param length    its bytes, at most {@link #maxDatagram()}.
     * @param ah        where to.
     * @param qpn       the remote QPN (the multicast QPN for a group).
     * @param qkey      the remote Q_Key.
     * @param loopsBack whether the device gives this QP a copy (a group it is attached to).
     */
    void stageDatagram(final ByteBuf buf, final int length, final AddressHandle ah, final int qpn, final int qkey,
        final boolean loopsBack)
    {
        final int slot = fillSlot(buf, buf.readerIndex(), length);
        sendWr(slot, length).opcode(WrOpcode.SEND).ud(ah, qpn, qkey);
        stage(slot);
        if (loopsBack)
        {
            loopedBack++;
        }
    }

    /**
     * Post the SENDs {@link #stageDatagram} staged, in one chain; see {@link #postStaged}.
     *
     * @return how many.
     */
    int postDatagrams()
    {
        final int count = staged();
        postStaged();
        return count;
    }

    /**
     * @return receives posted that no completion has taken yet, as far as this endpoint knows: all of them but
     *     those holding a datagram not read yet, those read and not posted again, and those the copies of the
     *     SENDs posted since the CQ was last drained take (the software device loops a copy back as the SEND is
     *     posted; rxe soon after). Datagrams of other members that came since the CQ was drained are not known.
     */
    int receivesFree()
    {
        return receiveCount() - pending() - deferredReceives() - loopedBack;
    }

    /**
     * Post the receives read since the last time, in one chain.
     */
    void postReadReceives()
    {
        if (deferredReceives() > 0 && isOpen())
        {
            postReceives();
        }
    }

    /**
     * @return the payload length of the oldest datagram received.
     */
    @Override
    int peekLength()
    {
        return stashedLength() - ReplyAddress.GRH_BYTES;
    }

    /**
     * Copy the oldest datagram's payload into {@code into} and note its addresses ({@link #source()},
     * {@link #destination()}); its buffer goes back with the others read, at the end of the delivery
     * ({@link #postReadReceives}).
     *
     * @param into a buffer with room for {@link #peekLength()} bytes.
     * @return the sender's QP number.
     */
    int read(final ByteBuf into)
    {
        final int length = stashedLength();
        final int index = unstash();
        final int sourceQp = sourceQpn[index];
        final ByteBuffer view = receiveView(index);
        addresses.read(view);
        view.clear().position(ReplyAddress.GRH_BYTES).limit(length);
        into.writeBytes(view);
        deferReceive(index);
        return sourceQp;
    }

    /**
     * @return the source IP address of the datagram {@link #read} last; the same object while it is the same.
     */
    InetAddress source()
    {
        return addresses.source();
    }

    /**
     * @return the destination IP address of the datagram {@link #read} last: a group, or this endpoint's address.
     */
    InetAddress destination()
    {
        return addresses.destination();
    }

    /**
     * @param index a receive buffer just completed.
     * @return whether its datagram is this QP's own: sent by this QP number from this address.
     */
    private boolean isOwn(final int index, final int sourceQp)
    {
        if (sourceQp != ownQpn)
        {
            return false;
        }
        final ByteBuffer view = receiveView(index);
        if (GrhAddresses.isIpv4(view))
        {
            return ownIpv4 && GrhAddresses.ipv4Source(view) == ownIpv4Address;
        }
        return !ownIpv4 && view.getLong(8) == ownHigh && view.getLong(16) == ownLow;
    }

    @Override
    protected int received(final WorkCompletion wc)
    {
        if (wc.status() != WcStatus.SUCCESS)
        {
            return 0;
        }
        final int index = (int)wc.wrId();
        if (skipOwn.getAsBoolean() && isOwn(index, wc.srcQp()))
        {
            // IP_MULTICAST_LOOP off: the device looped this QP's own datagram back; its receive goes back with the
            // batch's others
            ownSkipped++;
            deferReceive(index);
            return 0;
        }
        sourceQpn[index] = wc.srcQp();
        stash(index, wc.byteLen());
        return READABLE;
    }

    @Override
    protected void completionsTaken()
    {
        // the copies of the SENDs posted before are in the completions just taken; those passed over go back now,
        // before a flush that waited for them goes on
        loopedBack = 0;
        postReadReceives();
    }

    @Override
    protected void completionsDelivered()
    {
        // the receives of own datagrams passed over, and of any read while the completions were delivered
        postReadReceives();
    }

    @Override
    protected String describe(final WorkCompletion wc)
    {
        return "a UD work request";
    }

    @Override
    protected boolean connected()
    {
        // a UD QP has no connection to cut
        return false;
    }

    /** The channel is closed: datagrams are not delivered once sent anyway, so nothing waits. */
    void close()
    {
        forceClose();
    }

    @Override
    protected void qpDestroyed()
    {
        for (final AddressHandle ah : addressHandles)
        {
            quietly(ah::close);
        }
    }
}
