package io.rdma4j.soft.link;

import static io.rdma4j.soft.link.LinkTesting.datagram;
import static io.rdma4j.soft.link.LinkTesting.freePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.testing.TestNet;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A burst queued to a same-host peer whose receiver sleeps (a responder's ACK, then the application's reply) wakes
 * it once, at the flush, after every datagram of the burst is in its inbox; a wake-up sent with the first datagram
 * would let the receiver wake, take that one alone, sleep again and be woken a second time for the reply.
 */
@Timeout(60)
final class SameHostBurstWakeupTest
{
    @Test
    void aQueuedBurstWakesASleepingPeerOnceAtTheFlush() throws Exception
    {
        final int port = freePort();
        try (SameHostLink a = (SameHostLink)SameHostLink.over(TestLinks.open(TestNet.hostAddress(21), port),
            TestLinks.shmDirectory(), System.getLogger("a"));
            SameHostLink b = (SameHostLink)SameHostLink.over(TestLinks.open(TestNet.hostAddress(22), port),
                TestLinks.shmDirectory(), System.getLogger("b")))
        {
            final Counters sent = new Counters();
            a.bindCounters(sent);
            b.bindCounters(new Counters());
            assertTrue(a.sameHostPathTo(b.localAddress()), "a finds b's inbox");
            final Thread sleeper = Thread.ofPlatform().start(() -> b.awaitReadable(TimeUnit.MINUTES.toNanos(1)));
            while (!b.waiting())
            {
                Thread.onSpinWait();
            }

            assertTrue(a.queue(datagram("ack"), b.localAddress(), 64));
            assertTrue(a.queue(datagram("reply"), b.localAddress(), 64));
            assertEquals(2, sent.get(SoftCounter.SHM_SENT_PKTS), "both in b's inbox at once");
            // (b may also have seen the first record in its last look before it blocked, and not block at all)
            assertEquals(0, sent.get(SoftCounter.SHM_WAKEUPS_SENT), "no wake-up before the burst's flush");

            a.flush();
            sleeper.join();
            assertTrue(sent.get(SoftCounter.SHM_WAKEUPS_SENT) <= 1, "at most one wake-up for the burst");
            final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
            final DatagramInfo info = new DatagramInfo();
            assertTrue(b.receive(buffer, info));
            assertEquals("ack", LinkTesting.text(buffer));
            assertTrue(b.receive(buffer, info));
            assertEquals("reply", LinkTesting.text(buffer));
        }
    }
}
