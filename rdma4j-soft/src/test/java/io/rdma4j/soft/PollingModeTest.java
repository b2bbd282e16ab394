package io.rdma4j.soft;

import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.ForwardingLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.ProgressMode;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In polling mode a thread that polls an empty CQ receives from the network itself. The
 * receiving device's link here hides every datagram from the device's progress thread, so a
 * message can only arrive through the poller.
 */
@Timeout(60)
class PollingModeTest
{
    /**
     * Receives nothing when asked by a device's progress thread (named rdma4j-...); with
     * {@code parkProgressThread}, that thread also waits in awaitReadable until the link is woken
     * or closed, so it runs no timers either.
     */
    private static class HiddenFromProgressThread extends ForwardingLink
    {
        final boolean parkProgressThread;
        final CountDownLatch closed = new CountDownLatch(1);
        final Set<String> receivers = ConcurrentHashMap.newKeySet();

        HiddenFromProgressThread(final Link inner, final boolean parkProgressThread)
        {
            super(inner);
            this.parkProgressThread = parkProgressThread;
        }

        @Override
        public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
        {
            if (Thread.currentThread().getName().startsWith("rdma4j-"))
            {
                buffer.limit(0);
                return false;
            }
            final boolean got = inner.receive(buffer, info);
            if (got)
            {
                receivers.add(Thread.currentThread().getName());
            }
            return got;
        }

        @Override
        public void awaitReadable(final long timeoutNanos)
        {
            if (parkProgressThread && Thread.currentThread().getName().startsWith("rdma4j-"))
            {
                try
                {
                    closed.await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            inner.awaitReadable(Math.min(timeoutNanos, 1_000_000L));
        }

        @Override
        public void wakeup()
        {
            // the device wakes its progress thread to stop it (nothing on the receiving side arms a
            // timer in these tests)
            closed.countDown();
            inner.wakeup();
        }

        @Override
        public void close()
        {
            closed.countDown();
            inner.close();
        }
    }

    @Test
    void shouldTellPollersWhoReceives()
    {
        // a busy poller runs a polling-mode device itself, and only competes with a thread-mode one's thread
        try (Fabric polling = new Fabric(Fabric.Kind.UDP).pollsInline(true);
            Fabric thread = new Fabric(Fabric.Kind.UDP).pollsInline(false))
        {
            assertEquals(ProgressMode.POLLING, polling.open().progressMode());
            assertEquals(ProgressMode.THREAD, thread.open().progressMode());
        }
    }

    @Test
    void shouldReceiveOnThePollingThread()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final HiddenFromProgressThread[] hidden = new HiddenFromProgressThread[1];
            fabric.linkWrapper(link ->
            {
                hidden[0] = new HiddenFromProgressThread(link, false);
                return hidden[0];
            });
            final UdEndpoint receiver = new UdEndpoint(fabric.open());
            receiver.postRecvs(3);
            final AddressHandle ah = sender.ahTo(receiver.gid());
            for (int i = 0; i < 3; i++)
            {
                sender.send(ah, receiver.qp.qpNum(), UdEndpoint.QKEY, "inline " + i, i);
            }

            final List<WorkCompletion> got = receiver.poll(3, 10_000);
            assertEquals(3, got.size());
            for (int i = 0; i < 3; i++)
            {
                assertEquals(WcStatus.SUCCESS, got.get(i).status());
                assertEquals("inline " + i, receiver.text(got.get(i)));
            }
            assertEquals(Set.of(Thread.currentThread().getName()), hidden[0].receivers,
                "only the polling thread received");
        }
    }

    /**
     * Hides every datagram from the progress thread, says it is caught up after each datagram, and logs the
     * polling thread's looks: "D" for a datagram, "-" for none.
     */
    private static final class CaughtUpAfterEach extends HiddenFromProgressThread
    {
        final StringBuffer looks = new StringBuffer();

        CaughtUpAfterEach(final Link inner)
        {
            super(inner, false);
        }

        @Override
        public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
        {
            final boolean got = super.receive(buffer, info);
            if (!Thread.currentThread().getName().startsWith("rdma4j-"))
            {
                looks.append(got ? 'D' : '-');
            }
            return got;
        }

        @Override
        public boolean caughtUp()
        {
            return true;
        }
    }

    @Test
    void shouldReturnWithACompletionWithoutLookingAgainWhenTheLinkIsCaughtUp()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final CaughtUpAfterEach[] link = new CaughtUpAfterEach[1];
            fabric.linkWrapper(inner ->
            {
                link[0] = new CaughtUpAfterEach(inner);
                return link[0];
            });
            final UdEndpoint receiver = new UdEndpoint(fabric.open());
            receiver.postRecvs(3);
            final AddressHandle ah = sender.ahTo(receiver.gid());
            for (int i = 0; i < 3; i++)
            {
                sender.send(ah, receiver.qp.qpNum(), UdEndpoint.QKEY, "caught up " + i, i);
            }

