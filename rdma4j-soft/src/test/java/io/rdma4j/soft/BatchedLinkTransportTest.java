package io.rdma4j.soft;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.linux.LinuxUdpLink;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WrOpcode;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.rdma4j.soft.RcFixtures.HALF;
import static io.rdma4j.soft.RcFixtures.bytes;
import static io.rdma4j.soft.RcFixtures.fill;
import static io.rdma4j.soft.RcFixtures.one;
import static io.rdma4j.soft.RcFixtures.pair;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message of many packets over the Linux socket leaves in batches (a postSend's packets in one flush, as
 * UDP_SEGMENT runs where the kernel has GSO) and arrives in batches (recvmmsg, GRO), intact.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BatchedLinkTransportTest
{
    private static final int PACKETS = 64;
    private static final int SIZE = PACKETS * 1024;

    @Test
    void shouldWriteA64PacketMessageInBatches()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).socket(UdpLinks.Socket.LINUX))
        {
            final RcEndpoint[] p = pair(fabric, QpType.RC, Mtu.MTU_1024);
            final RcEndpoint a = p[0];
            final RcEndpoint b = p[1];
            final LinuxUdpLink aLink = link(a);
            final LinuxUdpLink bLink = link(b);
            fill(a.buffer, 0, SIZE, 11);
            final long sentBefore = aLink.sentDatagrams();
            final long sendCallsBefore = aLink.sendSyscalls();
            final long receivedBefore = bLink.receivedDatagrams();
            final long receiveCallsBefore = bLink.receiveSyscalls();

            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 0, SIZE).rdma(b.mr.segment().address() + HALF, b.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "write").status());
            assertArrayEquals(bytes(a.buffer, 0, SIZE), bytes(b.buffer, HALF, SIZE));

            assertBatched(aLink, bLink, sentBefore, sendCallsBefore, receivedBefore, receiveCallsBefore);
        }
    }

    @Test
    void shouldSendA64PacketMessageInBatches()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).socket(UdpLinks.Socket.LINUX))
        {
            final RcEndpoint[] p = pair(fabric, QpType.RC, Mtu.MTU_1024);
            final RcEndpoint a = p[0];
            final RcEndpoint b = p[1];
            final LinuxUdpLink aLink = link(a);
            final LinuxUdpLink bLink = link(b);
            fill(a.buffer, 0, SIZE, 12);
            b.qp.postRecv(new RecvWr().wrId(7).sge(b.mr, HALF, SIZE));
            final long sentBefore = aLink.sentDatagrams();
            final long sendCallsBefore = aLink.sendSyscalls();
            final long receivedBefore = bLink.receivedDatagrams();
            final long receiveCallsBefore = bLink.receiveSyscalls();

            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 0, SIZE));
            assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "send").status());
            assertEquals(SIZE, one(b.pollRecv(1, 10_000), "recv").byteLen());
            assertArrayEquals(bytes(a.buffer, 0, SIZE), bytes(b.buffer, HALF, SIZE));

            assertBatched(aLink, bLink, sentBefore, sendCallsBefore, receivedBefore, receiveCallsBefore);
        }
    }

    @Test
    void shouldSendThePayloadFromRegisteredMemoryWithoutACopyAndCopyWhatSpansSges()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).socket(UdpLinks.Socket.LINUX))
        {
            // a long timeout: a cold JVM must not make a retransmission the count below would see
            final RcEndpoint[] p = pair(fabric, QpType.RC, Mtu.MTU_1024, 18);
            final RcEndpoint a = p[0];
            final RcEndpoint b = p[1];
            final LinuxUdpLink aLink = link(a);
            fill(a.buffer, 0, SIZE, 13);
            final long gatheredBefore = aLink.gatheredDatagrams();
            final long retransmittedBefore = a.qp.counters().get("retransmitted_pkts");
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 0, SIZE).rdma(b.mr.segment().address() + HALF, b.mr.rkey()));
            assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "write").status());
            assertArrayEquals(bytes(a.buffer, 0, SIZE), bytes(b.buffer, HALF, SIZE));
            final Counters bCounters = SoftEngine.of(b.context).counters();
            final Counters aCounters = SoftEngine.of(a.context).counters();
            // a loaded machine may make the requester send some again (the receiver's socket overflowed while its
            // thread waited for a core): those went in place too
            final long retransmitted = a.qp.counters().get("retransmitted_pkts") - retransmittedBefore;
            assertEquals(PACKETS + retransmitted, aLink.gatheredDatagrams() - gatheredBefore,
                "every packet's payload in place, retransmissions included; a: " + dump(aCounters) + "b: " +
                dump(bCounters));

            // two SGEs of 1000 and 1048 bytes at MTU 1024: packet 1 spans both, so it is copied; packet 2 is not
            fill(a.buffer, 100_000, 1000, 14);
            fill(a.buffer, 200_000, 1048, 15);
            final long before = aLink.gatheredDatagrams();
            final long retransmittedBeforeTwo = a.qp.counters().get("retransmitted_pkts");
            final SendWr twoSges = new SendWr(2).wrId(2).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 100_000, 1000).rdma(b.mr.segment().address() + HALF, b.mr.rkey());
            twoSges.sgList().get(1).set(a.mr, 200_000, 1048);
            twoSges.sgList().numSge(2);
            a.qp.postSend(twoSges);
            assertEquals(WcStatus.SUCCESS, one(a.pollSend(1, 10_000), "two-SGE write").status());
            assertArrayEquals(bytes(a.buffer, 100_000, 1000), bytes(b.buffer, HALF, 1000));
            assertArrayEquals(bytes(a.buffer, 200_000, 1048), bytes(b.buffer, HALF + 1000, 1048));
            assertEquals(1 + a.qp.counters().get("retransmitted_pkts") - retransmittedBeforeTwo,
                aLink.gatheredDatagrams() - before, "only the packet within one SGE went in place (a retransmission "
                + "of it too)");
        }
    }

    private static void assertBatched(
        final LinuxUdpLink aLink, final LinuxUdpLink bLink, final long sentBefore, final long sendCallsBefore,
        final long receivedBefore, final long receiveCallsBefore)
    {
        final long sent = aLink.sentDatagrams() - sentBefore;
        final long sendCalls = aLink.sendSyscalls() - sendCallsBefore;
        final long received = bLink.receivedDatagrams() - receivedBefore;
        final long receiveCalls = bLink.receiveSyscalls() - receiveCallsBefore;
        assertTrue(sent >= PACKETS, "sent " + sent);
        assertTrue(sent > sendCalls, sent + " datagrams in " + sendCalls + " send calls: more than one a call");
        assertTrue(received >= PACKETS, "received " + received);
        assertTrue(received > receiveCalls, received + " datagrams in " + receiveCalls +
            " receive calls: more than one a call");
        if (aLink.segmentsSends())
        {
            assertTrue(aLink.gsoMessages() > 0, "runs to the one peer went as UDP_SEGMENT messages");
        }
    }

    private static String dump(final Counters counters)
    {
        final StringBuilder text = new StringBuilder();
        for (final SoftCounter counter : SoftCounter.values())
        {
            if (counters.get(counter) != 0)
            {
                text.append(counter).append('=').append(counters.get(counter)).append(' ');
            }
        }
        return text.toString();
    }

    private static LinuxUdpLink link(final RcEndpoint endpoint)
    {
        return (LinuxUdpLink)SoftEngine.of(endpoint.context).link();
    }
}
