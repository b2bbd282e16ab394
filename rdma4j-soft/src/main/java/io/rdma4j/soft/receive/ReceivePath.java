package io.rdma4j.soft.receive;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.mcast.McastGroupTable;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.transport.TransportDevice;
import io.rdma4j.soft.transport.TransportQp;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.Ipv6;
import io.rdma4j.soft.resource.SoftAh;
import io.rdma4j.soft.wire.BthFlyweight;
import io.rdma4j.soft.wire.DethFlyweight;
import io.rdma4j.soft.wire.DropCause;
import io.rdma4j.soft.wire.Opcode;
import io.rdma4j.soft.wire.OpcodeMask;
import io.rdma4j.soft.wire.PacketInfo;
import io.rdma4j.soft.wire.PacketParser;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/**
 * What rxe_recv.c is to rxe: every received datagram passes here, is checked in one fixed order,
 * and is either counted as one drop (one counter per cause) or counted in {@code rcvd_pkts} and
 * handed on. The order is rxe's:
 * <ol>
 *     <li>the destination address is ours or a multicast group ({@code drop_not_for_us});</li>
 *     <li>the headers ({@link PacketParser#parseHeaders}): length, opcode, header length, transport
 *     version, destination QP not 0, the default P_Key, PadCnt;</li>
 *     <li>the QP: it exists ({@code drop_no_qp}), the opcode is of its transport
 *     ({@code drop_wrong_transport}), and its state takes requests, or responses, at all
 *     ({@code drop_qp_state});</li>
 *     <li>for RC and UC, the addresses: the datagram comes from the QP's peer and to our address
 *     ({@code drop_addr_mismatch}); a connected QP hears nobody else, whatever PSN or rkey is
 *     guessed;</li>
 *     <li>for UD and QP1, the Q_Key ({@code qkey_violation});</li>
 *     <li>the ICRC ({@code icrc_err}).</li>
 * </ol>
 * A multicast packet is checked against the group (UD opcode, a member here) before its ICRC; each
 * member QP then judges its copy (state, Q_Key) as rxe does. A multicast packet this device sends reaches its
 * members here the same way ({@link #onLoopback}), so transports trust what this class checked. Every datagram
 * bumps exactly one of {@link SoftCounter#receiveVerdicts()}.
 * <p>
 * Runs under the device's receive lock, one thread at a time (a loopback on its sending thread); allocates
 * nothing except for a MAD.
 */
public final class ReceivePath
{
    private static final Object[] NO_MEMBERS = new Object[0];

    private final TransportDevice device;
    private final QpLookup qps;
    private final McastGroupTable<? extends TransportQp> groups;
    private final MadPort qp1;
    private final Counters counters;
    private final int localIpv4;
    /** The device's family is fixed: an IPv4 device never takes the IPv6 branches below, and vice versa. */
    private final boolean ipv6;
    private final long localHigh;
    private final long localLow;
    private final InetAddress localAddress;
    /** Asked, for a connected QP whose peer is on this host, whether the inbox still takes the peer's datagrams. */
    private final Link link;
    /** The link's port, 4791 outside tests: its packets go from it and to it on the peer. */
    private final int port;
    private final int ipIdentification;
    /** Multicast loopback runs on sending threads: each has its own parser and records. */
    /** MGIDs by group address, so that receiving on a handful of groups builds no Gid per packet. */
    private final Gid[] groupGidCache = new Gid[64];
    private static final ThreadLocal<LoopbackScratch> LOOPBACK = ThreadLocal.withInitial(LoopbackScratch::new);

    /**
     * @param device the device: its counters, clock, address and MTU.
     * @param link   the device's link: its address, port and IP identification, which a loopback carries.
     * @param qps    the device's QPs by number.
     * @param groups the device's multicast groups and their member QPs.
     * @param qp1    where MADs go.
     */
    public ReceivePath(
        final TransportDevice device, final Link link, final QpLookup qps,
        final McastGroupTable<? extends TransportQp> groups, final MadPort qp1)
    {
        this.device = device;
        this.qps = qps;
        this.groups = groups;
        this.qp1 = qp1;
        this.counters = device.counters();
        this.link = link;
        this.localAddress = link.localAddress();
        this.port = link.localPort();
        this.ipIdentification = link.ipIdentification();
        final Gid gid = device.gid();
        this.ipv6 = !gid.isIpv4Mapped();
        this.localIpv4 = ipv6 ? 0 : gid.ipv4();
        this.localHigh = gid.high();
        this.localLow = gid.low();
    }

    /**
     * Check one datagram and hand it on, or count why not.
     *
     * @param segment memory holding the UDP payload.
     * @param offset  where in it the payload starts.
     * @param length  the UDP payload's length.
     * @param info    the datagram's addressing.
     * @param parser  the calling thread's parser.
     * @param packet  the calling thread's packet record.
     */
    public void onDatagram(
        final MemorySegment segment, final long offset, final int length, final DatagramInfo info,
        final PacketParser parser, final PacketInfo packet)
    {
        receive(segment, offset, length, info, parser, packet);
    }

