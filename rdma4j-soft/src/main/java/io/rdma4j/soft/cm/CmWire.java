package io.rdma4j.soft.cm;

import io.rdma4j.cm.ConnParam;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.cm.mad.CmBody;
import io.rdma4j.soft.cm.mad.CmDrep;
import io.rdma4j.soft.cm.mad.CmDreq;
import io.rdma4j.soft.cm.mad.CmMad;
import io.rdma4j.soft.cm.mad.CmMra;
import io.rdma4j.soft.cm.mad.CmRej;
import io.rdma4j.soft.cm.mad.CmRep;
import io.rdma4j.soft.cm.mad.CmReq;
import io.rdma4j.soft.cm.mad.CmRtu;
import io.rdma4j.soft.cm.mad.CmaHeader;
import io.rdma4j.soft.cm.mad.ServiceId;
import io.rdma4j.soft.cm.mad.SidrRep;
import io.rdma4j.soft.cm.mad.SidrReq;
import io.rdma4j.verbs.Gid;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Turns {@link CmMessage}s into the MADs the kernel's CM sends on RoCE and back, filling what
 * rdma_cm fills: the rdma_cm header in front of a REQ's and a SIDR_REQ's private data, the path
 * of a RoCE route (IPv4-mapped GIDs, LIDs 0xFFFF beyond one hop), CM timeouts 20, 15 CM
 * retries, target ACK delay 15. Reject reasons and SIDR statuses are {@link io.rdma4j.cm.RejectReason}'s
 * and {@link io.rdma4j.soft.cm.mad.SidrStatus}'s.
 */
final class CmWire
{
    /*
     * The private data each message carries for the application: the API's limits, which are the
     * MADs' private-data fields less the rdma_cm header in front of a REQ's and a SIDR_REQ's
     * (CmWireLimitsTest holds the two to each other).
     */
    /** User private data a REQ carries after the 36-byte rdma_cm header. */
    static final int REQ_USER_DATA = ConnParam.MAX_CONNECT_PRIVATE_DATA;
    /** User private data a SIDR_REQ carries after the rdma_cm header. */
    static final int SIDR_REQ_USER_DATA = ConnParam.MAX_UD_CONNECT_PRIVATE_DATA;
    static final int REP_PRIVATE_DATA = ConnParam.MAX_ACCEPT_PRIVATE_DATA;
    static final int REJ_PRIVATE_DATA = ConnParam.MAX_REJECT_PRIVATE_DATA;
    static final int SIDR_REP_PRIVATE_DATA = ConnParam.MAX_UD_ACCEPT_PRIVATE_DATA;

    static final int REJECTED_REQ = CmRej.MESSAGE_REQ;
    static final int REJECTED_REP = CmRej.MESSAGE_REP;
    static final int REJECTED_OTHER = CmRej.MESSAGE_OTHER;
    static final int MRAED_REQ = CmMra.MESSAGE_REQ;
    static final int MRAED_REP = CmMra.MESSAGE_REP;
    /** The service timeout the kernel announces in its MRA: 4.096 µs × 2^24, about 69 s. */
    static final int MRA_SERVICE_TIMEOUT = 24;

    /** The ACK delay rxe reports (local_ca_ack_delay), which the REP carries. */
    private static final int TARGET_ACK_DELAY = 15;

    private CmWire()
    {
    }

    /**
     * @return the rdma_cm service ID of a port in a port space: (space &lt;&lt; 16) + port.
     */
    static long serviceId(final PortSpace space, final int port)
    {
        return ServiceId.of(portSpaceCode(space), port);
    }

    /**
     * @return rdma_cm's number for a port space (RDMA_PS_TCP 0x0106 and so on).
     */
    static int portSpaceCode(final PortSpace space)
    {
        return switch (space)
        {
            case TCP -> ServiceId.PS_TCP;
            case UDP -> ServiceId.PS_UDP;
            case IB -> ServiceId.PS_IB;
            case IPOIB -> ServiceId.PS_IPOIB;
        };
    }

