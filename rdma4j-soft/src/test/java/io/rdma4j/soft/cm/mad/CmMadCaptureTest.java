package io.rdma4j.soft.cm.mad;

import io.rdma4j.soft.wire.BthFlyweight;
import io.rdma4j.soft.wire.Captures;
import io.rdma4j.soft.wire.DethFlyweight;
import io.rdma4j.soft.wire.PcapReader;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The CM codecs against every CM MAD in the rxe captures: each MAD is decoded field by field with the getters and
 * rebuilt with the setters in fresh zeroed memory, which must give back the captured bytes exactly. A field at a
 * wrong offset, a wrong mask or a field without accessors breaks that for every non-zero value the captures hold;
 * the concrete values below come from tshark's decode of the same frames and pin the zero ones too.
 */
class CmMadCaptureTest
{
    /** UD packets carry BTH then DETH before the MAD. */
    private static final int MAD_IN_PAYLOAD = BthFlyweight.LENGTH + DethFlyweight.LENGTH;
    private static final int ICRC_LENGTH = 4;
    private static final int GSI_QPN = 1;
    private static final int MAD_OFFSET = 0;

    /**
     * One CM MAD from a capture.
     *
     * @param capture  the pcap's file name.
     * @param datagram the UDP datagram that carried it.
     * @param mad      a copy of the 256 MAD bytes.
     */
    record CapturedMad(String capture, PcapReader.Datagram datagram, MemorySegment mad)
    {
        int frame()
        {
            return datagram.frame();
        }

        int attributeId()
        {
            return CmMad.attributeId(mad, MAD_OFFSET);
        }

        @Override
        public String toString()
        {
            return capture + " frame " + datagram.frame();
        }
    }

    private static final List<CapturedMad> MADS = load();

    private final CmMad header = new CmMad();
    private final CmReq req = new CmReq();
    private final CmRep rep = new CmRep();
    private final CmRtu rtu = new CmRtu();
    private final CmDreq dreq = new CmDreq();
    private final CmDrep drep = new CmDrep();
    private final SidrReq sidrReq = new SidrReq();
    private final SidrRep sidrRep = new SidrRep();
    private final CmaHeader cma = new CmaHeader();

    private static List<CapturedMad> load()
    {
        final List<CapturedMad> mads = new ArrayList<>();
        for (final Path pcap : Captures.pcaps())
        {
            for (final PcapReader.Datagram d : Captures.datagrams(pcap))
            {
                final byte[] payload = d.payload();
                if (payload.length >= BthFlyweight.LENGTH &&
                    BthFlyweight.destQp(MemorySegment.ofArray(payload), 0) == GSI_QPN)
                {
                    assertEquals(MAD_IN_PAYLOAD + CmMad.MAD_LENGTH + ICRC_LENGTH, payload.length,
                        pcap.getFileName() + " frame " + d.frame() + ": a GSI datagram holds exactly one MAD");
                    final byte[] mad = Arrays.copyOfRange(payload, MAD_IN_PAYLOAD, MAD_IN_PAYLOAD + CmMad.MAD_LENGTH);
                    mads.add(new CapturedMad(pcap.getFileName().toString(), d, MemorySegment.ofArray(mad)));
                }
            }
        }
        return List.copyOf(mads);
    }

    private static CapturedMad mad(final String capture, final int frame)
    {
        return MADS.stream()
            .filter(m -> m.capture().equals(capture) && m.frame() == frame)
            .findFirst()
            .orElseThrow(() -> new AssertionError(capture + " frame " + frame + " holds no CM MAD"));
    }

    private static PcapReader.Datagram datagram(final String capture, final int frame)
    {
        return Captures.pcaps().stream()
            .filter(p -> p.getFileName().toString().equals(capture))
            .flatMap(p -> Captures.datagrams(p).stream())
            .filter(d -> d.frame() == frame)
            .findFirst()
            .orElseThrow();
    }

    private static int ipv4(final int a, final int b, final int c, final int d)
    {
        return a << 24 | b << 16 | c << 8 | d;
    }

