package io.rdma4j.soft.cm;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.soft.cm.mad.CmReq;
import io.rdma4j.soft.cm.mad.CmaHeader;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.Gid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

import static io.rdma4j.soft.cm.CmTestSupport.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * The connection manager's IPv6: the rdma_cm header (IP version 6, sixteen address bytes each), the REQ's path
 * GIDs, and routing between families. Whole connections over IPv6 run in {@link SoftCmConnectionTest} on a
 * {@link CmFabric.Kind#MEMORY6} fabric.
 */
@Timeout(30)
class CmIpv6Test
{
    private static final Gid CLIENT = Gid.parse("fd77::2");
    private static final Gid SERVER = Gid.parse("fd77::1");

    @Test
    void shouldWriteAnIpv6CmaHeaderAndPathGidsAndReadThemBack()
    {
        final CmMessage.Req req = CmMessage.Req.builder().tid(1).localCommId(2).serviceId(0x0106_0000_0000_1234L)
            .qpn(0x33).pathMtu(1024).startingPsn(5).srcIp(CLIENT).dstIp(SERVER).srcPort(40000).hopLimit(64)
            .retryCount(7).rnrRetryCount(7).build();
        final byte[] mad = CmWire.encode(req);

        final CmReq wire = new CmReq().wrap(MemorySegment.ofArray(mad), 0);
        assertEquals(CLIENT, new Gid(wire.primaryLocalPortGidHigh(), wire.primaryLocalPortGidLow()));
        assertEquals(SERVER, new Gid(wire.primaryRemotePortGidHigh(), wire.primaryRemotePortGidLow()));
        final CmaHeader cma = new CmaHeader().wrap(MemorySegment.ofArray(mad), wire.privateDataOffset());
        assertEquals(CmaHeader.IPV6, cma.ipVersion());
        assertEquals(CLIENT, new Gid(cma.sourceAddressHigh(), cma.sourceAddressLow()));
        assertEquals(SERVER, new Gid(cma.destinationAddressHigh(), cma.destinationAddressLow()));
        assertEquals(40000, cma.sourcePort());

        final CmMessage.Req back = assertInstanceOf(CmMessage.Req.class, CmWire.decode(mad));
        assertEquals(CLIENT, back.srcIp());
        assertEquals(SERVER, back.dstIp());
    }

    @Test
    void shouldKeepTheIpv4CmaHeaderForIpv4Peers()
    {
        final Gid client = Gid.parse("10.77.0.2");
        final Gid server = Gid.parse("10.77.0.1");
        final byte[] mad = CmWire.encode(new CmMessage.SidrReq(1, 2, 0x0111_0000_0000_1234L, client, server, 40000,
            new byte[0]));
        final CmMessage.SidrReq back = assertInstanceOf(CmMessage.SidrReq.class, CmWire.decode(mad));
        assertEquals(client, back.srcIp());
        assertEquals(server, back.dstIp());
        final byte[] v6 = CmWire.encode(new CmMessage.SidrReq(1, 2, 0x0111_0000_0000_1234L, CLIENT, SERVER, 40000,
            new byte[0]));
        final CmMessage.SidrReq back6 = assertInstanceOf(CmMessage.SidrReq.class, CmWire.decode(v6));
        assertEquals(CLIENT, back6.srcIp());
        assertEquals(SERVER, back6.dstIp());
    }

    @Test
    void shouldNotRouteAnIdOnAnIpv4DeviceToAnIpv6Peer() throws Exception
    {
        try (CmFabric fabric = new CmFabric(CmFabric.Kind.MEMORY); EventChannel channel = CmTesting.channel())
        {
            fabric.device(1);
            final CmId id = channel.createId("v4", PortSpace.TCP);
            id.bindAddr(fabric.socketAddress(1, 0));
            id.resolveAddr(null, new InetSocketAddress(SERVER.toInet(), 7471), 2000);
            final CmEvent event = expect(channel, CmEventType.ADDR_ERROR);
            assertEquals(-Errno.ENETUNREACH.code(), event.status());
            event.ack();
            id.close();
        }
    }
}