    /**
     * @param message what to send.
     * @return the 256-byte MAD.
     */
    static byte[] encode(final CmMessage message)
    {
        final byte[] bytes = new byte[CmMad.MAD_LENGTH];
        final MemorySegment mad = MemorySegment.ofArray(bytes);
        final CmMad header = new CmMad().wrap(mad, 0);
        switch (message)
        {
            case CmMessage.Req m ->
            {
                header.initHeader(CmMad.ATTR_REQ, m.tid());
                final CmReq req = new CmReq().wrap(mad, 0);
                req.localCommId(m.localCommId()).serviceId(m.serviceId()).localCaGuid(m.caGuid()).localQkey(0)
                    .localQpn(m.qpn()).responderResources(m.responderResources()).initiatorDepth(m.initiatorDepth())
                    .remoteCmResponseTimeout(ConnectionManager.CM_RESPONSE_TIMEOUT)
                    .transportServiceType(m.transportType()).endToEndFlowControl(m.flowControl())
                    .startingPsn(m.startingPsn()).localCmResponseTimeout(ConnectionManager.CM_RESPONSE_TIMEOUT)
                    .retryCount(m.retryCount()).partitionKey(0xFFFF).pathMtu(m.pathMtu())
                    .rnrRetryCount(m.rnrRetryCount()).maxCmRetries(ConnectionManager.MAX_CM_RETRIES).srq(m.srq())
                    .primaryLocalPortLid(m.hopLimit() > 1 ? 0xFFFF : 0)
                    .primaryRemotePortLid(m.hopLimit() > 1 ? 0xFFFF : 0)
                    .primaryLocalPortGidHigh(m.srcIp().high()).primaryLocalPortGidLow(m.srcIp().low())
                    .primaryRemotePortGidHigh(m.dstIp().high()).primaryRemotePortGidLow(m.dstIp().low())
                    .primaryFlowLabel(m.flowLabel()).primaryHopLimit(m.hopLimit())
                    .primarySubnetLocal(m.hopLimit() <= 1).primaryLocalAckTimeout(m.localAckTimeout());
                final byte[] block = cmaHeader(m.srcIp(), m.dstIp(), m.srcPort(), m.userData());
                req.privateData(block, block.length);
            }
            case CmMessage.Rep m ->
            {
                header.initHeader(CmMad.ATTR_REP, m.tid());
                final CmRep rep = new CmRep().wrap(mad, 0);
                rep.localCommId(m.localCommId()).remoteCommId(m.remoteCommId()).localQkey(0).localQpn(m.qpn())
                    .startingPsn(m.startingPsn()).responderResources(m.responderResources())
                    .initiatorDepth(m.initiatorDepth()).targetAckDelay(TARGET_ACK_DELAY)
                    .endToEndFlowControl(m.flowControl()).rnrRetryCount(m.rnrRetryCount()).srq(m.srq())
                    .localCaGuid(m.caGuid());
                privateData(m.privateData(), rep);
            }
            case CmMessage.Rtu m ->
            {
                header.initHeader(CmMad.ATTR_RTU, m.tid());
                new CmRtu().wrap(mad, 0).localCommId(m.localCommId()).remoteCommId(m.remoteCommId());
            }
            case CmMessage.Rej m ->
            {
                header.initHeader(CmMad.ATTR_REJ, m.tid());
                final CmRej rej = new CmRej().wrap(mad, 0);
                rej.localCommId(m.localCommId()).remoteCommId(m.remoteCommId()).messageRejected(m.messageRejected())
                    .reason(m.reason());
                privateData(m.privateData(), rej);
            }
            case CmMessage.Mra m ->
            {
                header.initHeader(CmMad.ATTR_MRA, m.tid());
                new CmMra().wrap(mad, 0).localCommId(m.localCommId()).remoteCommId(m.remoteCommId())
                    .messageMraed(m.messageMraed()).serviceTimeout(m.serviceTimeout());
            }
            case CmMessage.Dreq m ->
            {
                header.initHeader(CmMad.ATTR_DREQ, m.tid());
                new CmDreq().wrap(mad, 0).localCommId(m.localCommId()).remoteCommId(m.remoteCommId())
                    .remoteQpn(m.remoteQpn());
            }
            case CmMessage.Drep m ->
            {
                header.initHeader(CmMad.ATTR_DREP, m.tid());
                new CmDrep().wrap(mad, 0).localCommId(m.localCommId()).remoteCommId(m.remoteCommId());
            }
            case CmMessage.SidrReq m ->
            {
                header.initHeader(CmMad.ATTR_SIDR_REQ, m.tid());
                final SidrReq req = new SidrReq().wrap(mad, 0);
                req.requestId(m.requestId()).partitionKey(0xFFFF).serviceId(m.serviceId());
                final byte[] block = cmaHeader(m.srcIp(), m.dstIp(), m.srcPort(), m.userData());
                req.privateData(block, block.length);
            }
            case CmMessage.SidrRep m ->
            {
                header.initHeader(CmMad.ATTR_SIDR_REP, m.tid());
                final SidrRep rep = new SidrRep().wrap(mad, 0);
                rep.requestId(m.requestId()).status(m.status()).qpn(m.qpn()).serviceId(m.serviceId()).qkey(m.qkey());
                privateData(m.privateData(), rep);
            }
        }
        return bytes;
    }