    @Test
    void shouldFindTheMessageTypesTheCapturesHold()
    {
        final Set<Integer> seen =
            MADS.stream().map(CapturedMad::attributeId).collect(Collectors.toCollection(TreeSet::new));

        assertEquals(50, MADS.size(), "CM MADs over all captures");
        assertEquals(Set.of(CmMad.ATTR_REQ, CmMad.ATTR_REP, CmMad.ATTR_RTU, CmMad.ATTR_DREQ, CmMad.ATTR_DREP,
            CmMad.ATTR_SIDR_REQ, CmMad.ATTR_SIDR_REP), seen, "no MRA, REJ, LAP or APR was captured");
        for (final String capture : List.of("rping.pcap", "udaddy.pcap", "send_lat_rc_cm.pcap", "send_lat_ud_cm.pcap"))
        {
            assertTrue(MADS.stream().anyMatch(m -> m.capture().equals(capture)), capture);
        }
    }

    @Test
    void shouldRecogniseEveryCapturedMadAsCm()
    {
        for (final CapturedMad m : MADS)
        {
            assertTrue(CmMad.looksLikeCm(m.mad(), MAD_OFFSET, CmMad.MAD_LENGTH), m::toString);
            assertFalse(CmMad.looksLikeCm(m.mad(), MAD_OFFSET, CmMad.MAD_LENGTH - 1), m::toString);
            assertFalse(CmMad.looksLikeCm(m.mad(), 1, CmMad.MAD_LENGTH), m::toString);
        }
    }

    @Test
    void shouldRebuildEveryCapturedMadByteForByteFromItsFields()
    {
        for (final CapturedMad m : MADS)
        {
            final MemorySegment out = MemorySegment.ofArray(new byte[CmMad.MAD_LENGTH]);
            copyHeader(m.mad(), out);
            switch (m.attributeId())
            {
                case CmMad.ATTR_REQ -> copyReq(m.mad(), out);
                case CmMad.ATTR_REP -> copyRep(m.mad(), out);
                case CmMad.ATTR_RTU -> copyRtu(m.mad(), out);
                case CmMad.ATTR_DREQ -> copyDreq(m.mad(), out);
                case CmMad.ATTR_DREP -> copyDrep(m.mad(), out);
                case CmMad.ATTR_SIDR_REQ -> copySidrReq(m.mad(), out);
                case CmMad.ATTR_SIDR_REP -> copySidrRep(m.mad(), out);
                default -> fail(m + ": no codec test for attribute 0x" + Integer.toHexString(m.attributeId()));
            }
            assertArrayEquals(m.mad().toArray(ValueLayout.JAVA_BYTE), out.toArray(ValueLayout.JAVA_BYTE),
                m::toString);
        }
    }