            final WorkCompletion[] wcs = WorkCompletion.array(16);
            int got = 0;
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (got < 3 && System.nanoTime() < deadline)
            {
                final int n = receiver.cq.poll(wcs);
                assertTrue(n <= 1, "a poll hands on the completion of the one datagram it received: " + n);
                got += n;
                link[0].looks.append('|');
            }
            assertEquals(3, got);
            // each poll's looks: any empty ones, then at most the one datagram, and never a look after it
            for (final String poll : link[0].looks.toString().split("\\|"))
            {
                assertTrue(poll.matches("-*D?"), "a poll looked again after a datagram: " + link[0].looks);
            }
        }
    }

    @Test
    void shouldAcknowledgeFromThePollingThread()
    {
        // the receiver's progress thread neither receives nor runs timers: the ACK that lets the
        // sender complete can only come from the thread that polled the receive
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            final RcEndpoint sender = new RcEndpoint(fabric.open(), QpType.RC, 4096, 8);
            final HiddenFromProgressThread[] hidden = new HiddenFromProgressThread[1];
            fabric.linkWrapper(link ->
            {
                hidden[0] = new HiddenFromProgressThread(link, true);
                return hidden[0];
            });
            final RcEndpoint receiver = new RcEndpoint(fabric.open(), QpType.RC, 4096, 8);
            // a 4 s ACK timeout: a thread that waits for a core on a loaded machine must not make the sender
            // retransmit, which would add the duplicate's ACK to the count below
            RcConnectSettings.defaults().timeout(20).connect(sender, receiver);
            receiver.qp.postRecv(new RecvWr().wrId(7).sge(receiver.mr, 0, 1024));
            sender.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(sender.mr, 0, 100));

            final List<WorkCompletion> received = receiver.pollRecv(1, 10_000);
            assertEquals(1, received.size());
            assertEquals(1L, receiver.qp.counters().get("sent_acks"),
                "the poll that produced the completion sent the coalesced ACK");
            assertEquals(WcStatus.SUCCESS, sender.pollSend(1, 10_000).getFirst().status());
            assertEquals(0L, sender.qp.counters().get("retransmitted_pkts"));
        }
    }

    /**
     * Records which threads ask the link for a datagram, and counts the progress thread's parks while a
     * thread polls; hides nothing.
     */
    private static final class WatchedByTheTest extends ForwardingLink
    {
        final Set<String> askers = ConcurrentHashMap.newKeySet();
        final AtomicInteger progressParks = new AtomicInteger();
        volatile boolean watching;

        WatchedByTheTest(final Link inner)
        {
            super(inner);
        }

        @Override
        public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
        {
            if (watching)
            {
                askers.add(Thread.currentThread().getName());
            }
            return inner.receive(buffer, info);
        }

        @Override
        public void awaitReadableWhilePolled(final long timeoutNanos)
        {
            if (watching && Thread.currentThread().getName().startsWith("rdma4j-"))
            {
                progressParks.incrementAndGet();
            }
            inner.awaitReadableWhilePolled(timeoutNanos);
        }
    }

    @Test
    void shouldLeaveTheLinkToAPollerEvenWhenItsPollsFindCompletions()
    {
        // the receiver's clock stands still, so its poller never looks stopped: the progress thread parks
        // and wakes (real time) and must not touch the link in between, neither while the poller's polls
        // come back empty nor while they find completions (which do not receive)
        final long frozen = System.nanoTime();
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            final UdEndpoint sender = new UdEndpoint(fabric.open());
            final WatchedByTheTest[] watched = new WatchedByTheTest[1];
            fabric.clock(() -> frozen).linkWrapper(link ->
            {
                watched[0] = new WatchedByTheTest(link);
                return watched[0];
            });
            final UdEndpoint receiver = new UdEndpoint(fabric.open());
            final int messages = 64;
            receiver.postRecvs(messages);
            final WorkCompletion[] wcs = WorkCompletion.array(4);
            receiver.cq.poll(wcs);
            watched[0].watching = true;
            // polls until the progress thread has parked, woken and parked again: a cycle in between
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (watched[0].progressParks.get() < 2 && System.nanoTime() < deadline)
            {
                receiver.cq.poll(wcs);
            }
            assertTrue(watched[0].progressParks.get() >= 2, "the progress thread parked twice");
            final AddressHandle ah = sender.ahTo(receiver.gid());
            int received = 0;
            for (int i = 0; i < messages; i++)
            {
                sender.send(ah, receiver.qp.qpNum(), UdEndpoint.QKEY, "polled " + i, i);
                // small polls, so that many find completions a previous one received
                received += receiver.cq.poll(wcs);
            }
            final int parksBefore = watched[0].progressParks.get();
            while ((received < messages || watched[0].progressParks.get() < parksBefore + 2) &&
                System.nanoTime() < deadline)
            {
                received += receiver.cq.poll(wcs);
            }
            assertEquals(messages, received);
            assertEquals(Set.of(Thread.currentThread().getName()), watched[0].askers,
                "only the polling thread asked the link for datagrams");
        }
    }
}
