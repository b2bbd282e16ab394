package io.rdma4j.soft.cm.mad;

import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RejectReason;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each message built the way a sender would, with every field set and the bit fields that share a byte set to
 * their extremes next to each other (a 5-bit timeout of 31 beside a 3-bit count of 0 and the other way round),
 * then read back: a setter that spills into its neighbour or a getter that reads one shows here.
 */
class CmMadBuildTest
{
    private static final long TID = 0x0000_0002_9974_FCECL;

    private final MemorySegment mad = Arena.ofAuto().allocate(CmMad.MAD_LENGTH);
    private final CmMad header = new CmMad().wrap(mad, 0);

    private static byte[] pattern(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed + i * 7);
        }
        return bytes;
    }

    @Test
    void shouldInitialiseTheHeaderAsLinuxDoesAndZeroTheRest()
    {
        mad.fill((byte)0xA5);
        header.initHeader(CmMad.ATTR_REQ, TID);

        final byte[] bytes = mad.toArray(ValueLayout.JAVA_BYTE);
        final String expected = "01070203" + "0000" + "0000" + "000000029974fcec" + "0010" + "0000" + "00000000";
        assertArrayEquals(HexFormat.of().parseHex(expected), Arrays.copyOf(bytes, CmMad.HEADER_LENGTH));
        assertArrayEquals(new byte[CmMad.MAD_LENGTH - CmMad.HEADER_LENGTH],
            Arrays.copyOfRange(bytes, CmMad.HEADER_LENGTH, CmMad.MAD_LENGTH));
        assertEquals(CmMad.BASE_VERSION, header.baseVersion());
        assertEquals(CmMad.MGMT_CLASS_CM, header.mgmtClass());
        assertEquals(CmMad.CLASS_VERSION, header.classVersion());
        assertEquals(CmMad.METHOD_SEND, header.method());
        assertEquals(0, header.status());
        assertEquals(0, header.classSpecific());
        assertEquals(TID, header.transactionId());
        assertEquals(CmMad.ATTR_REQ, header.attributeId());
        assertEquals(CmMad.ATTR_REQ, CmMad.attributeId(mad, 0));
        assertEquals(0, header.attributeModifier());
        assertTrue(CmMad.looksLikeCm(mad, 0, CmMad.MAD_LENGTH));
    }

    @Test
    void shouldBuildAndReadBackAReq()
    {
        header.initHeader(CmMad.ATTR_REQ, TID);
        final byte[] path = pattern(CmReq.PATH_LENGTH, 3);
        final CmReq req = new CmReq().wrap(mad, 0)
            .localCommId(0xFFFF_FFFF)
            .vendorId(0xFFFFFF)
            .serviceId(ServiceId.of(ServiceId.PS_TCP, 7174))
            .localCaGuid(0x5054_00FF_FE77_000CL)
            .localQkey(0x8001_0000)
            .localQpn(0xFFFFFF)
            .responderResources(0)
            .localEecn(0)
            .initiatorDepth(0xFF)
            .remoteEecn(0xFFFFFF)
            .remoteCmResponseTimeout(31)
            .transportServiceType(0)
            .endToEndFlowControl(true)
            .startingPsn(0xFFFFFF)
            .localCmResponseTimeout(0)
            .retryCount(7)
            .partitionKey(0xFFFF)
            .pathMtu(15)
            .rdcExists(false)
            .rnrRetryCount(7)
            .maxCmRetries(0)
            .srq(true)
            .extendedTransportType(0)
            .primaryLocalPortLid(0xFFFF)
            .primaryRemotePortLid(0)
            .primaryLocalPortGidHigh(0)
            .primaryLocalPortGidLow(0x0000_FFFF_0A4D_000CL)
            .primaryRemotePortGidHigh(-1L)
            .primaryRemotePortGidLow(0x0000_FFFF_0A4D_000BL)
            .primaryFlowLabel(0xFFFFF)
            .primaryPacketRate(0)
            .primaryTrafficClass(0xB8)
            .primaryHopLimit(0xFF)
            .primarySl(0)
            .primarySubnetLocal(true)
            .primaryLocalAckTimeout(31)
            .alternatePath(path, path.length)
            .privateData(pattern(CmReq.PRIVATE_DATA_LENGTH, 9), CmReq.PRIVATE_DATA_LENGTH);
        new CmaHeader().wrap(mad, req.privateDataOffset())
            .version(CmaHeader.CMA_VERSION)
            .ipVersion(CmaHeader.IPV4)
            .sourcePort(0xFFFF)
            .sourceIpv4(0x0A4D_000C)
            .destinationIpv4(0xFFFF_FFFF);

        final CmReq in = new CmReq().wrap(mad, 0);
        assertEquals(0xFFFF_FFFF, in.localCommId());
        assertEquals(0xFFFFFF, in.vendorId());
        assertEquals(0x0106_1C06L, in.serviceId());
        assertEquals(0x5054_00FF_FE77_000CL, in.localCaGuid());
        assertEquals(0x8001_0000, in.localQkey());
        assertEquals(0xFFFFFF, in.localQpn());
        assertEquals(0, in.responderResources());
        assertEquals(0, in.localEecn());
        assertEquals(0xFF, in.initiatorDepth());
        assertEquals(0xFFFFFF, in.remoteEecn());
        assertEquals(31, in.remoteCmResponseTimeout());
        assertEquals(0, in.transportServiceType());
        assertTrue(in.endToEndFlowControl());
        assertEquals(0xFFFFFF, in.startingPsn());
        assertEquals(0, in.localCmResponseTimeout());
        assertEquals(7, in.retryCount());
        assertEquals(0xFFFF, in.partitionKey());
        assertEquals(15, in.pathMtu());
        assertFalse(in.rdcExists());
        assertEquals(7, in.rnrRetryCount());
        assertEquals(0, in.maxCmRetries());
        assertTrue(in.srq());
        assertEquals(0, in.extendedTransportType());
        assertEquals(0xFFFF, in.primaryLocalPortLid());
        assertEquals(0, in.primaryRemotePortLid());
        assertEquals(0, in.primaryLocalPortGidHigh());
        assertEquals(0x0000_FFFF_0A4D_000CL, in.primaryLocalPortGidLow());
        assertEquals(-1L, in.primaryRemotePortGidHigh());
        assertEquals(0x0000_FFFF_0A4D_000BL, in.primaryRemotePortGidLow());
        assertEquals(0xFFFFF, in.primaryFlowLabel());
        assertEquals(0, in.primaryPacketRate());
        assertEquals(0xB8, in.primaryTrafficClass());
        assertEquals(0xFF, in.primaryHopLimit());
        assertEquals(0, in.primarySl());
        assertTrue(in.primarySubnetLocal());
        assertEquals(31, in.primaryLocalAckTimeout());
        final byte[] pathBack = new byte[CmReq.PATH_LENGTH];
        in.alternatePath(pathBack);
        assertArrayEquals(path, pathBack);

        final CmaHeader cma = new CmaHeader().wrap(mad, in.privateDataOffset());
        assertEquals(CmaHeader.CMA_VERSION, cma.version());
        assertEquals(CmaHeader.IPV4, cma.ipVersion());
        assertEquals(0xFFFF, cma.sourcePort());
        assertEquals(0x0A4D_000C, cma.sourceIpv4());
        assertEquals(0xFFFF_FFFF, cma.destinationIpv4());
        final byte[] data = new byte[CmReq.PRIVATE_DATA_LENGTH];
        in.privateData(data);
        assertArrayEquals(Arrays.copyOfRange(pattern(CmReq.PRIVATE_DATA_LENGTH, 9), CmaHeader.USER_DATA_OFFSET,
            CmReq.PRIVATE_DATA_LENGTH), Arrays.copyOfRange(data, CmaHeader.USER_DATA_OFFSET, data.length));
        assertEquals(TID, header.transactionId(), "the body never touches the header");

        // now the other way round in every shared byte
        in.remoteCmResponseTimeout(0).transportServiceType(3).endToEndFlowControl(false)
            .localCmResponseTimeout(31).retryCount(0)
            .pathMtu(0).rdcExists(true).rnrRetryCount(0)
            .maxCmRetries(15).srq(false).extendedTransportType(7)
            .primaryFlowLabel(0).primaryPacketRate(0x3F)
            .primarySl(15).primarySubnetLocal(false).primaryLocalAckTimeout(0)
            .responderResources(0xFF).localQpn(0).initiatorDepth(0).localEecn(0xFFFFFF)
            .vendorId(0).localCommId(0);
        assertEquals(0, in.remoteCmResponseTimeout());
        assertEquals(3, in.transportServiceType());
        assertFalse(in.endToEndFlowControl());
        assertEquals(0xFFFFFF, in.remoteEecn());
        assertEquals(31, in.localCmResponseTimeout());
        assertEquals(0, in.retryCount());
        assertEquals(0xFFFFFF, in.startingPsn());
        assertEquals(0, in.pathMtu());
        assertTrue(in.rdcExists());
        assertEquals(0, in.rnrRetryCount());
        assertEquals(15, in.maxCmRetries());
        assertFalse(in.srq());
        assertEquals(7, in.extendedTransportType());
        assertEquals(0xFFFF, in.partitionKey());
        assertEquals(0, in.primaryFlowLabel());
        assertEquals(0x3F, in.primaryPacketRate());
        assertEquals(0xB8, in.primaryTrafficClass());
        assertEquals(15, in.primarySl());
        assertFalse(in.primarySubnetLocal());
        assertEquals(0, in.primaryLocalAckTimeout());
        assertEquals(0xFF, in.primaryHopLimit());
        assertEquals(0xFF, in.responderResources());
        assertEquals(0, in.localQpn());
        assertEquals(0, in.initiatorDepth());
        assertEquals(0xFFFFFF, in.localEecn());
        assertEquals(0, in.vendorId());
        assertEquals(0, in.localCommId());
        assertEquals(0x0106_1C06L, in.serviceId());
    }

    @Test
    void shouldBuildAndReadBackARep()
    {
        header.initHeader(CmMad.ATTR_REP, TID);
        final CmRep rep = new CmRep().wrap(mad, 0)
            .localCommId(0xB8B7_BCF3)
            .remoteCommId(0xECFC_7499)
            .localQkey(-1)
            .localQpn(0xFFFFFF)
            .vendorId(0x123456)
            .localEecn(0)
            .startingPsn(0xFFFFFF)
            .responderResources(0xFF)
            .initiatorDepth(0)
            .targetAckDelay(31)
            .failoverAccepted(0)
            .endToEndFlowControl(true)
            .rnrRetryCount(7)
            .srq(false)
            .localCaGuid(0x5054_00FF_FE77_000BL)
            .privateData(pattern(5, 1), 5);

        assertEquals(0xB8B7_BCF3, rep.localCommId());
        assertEquals(0xECFC_7499, rep.remoteCommId());
        assertEquals(-1, rep.localQkey());
        assertEquals(0xFFFFFF, rep.localQpn());
        assertEquals(0x123456, rep.vendorId());
        assertEquals(0, rep.localEecn());
        assertEquals(0xFFFFFF, rep.startingPsn());
        assertEquals(0xFF, rep.responderResources());
        assertEquals(0, rep.initiatorDepth());
        assertEquals(31, rep.targetAckDelay());
        assertEquals(0, rep.failoverAccepted());
        assertTrue(rep.endToEndFlowControl());
        assertEquals(7, rep.rnrRetryCount());
        assertFalse(rep.srq());
        assertEquals(0x5054_00FF_FE77_000BL, rep.localCaGuid());
        final byte[] data = new byte[CmRep.PRIVATE_DATA_LENGTH];
        assertEquals(CmRep.PRIVATE_DATA_LENGTH, rep.privateData(data));
        assertArrayEquals(pattern(5, 1), Arrays.copyOf(data, 5));
        assertArrayEquals(new byte[CmRep.PRIVATE_DATA_LENGTH - 5], Arrays.copyOfRange(data, 5, data.length));

        rep.localQpn(0).localEecn(0xFFFFFF).startingPsn(0).vendorId(0xFFFFFF)
            .targetAckDelay(0).failoverAccepted(3).endToEndFlowControl(false).rnrRetryCount(0).srq(true);
        assertEquals(0, rep.localQpn());
        assertEquals(0xFFFFFF, rep.localEecn());
        assertEquals(0, rep.startingPsn());
        assertEquals(0xFFFFFF, rep.vendorId());
        assertEquals(0, rep.targetAckDelay());
        assertEquals(3, rep.failoverAccepted());
        assertFalse(rep.endToEndFlowControl());
        assertEquals(0, rep.rnrRetryCount());
        assertTrue(rep.srq());
        assertEquals(0xFF, rep.responderResources());
        assertEquals(0, rep.initiatorDepth());
        assertEquals(-1, rep.localQkey());
        assertEquals(0x5054_00FF_FE77_000BL, rep.localCaGuid());
    }

    @Test
    void shouldBuildAndReadBackRtuDreqAndDrep()
    {
        header.initHeader(CmMad.ATTR_RTU, TID);
        final CmRtu rtu = new CmRtu().wrap(mad, 0).localCommId(-1).remoteCommId(0x0102_0304)
            .privateData(pattern(CmRtu.PRIVATE_DATA_LENGTH, 5), CmRtu.PRIVATE_DATA_LENGTH);
        assertEquals(-1, rtu.localCommId());
        assertEquals(0x0102_0304, rtu.remoteCommId());
        final byte[] rtuData = new byte[CmRtu.PRIVATE_DATA_LENGTH];
        rtu.privateData(rtuData);
        assertArrayEquals(pattern(CmRtu.PRIVATE_DATA_LENGTH, 5), rtuData);

        header.initHeader(CmMad.ATTR_DREQ, TID + 1);
        final CmDreq dreq = new CmDreq().wrap(mad, 0).localCommId(0x0102_0304).remoteCommId(-1).remoteQpn(0xFFFFFF);
        assertEquals(0x0102_0304, dreq.localCommId());
        assertEquals(-1, dreq.remoteCommId());
        assertEquals(0xFFFFFF, dreq.remoteQpn());
        assertEquals(0, mad.get(ValueLayout.JAVA_BYTE, CmMad.HEADER_LENGTH + 11), "the reserved byte stays clear");
        dreq.privateData(pattern(2, 0x7F), 2).remoteQpn(0x16);
        assertEquals(0x16, dreq.remoteQpn());
        assertEquals(0x7F, mad.get(ValueLayout.JAVA_BYTE, dreq.privateDataOffset()));

        header.initHeader(CmMad.ATTR_DREP, TID + 1);
        final CmDrep drep = new CmDrep().wrap(mad, 0).localCommId(-1).remoteCommId(0x0102_0304);
        assertEquals(-1, drep.localCommId());
        assertEquals(0x0102_0304, drep.remoteCommId());
        final byte[] empty = new byte[CmDrep.PRIVATE_DATA_LENGTH];
        drep.privateData(empty);
        assertArrayEquals(new byte[CmDrep.PRIVATE_DATA_LENGTH], empty, "initHeader zeroed the last message");
    }

    @Test
    void shouldBuildAndReadBackARejAndAnMra()
    {
        header.initHeader(CmMad.ATTR_REJ, TID);
        final byte[] ari = pattern(CmRej.ARI_LENGTH, 11);
        final CmRej rej = new CmRej().wrap(mad, 0)
            .localCommId(0)
            .remoteCommId(0xECFC_7499)
            .messageRejected(3)
            .rejectInfoLength(0)
            .reason(RejectReason.CONSUMER_DEFINED.code())
            .ari(ari, ari.length)
            .privateData(pattern(CmRej.PRIVATE_DATA_LENGTH, 2), CmRej.PRIVATE_DATA_LENGTH);
        assertEquals(0, rej.localCommId());
        assertEquals(0xECFC_7499, rej.remoteCommId());
        assertEquals(3, rej.messageRejected());
        assertEquals(0, rej.rejectInfoLength());
        assertEquals(RejectReason.CONSUMER_DEFINED.code(), rej.reason());
        final byte[] ariBack = new byte[CmRej.ARI_LENGTH];
        rej.ari(ariBack);
        assertArrayEquals(ari, ariBack);
        rej.messageRejected(CmRej.MESSAGE_REQ).rejectInfoLength(127).reason(0xFFFF);
        assertEquals(CmRej.MESSAGE_REQ, rej.messageRejected());
        assertEquals(127, rej.rejectInfoLength());
        assertEquals(0xFFFF, rej.reason());
        assertEquals(0, mad.get(ValueLayout.JAVA_BYTE, CmMad.HEADER_LENGTH + 8) & 0x3F, "reserved bits stay clear");
        assertEquals(0, mad.get(ValueLayout.JAVA_BYTE, CmMad.HEADER_LENGTH + 9) & 0x01, "reserved bit stays clear");
        final byte[] data = new byte[CmRej.PRIVATE_DATA_LENGTH];
        rej.privateData(data);
        assertArrayEquals(pattern(CmRej.PRIVATE_DATA_LENGTH, 2), data);

        header.initHeader(CmMad.ATTR_MRA, TID);
        final CmMra mra = new CmMra().wrap(mad, 0)
            .localCommId(0xB8B7_BCF3)
            .remoteCommId(0xECFC_7499)
            .messageMraed(CmMra.MESSAGE_LAP)
            .serviceTimeout(31);
        assertEquals(0xB8B7_BCF3, mra.localCommId());
        assertEquals(0xECFC_7499, mra.remoteCommId());
        assertEquals(CmMra.MESSAGE_LAP, mra.messageMraed());
        assertEquals(31, mra.serviceTimeout());
        mra.messageMraed(3).serviceTimeout(0);
        assertEquals(3, mra.messageMraed());
        assertEquals(0, mra.serviceTimeout());
        mra.serviceTimeout(24).messageMraed(CmMra.MESSAGE_REQ).privateData(new byte[] {1}, 1);
        assertEquals(24, mra.serviceTimeout());
        assertEquals(CmMra.MESSAGE_REQ, mra.messageMraed());
        assertEquals(1, mad.get(ValueLayout.JAVA_BYTE, mra.privateDataOffset()));
    }

    @Test
    void shouldBuildAndReadBackSidr()
    {
        header.initHeader(CmMad.ATTR_SIDR_REQ, TID);
        final SidrReq req = new SidrReq().wrap(mad, 0)
            .requestId(0xEDFC_7499)
            .partitionKey(0xFFFF)
            .serviceId(ServiceId.of(ServiceId.PS_UDP, 0xFFFF));
        new CmaHeader().wrap(mad, req.privateDataOffset()).ipVersion(CmaHeader.IPV6)
            .sourceAddressHigh(0xFE80_0000_0000_0000L).sourceAddressLow(0x5054_00FF_FE77_000CL)
            .destinationAddressHigh(-1L).destinationAddressLow(1L).sourcePort(0xDAB8);
        assertEquals(0xEDFC_7499, req.requestId());
        assertEquals(0xFFFF, req.partitionKey());
        assertEquals(0x0111_FFFFL, req.serviceId());
        assertEquals(0, mad.get(ValueLayout.JAVA_SHORT_UNALIGNED, CmMad.HEADER_LENGTH + 6), "reserved stays clear");
        final CmaHeader cma = new CmaHeader().wrap(mad, req.privateDataOffset());
        assertEquals(CmaHeader.IPV6, cma.ipVersion());
        assertEquals(0, cma.version());
        assertEquals(0xFE80_0000_0000_0000L, cma.sourceAddressHigh());
        assertEquals(0x5054_00FF_FE77_000CL, cma.sourceAddressLow());
        assertEquals(-1L, cma.destinationAddressHigh());
        assertEquals(1L, cma.destinationAddressLow());
        assertEquals(0xDAB8, cma.sourcePort());

        header.initHeader(CmMad.ATTR_SIDR_REP, TID);
        final byte[] info = pattern(SidrRep.ADDITIONAL_INFO_LENGTH, 4);
        final SidrRep rep = new SidrRep().wrap(mad, 0)
            .requestId(0xEDFC_7499)
            .status(0xFF)
            .additionalInfoLength(0)
            .vendorId(0xFFFFFF)
            .qpn(0)
            .serviceId(-1L)
            .qkey(0x0123_4567)
            .additionalInfo(info, info.length)
            .privateData(pattern(3, 8), 3);
        assertEquals(0xEDFC_7499, rep.requestId());
        assertEquals(0xFF, rep.status());
        assertEquals(0, rep.additionalInfoLength());
        assertEquals(0xFFFFFF, rep.vendorId());
        assertEquals(0, rep.qpn());
        assertEquals(-1L, rep.serviceId());
        assertEquals(0x0123_4567, rep.qkey());
        final byte[] infoBack = new byte[SidrRep.ADDITIONAL_INFO_LENGTH];
        rep.additionalInfo(infoBack);
        assertArrayEquals(info, infoBack);
        rep.qpn(0xFFFFFF).vendorId(0).status(SidrStatus.SUCCESS).additionalInfoLength(0xFF);
        assertEquals(0xFFFFFF, rep.qpn());
        assertEquals(0, rep.vendorId());
        assertEquals(SidrStatus.SUCCESS, rep.status());
        assertEquals(0xFF, rep.additionalInfoLength());
        assertEquals(-1L, rep.serviceId());
    }

    @Test
    void shouldComposeServiceIdsAsRdmaCmDoes()
    {
        assertEquals(0x0000_0000_0106_1C06L, ServiceId.of(ServiceId.PS_TCP, 7174));
        assertEquals(0x0000_0000_0111_1C06L, ServiceId.of(ServiceId.PS_UDP, 7174));
        assertEquals(0x0000_0000_013F_0000L, ServiceId.of(ServiceId.PS_IB, 0));
        assertEquals(0x0000_0000_0002_FFFFL, ServiceId.of(ServiceId.PS_IPOIB, 0xFFFF));
        assertEquals(0x0106_FFFFL, ServiceId.of(ServiceId.PS_TCP, -1), "the port is cut to 16 bits");
        assertEquals(ServiceId.PS_TCP, ServiceId.portSpace(0x0000_0000_0106_1C06L));
        assertEquals(7174, ServiceId.port(0x0000_0000_0106_1C06L));
        assertEquals(0xFFFF, ServiceId.port(-1L));
        assertEquals(0xFFFF, ServiceId.portSpace(-1L));
        for (final PortSpace ps : PortSpace.values())
        {
            final int value = switch (ps)
            {
                case TCP -> ServiceId.PS_TCP;
                case UDP -> ServiceId.PS_UDP;
                case IB -> ServiceId.PS_IB;
                case IPOIB -> ServiceId.PS_IPOIB;
            };
            assertEquals(ps.value(), value, ps::name);
            assertEquals(ps.serviceId(4791), ServiceId.of(value, 4791), ps::name);
        }
    }

    @Test
    void shouldKeepTheReasonAndStatusCodesOfTheSpecification()
    {
        // the REJ reasons the MADs carry are the API's: their codes are the IBTA's
        assertArrayEquals(new int[] {1, 3, 4, 5, 6, 7, 8, 9, 10, 26, 27, 28, 29, 30, 31},
            Arrays.stream(RejectReason.values()).mapToInt(RejectReason::code).toArray());
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5}, new int[] {
            SidrStatus.SUCCESS, SidrStatus.UNSUPPORTED, SidrStatus.REJECT, SidrStatus.NO_QP, SidrStatus.REDIRECT,
            SidrStatus.UNSUPPORTED_VERSION});
    }
}
