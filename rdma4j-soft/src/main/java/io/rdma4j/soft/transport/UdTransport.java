package io.rdma4j.soft.transport;

import io.rdma4j.soft.resource.SoftAh;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketBuilder;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The unreliable datagram transport. Sending: every WQE is one SEND_ONLY packet with a DETH,
 * built and sent inline by the posting thread; a message above the port MTU is completed
 * without being sent, as rxe does (IBA C10-93.1.1); a multicast send is also given to every QP
 * of this device attached to the group, so a member receives its own message (unless it was
 * created with BLOCK_SELF_MCAST_LB: then the sender alone is passed over). Receiving: state,
 * transport and Q_Key are checked per QP; the first 40 bytes of the receive buffer get the GRH
 * (for IPv4, 20 zero bytes and the IPv4 header, as rxe writes it); a missing or too small receive
 * drops the packet, counted, without a completion.
 */
public final class UdTransport implements QpTransport
{
    /** Bytes of the GRH slot at the start of every UD receive buffer. */
    public static final int GRH_LENGTH = 40;

    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ThreadLocal<ReceiveScratch> SCRATCH = ThreadLocal.withInitial(ReceiveScratch::new);

    private final TransportQp qp;
    private final TransportDevice device;
    private final ByteBuffer txBuffer = ByteBuffer.allocateDirect(8192);
    private final MemorySegment txSegment = MemorySegment.ofBuffer(txBuffer);
    private final PacketInfo txSpec = new PacketInfo();
    /** Used by {@link #kick}, under the QP's send lock. */
    private final CompletionWriter sendCompletion = new CompletionWriter();
    private final PacketBuilder builder = new PacketBuilder();

    UdTransport(final TransportQp qp)
    {
        this.qp = qp;
        this.device = qp.device();
    }

    @Override
    public void kick()
    {
        final SendQueue sq = qp.sendQueue();
        for (SendWqe wqe = sq.peekNext(); wqe != null; wqe = sq.peekNext())
        {
            sq.advanceNext();
            final WcStatus status = send(wqe);
            sq.advanceTail();
            if (status != WcStatus.SUCCESS || wqe.signaled)
            {
                sendCompletion.begin(wqe.wrId, WcOpcode.SEND).status(status).byteLen((int)wqe.totalLength)
                    .qpNum(qp.qpNum()).writeTo(qp.sendCompletions());
            }
            if (status != WcStatus.SUCCESS)
            {
                qp.enterError();
                return;
            }
        }
    }

    private WcStatus send(final SendWqe wqe)
    {
        final int mtu = device.activeMtu().bytes();
        if (wqe.totalLength > mtu)
        {
            // IBA C10-93.1.1, as rxe: too long for the path MTU, not sent, completed as a success
            qp.count(SoftCounter.UD_OVERSIZE_NOT_SENT);
            return WcStatus.SUCCESS;
        }
        final SoftAh ah = wqe.ah;
        final int length = (int)wqe.totalLength;
        final Opcode opcode = wqe.opcode == WrOpcode.SEND_WITH_IMM ? Opcode.UD_SEND_ONLY_WITH_IMMEDIATE :
            Opcode.UD_SEND_ONLY;
        txSpec.clear()
            .opcode(opcode)
            .se((wqe.sendFlags & SendFlags.SOLICITED) != 0)
            .destQp(wqe.remoteQpn & 0xFFFFFF)
            .psn(qp.sqPsn())
            .qkey(wqe.remoteQkey)
            .srcQp(qp.qpNum())
            .immediate(wqe.immData);
        device.network(txSpec, ah.destinationGid());
        if (!MemoryAccess.gather(wqe, device.mrTable(), qp.pd(), 0, txSegment, opcode.headerLength(), length))
        {
            return WcStatus.LOC_PROT_ERR;
        }
        // a group's packet is also handed to this device's members as sent, ICRC included; a unicast one
        // gets its ICRC from the link, if its path needs one
        final boolean multicast = ah.isMulticast();
        final int packetLength = multicast ? builder.build(txSpec, length, txSegment, 0) :
            builder.buildWithoutIcrc(txSpec, length, txSegment, 0);
        qp.sqPsn(qp.sqPsn() + 1);
        txBuffer.clear().limit(packetLength);
        if (multicast ? device.queue(txBuffer, ah.destination(), ah.hopLimit()) :
            device.queue(txBuffer, ah.destination(), ah.hopLimit(), builder.lastIcrc()))
        {
            // only this QP's sends, under its send lock, count a UD QP's sent_pkts: no atomic a packet
            qp.qpCounters().incrementOwned(SoftCounter.SENT_PKTS);
        }
        else
        {
            qp.count(SoftCounter.SEND_ERR);
        }
        if (multicast)
        {
            // members on this device get their copies through the receive path, as any packet
            device.loopbackMulticast(txSegment, packetLength, ah);
        }
        return WcStatus.SUCCESS;
    }

