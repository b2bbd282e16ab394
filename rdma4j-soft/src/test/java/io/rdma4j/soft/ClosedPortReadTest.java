package io.rdma4j.soft;

import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.link.linux.LinuxUdpLink;
import io.rdma4j.testing.TestNet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 41, finding 7: READs whose responses go to a closed port must not deafen the device. Every response draws
 * an ICMP port unreachable, which the Linux socket (IP_RECVERR) reports by failing its next receive once; taken
 * for an empty socket, that failure ended every receive batch while the READ was being answered, and a ping
 * behind the READ's duplicates waited until the responses ran out (13-24 s for one 64 MiB READ and 200
 * duplicates, on a loaded two-core VM). The receive now counts the error and goes on.
 * <p>
 * Judged by progress, not by time: sixteen 64 MiB READs (max_dest_rd_atomic of them, a million response packets)
 * and 200 duplicates of the first are queued ahead of a UD ping to another QP of the device; the ping must
 * complete, with every duplicate taken before it, while the READs' responses are still being sent.
 */
@Timeout(120)
class ClosedPortReadTest
{
    private static final int SUBNET = TestNet.nextSubnet();
    private static final int READS = 16;
    private static final int DUPLICATES = 200;
    private static final int READ_LENGTH = 64 << 20;

    @Test
    void shouldAnswerAnotherQpWhileReadsIntoAClosedPortAreBeingSent() throws IOException
    {
        assertNull(LinuxUdpLink.unavailableReason(),
            "this test needs the Linux socket, whose receives meet the errors");
        final InetAddress[] addresses = {TestNet.address(SUBNET, 1), TestNet.address(SUBNET, 2),
            TestNet.address(SUBNET, 3)};
        try (ClosedPortReadFlood flood = new ClosedPortReadFlood(addresses, READ_LENGTH))
        {
            assertNotNull(flood.ping(30_000), "a ping with nothing else to do");
            for (int i = 0; i < READS; i++)
            {
                flood.sendRead(i);
            }
            for (int i = 0; i < DUPLICATES; i++)
            {
                flood.sendRead(0);
            }
            TestVerbs.awaitAtLeast(flood::readResponsesSent, 1);

            final ClosedPortReadFlood.Ping ping = flood.ping(30_000);

            final long all = READS * flood.readPackets();
            assertNotNull(ping, "no ping answered in 30 s; READ responses sent: " + flood.readResponsesSent() +
                " of " + all + ", duplicates taken: " + flood.duplicatesTaken());
            // the ping was queued behind the duplicates: the device read them all on its way
            assertEquals(DUPLICATES, flood.duplicatesTaken(), "duplicates taken by the ping's receipt");
            assertTrue(ping.readResponsesAtReceipt() < all, "the ping waited until the READs' " + all +
                " responses were sent: " + ping.readResponsesAtReceipt() + " at its receipt");
            assertTrue(flood.victimCounter(SoftCounter.UDP_RECV_SOCKET_ERRORS) > 0,
                "the receives met the ICMP errors (else this test proves nothing): " +
                flood.victimCounter(SoftCounter.UDP_RECV_SOCKET_ERRORS));
        }
    }
}