    /**
     * Check a multicast packet this device just sent and hand it to the group's members here, as rxe's loopback
     * hands its own packets to {@code rxe_rcv}: the same checks, in the same order, as for a datagram from the
     * network. Runs on the sending thread (under the QP's send lock, not the receive lock), with scratch of its
     * own; the IP stack's copy of the packet is then dropped as our own echo.
     *
     * @param segment the packet as sent, from offset 0.
     * @param length  its length.
     * @param group   the address handle it was sent with: the group.
     */
    public void onLoopback(final MemorySegment segment, final int length, final SoftAh group)
    {
        final LoopbackScratch scratch = LOOPBACK.get();
        final DatagramInfo info = scratch.info;
        info.source = localAddress;
        info.sourceIpv4 = localIpv4;
        info.sourceIpv6High = localHigh;
        info.sourceIpv6Low = localLow;
        info.sourcePort = port;
        info.destination = group.destination();
        info.destinationIpv4 = group.destinationIpv4();
        info.destinationIpv6High = group.destinationGid().high();
        info.destinationIpv6Low = group.destinationGid().low();
        info.destinationPort = port;
        info.viaSameHostPath = false;
        info.icrcOmitted = false;
        info.ttl = group.hopLimit();
        info.ipIdentification = ipIdentification;
        info.loopedBack = true;
        receive(segment, 0, length, info, scratch.parser, scratch.packet);
    }

    private void receive(
        final MemorySegment segment, final long offset, final int length, final DatagramInfo info,
        final PacketParser parser, final PacketInfo packet)
    {
        // no clear(): the addressing below and an accepted parse set every field (PacketParserTest), and a
        // refused packet is only counted. Clearing all forty fields was a twentieth of a small receive.
        final boolean toGroup;
        final boolean toUs;
        if (ipv6)
        {
            packet.networkIpv6(info.sourceIpv6High, info.sourceIpv6Low, info.sourcePort, info.destinationIpv6High,
                info.destinationIpv6Low, info.destinationPort);
            toGroup = Ipv6.isMulticast(info.destinationIpv6High);
            toUs = info.destinationIpv6High == localHigh && info.destinationIpv6Low == localLow;
        }
        else
        {
            packet.network(info.sourceIpv4, info.sourcePort, info.destinationIpv4, info.destinationPort,
                info.ipIdentification).dontFragment(true).ipIdentificationGuess(info.ipIdentificationGuess);
            toGroup = isMulticast(info.destinationIpv4);
            toUs = info.destinationIpv4 == localIpv4;
        }
        if (!toUs && !toGroup)
        {
            counters.increment(SoftCounter.DROP_NOT_FOR_US);
            return;
        }
        final DropCause cause = parser.parseHeaders(segment, offset, length, packet);
        if (cause != DropCause.NONE)
        {
            counters.increment(counterOf(cause));
            return;
        }
        final int destQp = packet.destQp();
        if (destQp == BthFlyweight.MULTICAST_QPN)
        {
            onMulticast(parser, packet, info, toGroup);
        }
        else if (destQp == MadPort.GSI_QPN)
        {
            onGsi(parser, packet, info);
        }
        else
        {
            onUnicast(parser, packet, info);
        }
    }

    private void onUnicast(final PacketParser parser, final PacketInfo packet, final DatagramInfo info)
    {
        final TransportQp qp = qps.qp(packet.destQp());
        if (qp == null || !qp.isOpen())
        {
            counters.increment(SoftCounter.DROP_NO_QP);
            return;
        }
        final QpType type = qp.type();
        if (!packet.has(transportBit(type)))
        {
            qp.count(SoftCounter.DROP_WRONG_TRANSPORT);
            return;
        }
        if (!stateAccepts(qp.state(), packet))
        {
            qp.count(SoftCounter.DROP_QP_STATE);
            return;
        }
        if (type == QpType.UD)
        {
            if (packet.qkey() != qp.qkey())
            {
                qp.count(SoftCounter.DROP_QKEY_VIOLATION);
                return;
            }
            if (packet.payloadLength() > device.activeMtu().bytes())
            {
                qp.count(SoftCounter.DROP_UD_OVER_MTU);
                return;
            }
        }
        // rxe's check_addr: a connected QP hears its peer only, at our address
        else if (!fromPeerToUs(qp, packet))
        {
            qp.count(SoftCounter.DROP_ADDR_MISMATCH);
            return;
        }
        // and a peer of this user on this host speaks through the owner-only inbox: any local process can send
        // UDP from the peer's address (bound to another port, or from any port with IP_PKTINFO)
        else if (qp.peerOnSameHostPath() && !info.viaSameHostPath && link.sameHostPathOpen())
        {
            qp.count(SoftCounter.DROP_LOCAL_PEER_BY_UDP);
            return;
        }
        if (!icrcMatches(parser, packet, info.icrcOmitted))
        {
            return;
        }
        counters.increment(SoftCounter.RCVD_PKTS, !info.loopedBack);
        // the transport reads the clock if the packet moves a timer: a UD packet or a request does not, and a
        // read is a tenth of a same-host datagram's cost
        qp.transport().onPacket(packet, info);
    }