    @Test
    void shouldReadRpingConnectRequestAsTsharkDecodesIt()
    {
        final CapturedMad m = mad("rping.pcap", 1);
        header.wrap(m.mad(), MAD_OFFSET);
        assertEquals(CmMad.BASE_VERSION, header.baseVersion());
        assertEquals(CmMad.MGMT_CLASS_CM, header.mgmtClass());
        assertEquals(CmMad.CLASS_VERSION, header.classVersion());
        assertEquals(CmMad.METHOD_SEND, header.method());
        assertEquals(0, header.status());
        assertEquals(0, header.classSpecific());
        assertEquals(0x0000_0002_9974_FCECL, header.transactionId());
        assertEquals(CmMad.ATTR_REQ, header.attributeId());
        assertEquals(0, header.attributeModifier());

        req.wrap(m.mad(), MAD_OFFSET);
        assertEquals(0xECFC_7499, req.localCommId());
        assertEquals(0, req.vendorId());
        assertEquals(0x0000_0000_0106_1C06L, req.serviceId());
        assertEquals(ServiceId.PS_TCP, ServiceId.portSpace(req.serviceId()));
        assertEquals(7174, ServiceId.port(req.serviceId()));
        assertEquals(0x5054_00FF_FE77_000CL, req.localCaGuid(), "EUI-64 of vmb's MAC 52:54:00:77:00:0c");
        assertEquals(0, req.localQkey());
        assertEquals(0x16, req.localQpn());
        assertEquals(1, req.responderResources());
        assertEquals(0, req.localEecn());
        assertEquals(1, req.initiatorDepth());
        assertEquals(0, req.remoteEecn());
        assertEquals(20, req.remoteCmResponseTimeout());
        assertEquals(CmReq.TRANSPORT_RC, req.transportServiceType());
        assertFalse(req.endToEndFlowControl());
        assertEquals(0xF3ACB5, req.startingPsn());
        assertEquals(20, req.localCmResponseTimeout());
        assertEquals(7, req.retryCount());
        assertEquals(0xFFFF, req.partitionKey());
        assertEquals(3, req.pathMtu(), "1024 bytes, the iboe MTU of a 1500-byte netdev");
        assertFalse(req.rdcExists());
        assertEquals(7, req.rnrRetryCount());
        assertEquals(15, req.maxCmRetries());
        assertFalse(req.srq());
        assertEquals(0, req.extendedTransportType());

        final PcapReader.Datagram d = m.datagram();
        assertEquals(0xFFFF, req.primaryLocalPortLid(), "hop limit > 1: LIDs are the permissive 0xFFFF");
        assertEquals(0xFFFF, req.primaryRemotePortLid());
        assertEquals(0, req.primaryLocalPortGidHigh());
        assertEquals(0x0000_FFFF_0000_0000L | Integer.toUnsignedLong(d.sourceAddress()), req.primaryLocalPortGidLow());
        assertEquals(0, req.primaryRemotePortGidHigh());
        assertEquals(0x0000_FFFF_0000_0000L | Integer.toUnsignedLong(d.destinationAddress()),
            req.primaryRemotePortGidLow());
        assertEquals(ipv4(10, 77, 0, 12), d.sourceAddress());
        assertEquals(0, req.primaryPacketRate());
        assertEquals(d.tos(), req.primaryTrafficClass());
        assertEquals(64, req.primaryHopLimit());
        assertEquals(d.ttl(), req.primaryHopLimit());
        assertEquals(0, req.primarySl());
        assertFalse(req.primarySubnetLocal());
        assertEquals(19, req.primaryLocalAckTimeout(), "cm_ack_timeout(15, 18)");
        final byte[] alternate = new byte[CmReq.PATH_LENGTH];
        assertEquals(CmReq.PATH_LENGTH, req.alternatePath(alternate));
        assertArrayEquals(new byte[CmReq.PATH_LENGTH], alternate);

        cma.wrap(m.mad(), req.privateDataOffset());
        assertEquals(CmaHeader.CMA_VERSION, cma.version());
        assertEquals(CmaHeader.IPV4, cma.ipVersion());
        assertEquals(0xAC20, cma.sourcePort());
        assertEquals(d.sourceAddress(), cma.sourceIpv4());
        assertEquals(d.destinationAddress(), cma.destinationIpv4());
        assertEquals(0, cma.sourceAddressHigh());
        assertEquals(Integer.toUnsignedLong(d.sourceAddress()), cma.sourceAddressLow(), "no ::ffff: prefix");
        assertEquals(0, cma.destinationAddressHigh());
        assertEquals(Integer.toUnsignedLong(d.destinationAddress()), cma.destinationAddressLow());
        assertEquals(0x4F3E6, req.primaryFlowLabel());
        assertEquals((cma.sourcePort() * 31 + ServiceId.port(req.serviceId())) & 0xFFFFF, req.primaryFlowLabel(),
            "rdma_cm hashes the flow label from the source and destination ports");
        final byte[] user = new byte[CmReq.PRIVATE_DATA_LENGTH];
        assertEquals(CmReq.PRIVATE_DATA_LENGTH, req.privateData(user));
        assertArrayEquals(new byte[CmReq.PRIVATE_DATA_LENGTH - CmaHeader.USER_DATA_OFFSET],
            Arrays.copyOfRange(user, CmaHeader.USER_DATA_OFFSET, user.length), "rping sends no private data");
    }

