package io.rdma4j.netty;

import io.netty.buffer.ByteBuf;
import io.rdma4j.cm.CmId;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A UD QP made on a UDP-space id, with registered receive buffers (each the 40-byte GRH slot and one MTU) and
 * send slots; driven by its event loop's thread alone. UD has no flow control: a datagram that finds no
 * receive posted is dropped, as one that finds a full socket buffer is.
 */
final class UdEndpoint extends QpEndpoint
{
    private static final int IPV4_HEADER = 20;

    private final List<AddressHandle> addressHandles = new ArrayList<>();
    private final byte[] address4 = new byte[4];
    private final byte[] address6 = new byte[16];
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
        // a slot per SEND: the send queue needs no more room than the slots
        super(registration, id, QpType.UD, recvCount, ReplyAddress.GRH_BYTES + mtu(id), slotCount, mtu(id),
            slotCount);
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
        final int slot = fillSlot(buf, buf.readerIndex(), length);
        sendWr(slot, length).opcode(WrOpcode.SEND).ud(ah, qpn, qkey);
        post(slot);
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
     * Copy the oldest datagram's payload into {@code into}, note its addresses and post its buffer again.
     *
     * @param into      a buffer with room for {@link #peekLength()} bytes.
     * @param addresses where the source and destination IP addresses go: [0] source, [1] destination.
     * @return the sender's QP number.
     */
    int read(final ByteBuf into, final InetAddress[] addresses)
    {
        final int length = stashedLength();
        final int index = unstash();
        final int sourceQp = sourceQpn[index];
        final ByteBuffer view = receiveView(index);
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
        postReceive(index);
        return sourceQp;
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
        if ((view.get(IPV4_HEADER) & 0xF0) == 0x40)
        {
            return ownIpv4 && view.getInt(IPV4_HEADER + 12) == ownIpv4Address;
        }
        return !ownIpv4 && view.getLong(8) == ownHigh && view.getLong(16) == ownLow;
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
            // IP_MULTICAST_LOOP off: the device looped this QP's own datagram back; its receive goes back at once
            ownSkipped++;
            postReceive(index);
            return 0;
        }
        sourceQpn[index] = wc.srcQp();
        stash(index, wc.byteLen());
        return READABLE;
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