    private void onGsi(final PacketParser parser, final PacketInfo packet, final DatagramInfo info)
    {
        if (!qp1.hasHandler())
        {
            counters.increment(SoftCounter.DROP_NO_QP);
            return;
        }
        if (packet.opcode() != Opcode.UD_SEND_ONLY)
        {
            counters.increment(SoftCounter.DROP_WRONG_TRANSPORT);
            return;
        }
        if (packet.qkey() != DethFlyweight.GSI_QKEY)
        {
            counters.increment(SoftCounter.DROP_QKEY_VIOLATION);
            return;
        }
        if (packet.payloadLength() < MadPort.MAD_LENGTH)
        {
            counters.increment(SoftCounter.DROP_SHORT_MAD);
            return;
        }
        if (!icrcMatches(parser, packet, false))
        {
            return;
        }
        counters.increment(SoftCounter.RCVD_PKTS, !info.loopedBack);
        qp1.onMad(packet);
    }

    private void onMulticast(
        final PacketParser parser, final PacketInfo packet, final DatagramInfo info, final boolean toGroup)
    {
        final boolean looped = info.loopedBack;
        if (!looped && (ipv6 ? packet.sourceHigh() == localHigh && packet.sourceLow() == localLow :
            packet.sourceAddress() == localIpv4))
        {
            // our own send looped back by the IP stack: members here had their copies at send time
            counters.increment(SoftCounter.DROP_OWN_MCAST_ECHO);
            return;
        }
        if (!packet.has(OpcodeMask.UD))
        {
            counters.increment(SoftCounter.DROP_WRONG_TRANSPORT);
            return;
        }
        if (packet.payloadLength() > device.activeMtu().bytes())
        {
            counters.increment(SoftCounter.DROP_UD_OVER_MTU);
            return;
        }
        final Object[] members = toGroup ? groups.members(groupGid(packet)) : NO_MEMBERS;
        if (members.length == 0)
        {
            counters.increment(SoftCounter.DROP_NOT_A_MEMBER);
            return;
        }
        SoftCounter refusal = null;
        int accepting = 0;
        for (final Object member : members)
        {
            final SoftCounter cause = udRefusal((TransportQp)member, packet);
            if (cause == null)
            {
                accepting++;
            }
            else if (refusal == null)
            {
                refusal = cause;
            }
        }
        if (accepting == 0)
        {
            counters.increment(refusal);
            return;
        }
        if (!icrcMatches(parser, packet, info.icrcOmitted))
        {
            return;
        }
        counters.increment(SoftCounter.RCVD_PKTS, !looped);
        // each member judges its own copy, as rxe checks every QP of the group; a member that refuses
        // counts it on the QP only, the device having counted the datagram once already
        for (final Object member : members)
        {
            final TransportQp qp = (TransportQp)member;
            final SoftCounter cause = udRefusal(qp, packet);
            if (looped && cause == null && qp.blocksSelfMcastLoopback() && packet.srcQp() == qp.qpNum())
            {
                // IBV_QP_CREATE_BLOCK_SELF_MCAST_LB: the sender's own copy stops here
                qp.count(SoftCounter.MCAST_SELF_BLOCKED);
            }
            else if (cause == null)
            {
                counters.increment(SoftCounter.MCAST_FANOUT, !looped);
                qp.transport().onPacket(packet, info);
            }
            else
            {
                qp.qpCounters().increment(cause);
            }
        }
    }

    /**
     * @return why a UD QP refuses a packet of its transport, or null if it takes it.
     */
    private static SoftCounter udRefusal(final TransportQp qp, final PacketInfo packet)
    {
        if (!qp.isOpen())
        {
            return SoftCounter.DROP_NO_QP;
        }
        if (!stateAccepts(qp.state(), packet))
        {
            return SoftCounter.DROP_QP_STATE;
        }
        return packet.qkey() != qp.qkey() ? SoftCounter.DROP_QKEY_VIOLATION : null;
    }