    @Test
    void shouldReadRpingReplyReadyToUseAndDisconnect()
    {
        rep.wrap(mad("rping.pcap", 2).mad(), MAD_OFFSET);
        assertEquals(0x0000_0002_9974_FCECL, header.wrap(rep.segment(), MAD_OFFSET).transactionId(),
            "a REP reuses the REQ's transaction ID");
        assertEquals(CmMad.ATTR_REP, header.attributeId());
        assertEquals(0xB8B7_BCF3, rep.localCommId());
        assertEquals(0xECFC_7499, rep.remoteCommId());
        assertEquals(0, rep.localQkey());
        assertEquals(0x16, rep.localQpn());
        assertEquals(0, rep.localEecn());
        assertEquals(0x032798, rep.startingPsn());
        assertEquals(0, rep.vendorId());
        assertEquals(1, rep.responderResources());
        assertEquals(1, rep.initiatorDepth());
        assertEquals(15, rep.targetAckDelay());
        assertEquals(CmRep.FAILOVER_ACCEPTED, rep.failoverAccepted());
        assertFalse(rep.endToEndFlowControl());
        assertEquals(7, rep.rnrRetryCount());
        assertFalse(rep.srq());
        assertEquals(0x5054_00FF_FE77_000BL, rep.localCaGuid());

        rtu.wrap(mad("rping.pcap", 3).mad(), MAD_OFFSET);
        assertEquals(CmMad.ATTR_RTU, header.wrap(rtu.segment(), MAD_OFFSET).attributeId());
        assertEquals(0x0000_0002_9974_FCECL, header.transactionId());
        assertEquals(0xECFC_7499, rtu.localCommId());
        assertEquals(0xB8B7_BCF3, rtu.remoteCommId());

        dreq.wrap(mad("rping.pcap", 40).mad(), MAD_OFFSET);
        assertEquals(CmMad.ATTR_DREQ, header.wrap(dreq.segment(), MAD_OFFSET).attributeId());
        assertEquals(0x0000_0002_9974_FCECL, header.transactionId());
        assertEquals(0xECFC_7499, dreq.localCommId());
        assertEquals(0xB8B7_BCF3, dreq.remoteCommId());
        assertEquals(0x16, dreq.remoteQpn());

        drep.wrap(mad("rping.pcap", 41).mad(), MAD_OFFSET);
        assertEquals(CmMad.ATTR_DREP, header.wrap(drep.segment(), MAD_OFFSET).attributeId());
        assertEquals(0xB8B7_BCF3, drep.localCommId());
        assertEquals(0xECFC_7499, drep.remoteCommId());
    }

    /**
     * The captured data path says how Linux uses the two Starting PSNs: the passive side (10.77.0.11) sends from
     * the REQ's, the active side from the REP's; and each side sends to the QPN the other advertised.
     */
    @Test
    void shouldMatchTheRpingDataPathToTheNegotiatedQpnsAndPsns()
    {
        req.wrap(mad("rping.pcap", 1).mad(), MAD_OFFSET);
        rep.wrap(mad("rping.pcap", 2).mad(), MAD_OFFSET);
        final PcapReader.Datagram activeFirst = datagram("rping.pcap", 4);
        final PcapReader.Datagram passiveFirst = datagram("rping.pcap", 6);

        assertEquals(ipv4(10, 77, 0, 12), activeFirst.sourceAddress());
        assertEquals(ipv4(10, 77, 0, 11), passiveFirst.sourceAddress());
        assertEquals(rep.startingPsn(), BthFlyweight.psn(MemorySegment.ofArray(activeFirst.payload()), 0));
        assertEquals(rep.localQpn(), BthFlyweight.destQp(MemorySegment.ofArray(activeFirst.payload()), 0));
        assertEquals(req.startingPsn(), BthFlyweight.psn(MemorySegment.ofArray(passiveFirst.payload()), 0));
        assertEquals(req.localQpn(), BthFlyweight.destQp(MemorySegment.ofArray(passiveFirst.payload()), 0));
    }