    /**
     * @param bytes a MAD from QP1.
     * @return its message, or null for anything that is not a CM message rdma_cm would accept
     * (other classes, versions or attributes; an rdma_cm header of another version or family).
     */
    static CmMessage decode(final byte[] bytes)
    {
        final MemorySegment mad = MemorySegment.ofArray(bytes);
        if (!CmMad.looksLikeCm(mad, 0, bytes.length))
        {
            return null;
        }
        final CmMad header = new CmMad().wrap(mad, 0);
        final long tid = header.transactionId();
        return switch (header.attributeId())
        {
            case CmMad.ATTR_REQ -> decodeReq(mad, tid);
            case CmMad.ATTR_REP ->
            {
                final CmRep rep = new CmRep().wrap(mad, 0);
                final byte[] data = new byte[CmRep.PRIVATE_DATA_LENGTH];
                rep.privateData(data);
                yield new CmMessage.Rep(tid, rep.localCommId(), rep.remoteCommId(), rep.localQpn(), rep.startingPsn(),
                    rep.responderResources(), rep.initiatorDepth(), rep.endToEndFlowControl(), rep.rnrRetryCount(),
                    rep.srq(), rep.localCaGuid(), data);
            }
            case CmMad.ATTR_RTU ->
            {
                final CmRtu rtu = new CmRtu().wrap(mad, 0);
                yield new CmMessage.Rtu(tid, rtu.localCommId(), rtu.remoteCommId());
            }
            case CmMad.ATTR_REJ ->
            {
                final CmRej rej = new CmRej().wrap(mad, 0);
                final byte[] data = new byte[CmRej.PRIVATE_DATA_LENGTH];
                rej.privateData(data);
                yield new CmMessage.Rej(tid, rej.localCommId(), rej.remoteCommId(), rej.messageRejected(),
                    rej.reason(), data);
            }
            case CmMad.ATTR_MRA ->
            {
                final CmMra mra = new CmMra().wrap(mad, 0);
                yield new CmMessage.Mra(tid, mra.localCommId(), mra.remoteCommId(), mra.messageMraed(),
                    mra.serviceTimeout());
            }
            case CmMad.ATTR_DREQ ->
            {
                final CmDreq dreq = new CmDreq().wrap(mad, 0);
                yield new CmMessage.Dreq(tid, dreq.localCommId(), dreq.remoteCommId(), dreq.remoteQpn());
            }
            case CmMad.ATTR_DREP ->
            {
                final CmDrep drep = new CmDrep().wrap(mad, 0);
                yield new CmMessage.Drep(tid, drep.localCommId(), drep.remoteCommId());
            }
            case CmMad.ATTR_SIDR_REQ -> decodeSidrReq(mad, tid);
            case CmMad.ATTR_SIDR_REP ->
            {
                final SidrRep rep = new SidrRep().wrap(mad, 0);
                final byte[] data = new byte[SidrRep.PRIVATE_DATA_LENGTH];
                rep.privateData(data);
                yield new CmMessage.SidrRep(tid, rep.requestId(), rep.status(), rep.qpn(), rep.serviceId(), rep.qkey(),
                    data);
            }
            default -> null;
        };
    }