    /**
     * The ICRC comes last, as in rxe: the cheaper checks above refuse most strangers first. A record of the
     * same-host inbox whose sender left the ICRC out ({@link DatagramInfo#icrcOmitted}) has none to check: only
     * this user's processes write there. The GSI's MADs always carry one.
     */
    private boolean icrcMatches(final PacketParser parser, final PacketInfo packet, final boolean icrcOmitted)
    {
        if (icrcOmitted)
        {
            return true;
        }
        final int ipId = parser.icrc().check(packet.segment(), packet.offset(), packet.length(), packet);
        if (ipId < 0)
        {
            counters.increment(SoftCounter.DROP_ICRC);
            return false;
        }
        packet.ipIdentification(ipId);
        return true;
    }

    /**
     * rxe's check_addr for a connected QP: the source is the peer its address vector names and the
     * destination is this device's address, compared in the device's family.
     */
    private boolean fromPeerToUs(final TransportQp qp, final PacketInfo packet)
    {
        if (ipv6)
        {
            final Gid peer = qp.destinationGid();
            return peer != null && packet.sourceHigh() == peer.high() && packet.sourceLow() == peer.low() &&
                packet.destinationHigh() == localHigh && packet.destinationLow() == localLow;
        }
        return packet.sourceAddress() == qp.destinationIpv4() && packet.destinationAddress() == localIpv4;
    }

    private Gid groupGid(final PacketInfo packet)
    {
        return ipv6 ? groupGid(packet.destinationHigh(), packet.destinationLow()) :
            groupGid(packet.destinationAddress());
    }

    /**
     * The MGID of an IPv4 group, from a small direct-mapped cache so that receiving on a handful of groups
     * builds no {@link Gid} per packet. Racy by design: multicast loopback uses it on a sending thread too, and
     * an entry is an immutable Gid checked against the group, so a lost or stale write costs one Gid, never a
     * wrong one.
     */
    private Gid groupGid(final int groupIpv4)
    {
        final int slot = groupIpv4 & (groupGidCache.length - 1);
        Gid gid = groupGidCache[slot];
        if (gid == null || gid.ipv4() != groupIpv4 || !gid.isIpv4Mapped())
        {
            gid = Gid.fromIpv4(groupIpv4);
            groupGidCache[slot] = gid;
        }
        return gid;
    }

    /**
     * The MGID of an IPv6 group, from the same cache as {@link #groupGid(int)}.
     */
    private Gid groupGid(final long groupHigh, final long groupLow)
    {
        final int slot = (int)groupLow & (groupGidCache.length - 1);
        Gid gid = groupGidCache[slot];
        if (gid == null || gid.high() != groupHigh || gid.low() != groupLow)
        {
            gid = new Gid(groupHigh, groupLow);
            groupGidCache[slot] = gid;
        }
        return gid;
    }


    private static int transportBit(final QpType type)
    {
        return switch (type)
        {
            case RC -> OpcodeMask.RC;
            case UC -> OpcodeMask.UC;
            case UD -> OpcodeMask.UD;
        };
    }

    /**
     * rxe's check_type_state: requests need a responder that is ready (RTR and later, not ERR);
     * responses and ACKs need a requester that is (RTS, SQD, SQE). A packet that is neither (a
     * congestion notification) never reaches here: its opcode belongs to no QP's transport.
     */
    private static boolean stateAccepts(final QpState state, final PacketInfo packet)
    {
        if (packet.has(OpcodeMask.REQUEST))
        {
            return state == QpState.RTR || state == QpState.RTS || state == QpState.SQD || state == QpState.SQE;
        }
        return state == QpState.RTS || state == QpState.SQD || state == QpState.SQE;
    }

    private static boolean isMulticast(final int ipv4)
    {
        // 224.0.0.0/4
        return (ipv4 >>> 28) == 0xE;
    }

    /**
     * @param cause why the parser refused a packet.
     * @return the counter that cause bumps.
     */
    public static SoftCounter counterOf(final DropCause cause)
    {
        return switch (cause)
        {
            case NONE -> SoftCounter.RCVD_PKTS;
            case TOO_SHORT -> SoftCounter.DROP_TOO_SHORT;
            case UNKNOWN_OPCODE -> SoftCounter.DROP_UNKNOWN_OPCODE;
            case HEADER_TRUNCATED -> SoftCounter.DROP_HDR_TRUNCATED;
            case BAD_TRANSPORT_VERSION -> SoftCounter.DROP_BAD_TRANSPORT_VERSION;
            case BAD_QPN -> SoftCounter.DROP_BAD_QPN;
            case BAD_PKEY -> SoftCounter.DROP_BAD_PKEY;
            case BAD_PAD -> SoftCounter.DROP_BAD_PAD;
            case ICRC_MISMATCH -> SoftCounter.DROP_ICRC;
        };
    }

    private static final class LoopbackScratch
    {
        final PacketParser parser = new PacketParser();
        final PacketInfo packet = new PacketInfo();
        final DatagramInfo info = new DatagramInfo();
    }
}