    @Test
    void shouldReadUdaddyServiceIdResolution()
    {
        final CapturedMad request = mad("udaddy.pcap", 1);
        header.wrap(request.mad(), MAD_OFFSET);
        assertEquals(CmMad.ATTR_SIDR_REQ, header.attributeId());
        assertEquals(0x0000_0002_9974_FCEDL, header.transactionId());
        sidrReq.wrap(request.mad(), MAD_OFFSET);
        assertEquals(0xEDFC_7499, sidrReq.requestId());
        assertEquals(0xFFFF, sidrReq.partitionKey());
        assertEquals(0x0000_0000_0111_1C06L, sidrReq.serviceId());
        assertEquals(ServiceId.of(ServiceId.PS_UDP, 7174), sidrReq.serviceId());
        cma.wrap(request.mad(), sidrReq.privateDataOffset());
        assertEquals(CmaHeader.CMA_VERSION, cma.version());
        assertEquals(CmaHeader.IPV4, cma.ipVersion());
        assertEquals(0xDAB8, cma.sourcePort());
        assertEquals(request.datagram().sourceAddress(), cma.sourceIpv4());
        assertEquals(request.datagram().destinationAddress(), cma.destinationIpv4());
        assertEquals(ipv4(10, 77, 0, 11), cma.destinationIpv4());

        final CapturedMad reply = mad("udaddy.pcap", 2);
        header.wrap(reply.mad(), MAD_OFFSET);
        assertEquals(CmMad.ATTR_SIDR_REP, header.attributeId());
        assertEquals(0x0000_0002_9974_FCEDL, header.transactionId(), "the reply echoes the request's TID");
        sidrRep.wrap(reply.mad(), MAD_OFFSET);
        assertEquals(0xEDFC_7499, sidrRep.requestId());
        assertEquals(SidrStatus.SUCCESS, sidrRep.status());
        assertEquals(0, sidrRep.additionalInfoLength());
        assertEquals(0, sidrRep.vendorId());
        assertEquals(0x17, sidrRep.qpn());
        assertEquals(sidrReq.serviceId(), sidrRep.serviceId());
        assertEquals(0x0123_4567, sidrRep.qkey(), "rdma_cm's default UDP Q_Key");

        final PcapReader.Datagram data = datagram("udaddy.pcap", 3);
        final MemorySegment payload = MemorySegment.ofArray(data.payload());
        assertEquals(request.datagram().sourceAddress(), data.sourceAddress());
        assertEquals(sidrRep.qpn(), BthFlyweight.destQp(payload, 0), "the requester sends to the resolved QPN");
        assertEquals(sidrRep.qkey(), new DethFlyweight().wrap(payload, BthFlyweight.LENGTH).qkey());
    }

    @Test
    void shouldReadPerftestConnections()
    {
        req.wrap(mad("send_lat_rc_cm.pcap", 24).mad(), MAD_OFFSET);
        assertEquals(ServiceId.PS_TCP, ServiceId.portSpace(req.serviceId()));
        assertEquals(CmReq.TRANSPORT_RC, req.transportServiceType());
        assertEquals(0x0000_0002_9974_FCEFL, header.wrap(req.segment(), MAD_OFFSET).transactionId());
        assertEquals(CmaHeader.IPV4, cma.wrap(req.segment(), req.privateDataOffset()).ipVersion());

        sidrReq.wrap(mad("send_lat_ud_cm.pcap", 24).mad(), MAD_OFFSET);
        sidrRep.wrap(mad("send_lat_ud_cm.pcap", 25).mad(), MAD_OFFSET);
        assertEquals(ServiceId.PS_UDP, ServiceId.portSpace(sidrReq.serviceId()));
        assertEquals(sidrReq.requestId(), sidrRep.requestId());
        assertEquals(SidrStatus.SUCCESS, sidrRep.status());
        assertEquals(0x0123_4567, sidrRep.qkey());

        // both sides disconnect at once: the DREQs cross, each answered by a DREP
        dreq.wrap(mad("send_lat_ud_cm.pcap", 71).mad(), MAD_OFFSET);
        final CmDreq other = new CmDreq().wrap(mad("send_lat_ud_cm.pcap", 72).mad(), MAD_OFFSET);
        assertEquals(dreq.localCommId(), other.remoteCommId());
        assertEquals(dreq.remoteCommId(), other.localCommId());
    }

