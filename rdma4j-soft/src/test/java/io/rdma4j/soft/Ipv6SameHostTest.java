package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.SameHostLink;
import io.rdma4j.soft.verbs.DeviceLimits;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Gid;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;

import static io.rdma4j.soft.RcFixtures.bytes;
import static io.rdma4j.soft.RcFixtures.fill;
import static io.rdma4j.soft.RcFixtures.one;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same-host path on {@code ::1}: a device there has an inbox (its file names the 16-byte address), and its
 * RC and UD traffic to itself goes through it, never through the kernel's UDP socket, with the IPv6 addresses
 * (the GRH of a UD receive, the ICRC) what they are over UDP.
 */
@Timeout(60)
class Ipv6SameHostTest
{
    private static final Gid LOOPBACK = Gid.parse("::1");

    private Context context;

    @BeforeEach
    void open()
    {
        context = Ipv6Loopback.openSameHost(3, DeviceLimits.RXE);
    }

    @AfterEach
    void close()
    {
        ((SoftDevice)context.device()).shutdown();
    }

    @Test
    void shouldHaveAnInboxForTheIpv6Address()
    {
        final Link link = SoftEngine.of(context).link();
        assertTrue(link instanceof SameHostLink, link.toString());
        assertTrue(Files.isRegularFile(((SameHostLink)link).inboxPath()), link.toString());
        assertTrue(link.sameHostPathTo(Ipv6Loopback.ADDRESS), "the device reaches ::1 by its inbox");
    }

    @Test
    void shouldDeliverRcThroughTheInbox()
    {
        final RcEndpoint a = new RcEndpoint(context, QpType.RC, 1 << 16, 16);
        final RcEndpoint b = new RcEndpoint(context, QpType.RC, 1 << 16, 16);
        RcConnectSettings.defaults().mtu(Mtu.MTU_1024).connect(a, b);

        fill(a.buffer, 0, 20_000, 1);
        a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
            .sge(a.mr, 0, 20_000).rdma(b.mr.address(), b.mr.rkey()));
        assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "write").status());
        assertArrayEquals(bytes(a.buffer, 0, 20_000), bytes(b.buffer, 0, 20_000));
        RcFixtures.sendAndReceive(a, b, 32_768);

        // 20 WRITE packets, a SEND and their ACKs, all through the inbox; the socket carried none
        assertTrue(a.counter(SoftCounter.SHM_RCVD_PKTS) >= 22, a.engine().counters().snapshot().toString());
        assertEquals(a.counter(SoftCounter.SHM_SENT_PKTS), a.counter(SoftCounter.SHM_RCVD_PKTS));
        assertEquals(0, a.counter(SoftCounter.UDP_RCVD_PKTS), a.engine().counters().snapshot().toString());
        assertEquals(0, a.counter(SoftCounter.DROP_ICRC));
        assertEquals(0, a.counter(SoftCounter.DROP_ADDR_MISMATCH));
    }

    @Test
    void shouldDeliverUdThroughTheInboxWithTheIpv6AddressesInTheGrh()
    {
        final UdEndpoint a = new UdEndpoint(context);
        final UdEndpoint b = new UdEndpoint(context);
        b.postRecvs(1);
        a.send(a.ahTo(b.gid()), b.qp.qpNum(), UdEndpoint.QKEY, "inbox v6", 7);

        assertEquals(WcStatus.SUCCESS, one(a.poll(1, 5000), "send").status());
        final WorkCompletion wc = one(b.poll(1, 5000), "receive");
        assertEquals(WcStatus.SUCCESS, wc.status());
        assertEquals("inbox v6", b.text(wc));
        final MemorySegment grh = b.buffer.asSlice((wc.wrId() % 1000) * UdEndpoint.SLOT, 40);
        assertEquals(6, (grh.get(ValueLayout.JAVA_BYTE, 0) >>> 4) & 0xF);
        assertEquals(LOOPBACK, Gid.of(grh.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(LOOPBACK, Gid.of(grh.asSlice(24, 16).toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(1, a.counter(SoftCounter.SHM_RCVD_PKTS));
        assertEquals(0, a.counter(SoftCounter.UDP_RCVD_PKTS));
    }
}