    private static CmMessage decodeReq(final MemorySegment mad, final long tid)
    {
        final CmReq req = new CmReq().wrap(mad, 0);
        final byte[] data = new byte[CmReq.PRIVATE_DATA_LENGTH];
        req.privateData(data);
        final CmaHeader cma = new CmaHeader().wrap(MemorySegment.ofArray(data), 0);
        if (cma.version() != 0 || !knownIpVersion(cma))
        {
            return null;
        }
        return CmMessage.Req.builder()
            .tid(tid)
            .localCommId(req.localCommId())
            .serviceId(req.serviceId())
            .caGuid(req.localCaGuid())
            .qpn(req.localQpn())
            .responderResources(req.responderResources())
            .initiatorDepth(req.initiatorDepth())
            .transportType(req.transportServiceType())
            .flowControl(req.endToEndFlowControl())
            .startingPsn(req.startingPsn())
            .retryCount(req.retryCount())
            .rnrRetryCount(req.rnrRetryCount())
            .pathMtu(req.pathMtu())
            .srq(req.srq())
            .localAckTimeout(req.primaryLocalAckTimeout())
            .flowLabel(req.primaryFlowLabel())
            .hopLimit(req.primaryHopLimit())
            .srcIp(source(cma))
            .dstIp(destination(cma))
            .srcPort(cma.sourcePort())
            .userData(Arrays.copyOfRange(data, CmaHeader.LENGTH, data.length))
            .build();
    }

    private static CmMessage decodeSidrReq(final MemorySegment mad, final long tid)
    {
        final SidrReq req = new SidrReq().wrap(mad, 0);
        final byte[] data = new byte[SidrReq.PRIVATE_DATA_LENGTH];
        req.privateData(data);
        final CmaHeader cma = new CmaHeader().wrap(MemorySegment.ofArray(data), 0);
        if (cma.version() != 0 || !knownIpVersion(cma))
        {
            return null;
        }
        return new CmMessage.SidrReq(tid, req.requestId(), req.serviceId(), source(cma), destination(cma),
            cma.sourcePort(), Arrays.copyOfRange(data, CmaHeader.LENGTH, data.length));
    }

    private static boolean knownIpVersion(final CmaHeader cma)
    {
        return cma.ipVersion() == CmaHeader.IPV4 || cma.ipVersion() == CmaHeader.IPV6;
    }

    /** The header's source address as a GID: IPv4-mapped when the header says IPv4. */
    private static Gid source(final CmaHeader cma)
    {
        return cma.ipVersion() == CmaHeader.IPV4 ? Gid.fromIpv4(cma.sourceIpv4()) :
            new Gid(cma.sourceAddressHigh(), cma.sourceAddressLow());
    }

    private static Gid destination(final CmaHeader cma)
    {
        return cma.ipVersion() == CmaHeader.IPV4 ? Gid.fromIpv4(cma.destinationIpv4()) :
            new Gid(cma.destinationAddressHigh(), cma.destinationAddressLow());
    }

    /**
     * The rdma_cm header followed by the user's data, as one private-data block: IP version 4 with the addresses
     * in the last four bytes of their fields when both are IPv4-mapped GIDs, else IP version 6 with all sixteen.
     */
    private static byte[] cmaHeader(final Gid srcIp, final Gid dstIp, final int srcPort, final byte[] userData)
    {
        final byte[] data = new byte[CmaHeader.LENGTH + (userData == null ? 0 : userData.length)];
        final CmaHeader cma = new CmaHeader().wrap(MemorySegment.ofArray(data), 0).version(0).sourcePort(srcPort);
        if (srcIp.isIpv4Mapped() && dstIp.isIpv4Mapped())
        {
            cma.ipVersion(CmaHeader.IPV4).sourceIpv4(srcIp.ipv4()).destinationIpv4(dstIp.ipv4());
        }
        else
        {
            cma.ipVersion(CmaHeader.IPV6).sourceAddressHigh(srcIp.high()).sourceAddressLow(srcIp.low())
                .destinationAddressHigh(dstIp.high()).destinationAddressLow(dstIp.low());
        }
        if (userData != null)
        {
            System.arraycopy(userData, 0, data, CmaHeader.LENGTH, userData.length);
        }
        return data;
    }

    private static void privateData(final byte[] data, final CmBody<?> body)
    {
        if (data != null)
        {
            body.privateData(data, data.length);
        }
    }
}