    private static void copyHeader(final MemorySegment from, final MemorySegment to)
    {
        final CmMad in = new CmMad().wrap(from, MAD_OFFSET);
        new CmMad().wrap(to, MAD_OFFSET)
            .baseVersion(in.baseVersion())
            .mgmtClass(in.mgmtClass())
            .classVersion(in.classVersion())
            .method(in.method())
            .status(in.status())
            .classSpecific(in.classSpecific())
            .transactionId(in.transactionId())
            .attributeId(in.attributeId())
            .attributeModifier(in.attributeModifier());
    }

    private static void copyReq(final MemorySegment from, final MemorySegment to)
    {
        final CmReq in = new CmReq().wrap(from, MAD_OFFSET);
        final byte[] path = new byte[CmReq.PATH_LENGTH];
        in.alternatePath(path);
        final byte[] data = new byte[CmReq.PRIVATE_DATA_LENGTH];
        in.privateData(data);
        // the rdma_cm header goes through its own codec: only the user part is copied as bytes
        Arrays.fill(data, 0, CmaHeader.LENGTH, (byte)0);
        final CmReq out = new CmReq().wrap(to, MAD_OFFSET)
            .localCommId(in.localCommId())
            .vendorId(in.vendorId())
            .serviceId(in.serviceId())
            .localCaGuid(in.localCaGuid())
            .localQkey(in.localQkey())
            .localQpn(in.localQpn())
            .responderResources(in.responderResources())
            .localEecn(in.localEecn())
            .initiatorDepth(in.initiatorDepth())
            .remoteEecn(in.remoteEecn())
            .remoteCmResponseTimeout(in.remoteCmResponseTimeout())
            .transportServiceType(in.transportServiceType())
            .endToEndFlowControl(in.endToEndFlowControl())
            .startingPsn(in.startingPsn())
            .localCmResponseTimeout(in.localCmResponseTimeout())
            .retryCount(in.retryCount())
            .partitionKey(in.partitionKey())
            .pathMtu(in.pathMtu())
            .rdcExists(in.rdcExists())
            .rnrRetryCount(in.rnrRetryCount())
            .maxCmRetries(in.maxCmRetries())
            .srq(in.srq())
            .extendedTransportType(in.extendedTransportType())
            .primaryLocalPortLid(in.primaryLocalPortLid())
            .primaryRemotePortLid(in.primaryRemotePortLid())
            .primaryLocalPortGidHigh(in.primaryLocalPortGidHigh())
            .primaryLocalPortGidLow(in.primaryLocalPortGidLow())
            .primaryRemotePortGidHigh(in.primaryRemotePortGidHigh())
            .primaryRemotePortGidLow(in.primaryRemotePortGidLow())
            .primaryFlowLabel(in.primaryFlowLabel())
            .primaryPacketRate(in.primaryPacketRate())
            .primaryTrafficClass(in.primaryTrafficClass())
            .primaryHopLimit(in.primaryHopLimit())
            .primarySl(in.primarySl())
            .primarySubnetLocal(in.primarySubnetLocal())
            .primaryLocalAckTimeout(in.primaryLocalAckTimeout())
            .alternatePath(path, path.length)
            .privateData(data, data.length);
        copyCmaHeader(from, in.privateDataOffset(), to, out.privateDataOffset());
    }

    private static void copyCmaHeader(
        final MemorySegment from, final long fromOffset, final MemorySegment to, final long toOffset)
    {
        final CmaHeader in = new CmaHeader().wrap(from, fromOffset);
        final CmaHeader out = new CmaHeader().wrap(to, toOffset)
            .version(in.version())
            .ipVersion(in.ipVersion())
            .sourcePort(in.sourcePort());
        assertEquals(CmaHeader.IPV4, in.ipVersion(), "the captures are IPv4 only");
        out.sourceIpv4(in.sourceIpv4()).destinationIpv4(in.destinationIpv4());
    }