    @Override
    public void onPacket(final PacketInfo packet, final DatagramInfo datagram)
    {
        // the receive path checked the QP's state, the transport and the Q_Key, once
        final ReceiveScratch scratch = SCRATCH.get();
        final RecvWqe wqe = scratch.wqe;
        final int payload = packet.payloadLength();
        final SharedRecvPool srq = qp.srqPool();
        final int taken = qp.receiveSource().takeIfFits((long)GRH_LENGTH + payload, wqe);
        if (taken == RecvQueue.EMPTY)
        {
            qp.count(SoftCounter.DROP_NO_RECV_WQE);
            return;
        }
        if (taken == RecvQueue.TOO_SMALL)
        {
            if (srq == null)
            {
                qp.count(SoftCounter.DROP_RECV_TOO_SMALL);
                return;
            }
            // with an SRQ the receive is consumed and completes in error, as rxe does
            qp.receiveSource().take(wqe);
            srq.afterTake();
            qp.count(SoftCounter.DROP_RECV_TOO_SMALL);
            scratch.completion.begin(wqe.wrId, WcOpcode.RECV).status(WcStatus.LOC_LEN_ERR).qpNum(qp.qpNum())
                .srcQp(packet.srcQp()).writeTo(qp.recvCompletions());
            return;
        }
        if (srq != null)
        {
            srq.afterTake();
        }
        writeGrh(scratch.grh, packet, datagram);
        final boolean copied =
            MemoryAccess.scatter(wqe, device.mrTable(), qp.pd(), 0, scratch.grh, 0, GRH_LENGTH) &&
            MemoryAccess.scatter(wqe, device.mrTable(), qp.pd(), GRH_LENGTH, packet.segment(),
                packet.payloadOffset(), payload);
        if (!copied)
        {
            qp.count(SoftCounter.DROP_RECV_BAD_LKEY);
            scratch.completion.begin(wqe.wrId, WcOpcode.RECV).status(WcStatus.LOC_PROT_ERR).qpNum(qp.qpNum())
                .srcQp(packet.srcQp()).writeTo(qp.recvCompletions());
            qp.enterError();
            return;
        }
        int flags = WcFlags.GRH;
        int imm = 0;
        if (packet.has(OpcodeMask.IMMDT))
        {
            flags |= WcFlags.WITH_IMM;
            imm = packet.immediate();
        }
        // a multicast packet looped back comes on the sending thread, which holds no receive claim
        qp.qpCounters().increment(SoftCounter.RCVD_PKTS, !datagram.loopedBack);
        scratch.completion.begin(wqe.wrId, WcOpcode.RECV).byteLen(GRH_LENGTH + payload).immData(imm)
            .qpNum(qp.qpNum()).srcQp(packet.srcQp()).wcFlags(flags).solicited(packet.se()).writeTo(qp.recvCompletions());
    }

    /**
     * The GRH of an IPv6 datagram as rxe delivers it: the IPv6 header itself, all 40 bytes. The UDP socket shows
     * neither traffic class nor flow label, which rxe's senders leave 0; the hop limit is the link's when it sees
     * it, else the sender's default. Five whole-word stores: a fill and a store per field cost a tenth of a
     * same-host UD receive.
     */
    private static void writeGrhIpv6(final MemorySegment grh, final PacketInfo packet, final DatagramInfo datagram)
    {
        final long hopLimit = (datagram.ttl > 0 ? datagram.ttl : 64) & 0xFF;
        // version 6, traffic class and flow label 0; payload length (the UDP length); next header UDP; hop limit
        grh.set(LONG_BE, 0, 0x6000_0000L << 32 | (long)((8 + packet.length()) & 0xFFFF) << 16 | 17L << 8 | hopLimit);
        grh.set(LONG_BE, 8, packet.sourceHigh());
        grh.set(LONG_BE, 16, packet.sourceLow());
        grh.set(LONG_BE, 24, packet.destinationHigh());
        grh.set(LONG_BE, 32, packet.destinationLow());
    }

    /**
     * The GRH of an IPv4 datagram as rxe delivers it: 20 zero bytes, then the IPv4 header (DF set, no options),
     * its checksum summed from the values rather than read back. Whole-word stores, as for IPv6.
     */
    private static void writeGrh(final MemorySegment grh, final PacketInfo packet, final DatagramInfo datagram)
    {
        if (packet.ipv6())
        {
            writeGrhIpv6(grh, packet, datagram);
            return;
        }
        final int totalLength = (20 + 8 + packet.length()) & 0xFFFF;
        final int identification = Math.max(0, packet.ipIdentification()) & 0xFFFF;
        final int ttlAndProtocol = ((datagram.ttl > 0 ? datagram.ttl : 64) & 0xFF) << 8 | 17;
        final int source = packet.sourceAddress();
        final int destination = packet.destinationAddress();
        int sum = 0x4500 + totalLength + identification + 0x4000 + ttlAndProtocol + (source >>> 16) +
            (source & 0xFFFF) + (destination >>> 16) + (destination & 0xFFFF);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        final int checksum = ~sum & 0xFFFF;
        grh.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0L);
        grh.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, 0L);
        grh.set(ValueLayout.JAVA_INT_UNALIGNED, 16, 0);
        // version 4 and a 20-byte header, TOS 0, total length; identification, DF and fragment offset 0
        grh.set(LONG_BE, 20, 0x4500L << 48 | (long)totalLength << 32 | (long)identification << 16 | 0x4000L);
        // TTL and protocol, header checksum, source address
        grh.set(LONG_BE, 28, (long)ttlAndProtocol << 48 | (long)checksum << 32 | (source & 0xFFFF_FFFFL));
        grh.set(INT_BE, 36, destination);
    }

    @Override
    public long onTimer(final long nowNs)
    {
        return Long.MAX_VALUE;
    }

    @Override
    public void flush()
    {
        final SendQueue sq = qp.sendQueue();
        for (SendWqe wqe = sq.peekTail(); wqe != null; wqe = sq.peekTail())
        {
            qp.sendCompletions().flushSend(wqe.wrId, WcOpcode.SEND, qp.qpNum());
            sq.advanceTail();
        }
    }

    @Override
    public void reset()
    {
        qp.sendQueue().clear();
    }

    /**
     * Per-thread room for a receive: multicast fan-out may run on a posting thread as well as on
     * the progress thread.
     */
    private static final class ReceiveScratch
    {
        final RecvWqe wqe = new RecvWqe(64);
        final CompletionWriter completion = new CompletionWriter();
        final MemorySegment grh = java.lang.foreign.Arena.global().allocate(GRH_LENGTH, 8);
    }
}