    private static void copyRep(final MemorySegment from, final MemorySegment to)
    {
        final CmRep in = new CmRep().wrap(from, MAD_OFFSET);
        final byte[] data = new byte[CmRep.PRIVATE_DATA_LENGTH];
        in.privateData(data);
        new CmRep().wrap(to, MAD_OFFSET)
            .localCommId(in.localCommId())
            .remoteCommId(in.remoteCommId())
            .localQkey(in.localQkey())
            .localQpn(in.localQpn())
            .localEecn(in.localEecn())
            .startingPsn(in.startingPsn())
            .vendorId(in.vendorId())
            .responderResources(in.responderResources())
            .initiatorDepth(in.initiatorDepth())
            .targetAckDelay(in.targetAckDelay())
            .failoverAccepted(in.failoverAccepted())
            .endToEndFlowControl(in.endToEndFlowControl())
            .rnrRetryCount(in.rnrRetryCount())
            .srq(in.srq())
            .localCaGuid(in.localCaGuid())
            .privateData(data, data.length);
    }

    private static void copyRtu(final MemorySegment from, final MemorySegment to)
    {
        final CmRtu in = new CmRtu().wrap(from, MAD_OFFSET);
        final byte[] data = new byte[CmRtu.PRIVATE_DATA_LENGTH];
        in.privateData(data);
        new CmRtu().wrap(to, MAD_OFFSET)
            .localCommId(in.localCommId())
            .remoteCommId(in.remoteCommId())
            .privateData(data, data.length);
    }

    private static void copyDreq(final MemorySegment from, final MemorySegment to)
    {
        final CmDreq in = new CmDreq().wrap(from, MAD_OFFSET);
        final byte[] data = new byte[CmDreq.PRIVATE_DATA_LENGTH];
        in.privateData(data);
        new CmDreq().wrap(to, MAD_OFFSET)
            .localCommId(in.localCommId())
            .remoteCommId(in.remoteCommId())
            .remoteQpn(in.remoteQpn())
            .privateData(data, data.length);
    }

    private static void copyDrep(final MemorySegment from, final MemorySegment to)
    {
        final CmDrep in = new CmDrep().wrap(from, MAD_OFFSET);
        final byte[] data = new byte[CmDrep.PRIVATE_DATA_LENGTH];
        in.privateData(data);
        new CmDrep().wrap(to, MAD_OFFSET)
            .localCommId(in.localCommId())
            .remoteCommId(in.remoteCommId())
            .privateData(data, data.length);
    }

    private static void copySidrReq(final MemorySegment from, final MemorySegment to)
    {
        final SidrReq in = new SidrReq().wrap(from, MAD_OFFSET);
        final byte[] data = new byte[SidrReq.PRIVATE_DATA_LENGTH];
        in.privateData(data);
        Arrays.fill(data, 0, CmaHeader.LENGTH, (byte)0);
        final SidrReq out = new SidrReq().wrap(to, MAD_OFFSET)
            .requestId(in.requestId())
            .partitionKey(in.partitionKey())
            .serviceId(in.serviceId())
            .privateData(data, data.length);
        copyCmaHeader(from, in.privateDataOffset(), to, out.privateDataOffset());
    }

    private static void copySidrRep(final MemorySegment from, final MemorySegment to)
    {
        final SidrRep in = new SidrRep().wrap(from, MAD_OFFSET);
        final byte[] info = new byte[SidrRep.ADDITIONAL_INFO_LENGTH];
        in.additionalInfo(info);
        final byte[] data = new byte[SidrRep.PRIVATE_DATA_LENGTH];
        in.privateData(data);
        new SidrRep().wrap(to, MAD_OFFSET)
            .requestId(in.requestId())
            .status(in.status())
            .additionalInfoLength(in.additionalInfoLength())
            .vendorId(in.vendorId())
            .qpn(in.qpn())
            .serviceId(in.serviceId())
            .qkey(in.qkey())
            .additionalInfo(info, info.length)
            .privateData(data, data.length);
    }
}
