package io.rdma4j.soft;

import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.ForwardingLink;
import io.rdma4j.soft.link.Link;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Polling mode, RC: the ACK of a message the poll received leaves with the poller's reply, in one flush
 * (one system call on a batching link), at its next poll; so do the packets of the poller's posts; but neither
 * waits on a progress thread that may sleep long.
 */
@Timeout(60)
class PollingModeFlushTest
{
    /**
     * The responder's link: hides datagrams from the device's progress thread and parks that thread in
     * the wait it names (the brief one a device takes while a thread polls, or the long one), until
     * released; records how many datagrams each flush carried.
     */
    private static final class ParkingRecorder extends ForwardingLink
    {
        private final boolean parkInBriefWait;
        private final CountDownLatch parked = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private final List<Integer> flushes = new CopyOnWriteArrayList<>();
        /** When the progress thread parked, in System.nanoTime(), the device's clock in these tests. */
        private volatile long parkedAtNs;
        private int queued;

        ParkingRecorder(final Link inner, final boolean parkInBriefWait)
        {
            super(inner);
            this.parkInBriefWait = parkInBriefWait;
        }

        private static boolean progressThread()
        {
            return Thread.currentThread().getName().startsWith("rdma4j-");
        }

        @Override
        public boolean queue(final ByteBuffer datagram, final InetAddress destination, final int hopLimit)
        {
            synchronized (this)
            {
                queued++;
            }
            return inner.queue(datagram, destination, hopLimit);
        }

        @Override
        public boolean queueGathered(
            final ByteBuffer head, final MemorySegment payload, final long payloadOffset, final int payloadLength,
            final ByteBuffer tail, final InetAddress destination, final int hopLimit)
        {
            synchronized (this)
            {
                queued++;
            }
            return inner.queueGathered(head, payload, payloadOffset, payloadLength, tail, destination, hopLimit);
        }

        @Override
        public void flush()
        {
            final int carried;
            synchronized (this)
            {
                carried = queued;
                queued = 0;
            }
            if (carried > 0)
            {
                flushes.add(carried);
            }
            inner.flush();
        }

        @Override
        public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
        {
            if (progressThread())
            {
                buffer.limit(0);
                return false;
            }
            return inner.receive(buffer, info);
        }

        @Override
        public void awaitReadable(final long timeoutNanos)
        {
            if (progressThread() && !parkInBriefWait)
            {
                park();
                return;
            }
            inner.awaitReadable(Math.min(timeoutNanos, 1_000_000L));
        }

        @Override
        public void awaitReadableWhilePolled(final long timeoutNanos)
        {
            if (progressThread() && parkInBriefWait)
            {
                park();
                return;
            }
            inner.awaitReadableWhilePolled(timeoutNanos);
        }

        private void park()
        {
            parkedAtNs = System.nanoTime();
            parked.countDown();
            try
            {
                released.await();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }

        void awaitParked(final CompletionQueue polledMeanwhile) throws InterruptedException
        {
            final WorkCompletion[] none = WorkCompletion.array(1);
            while (!parked.await(100, TimeUnit.MICROSECONDS))
            {
                if (polledMeanwhile != null)
                {
                    // a thread polling the device is what sends its progress thread to the brief wait
                    assertEquals(0, polledMeanwhile.poll(none));
                }
            }
        }

        /** Let the progress thread go (before the device closes: it joins that thread). */
        void release()
        {
            released.countDown();
        }

        @Override
        public void close()
        {
            released.countDown();
            inner.close();
        }
    }

    private record Pair(RcEndpoint requester, RcEndpoint responder, ParkingRecorder responderLink)
    {
    }

    private static Pair pair(final Fabric fabric, final boolean parkInBriefWait)
    {
        return pair(fabric, parkInBriefWait, false);
    }

    /**
     * @param recvEvents whether the responder's receive CQ reports to a completion channel of its own.
     */
    private static Pair pair(final Fabric fabric, final boolean parkInBriefWait, final boolean recvEvents)
    {
        final RcEndpoint requester = new RcEndpoint(fabric.open(), QpType.RC, 4096, 8);
        final ParkingRecorder[] link = new ParkingRecorder[1];
        fabric.linkWrapper(inner ->
        {
            link[0] = new ParkingRecorder(inner, parkInBriefWait);
            return link[0];
        });
        final Context context = fabric.open();
        final RcEndpoint responder = new RcEndpoint(context, context.allocPd(), QpType.RC, 4096, 8, null,
            recvEvents ? context.createCompChannel() : null);
        // a 4 s ACK timeout: on a loaded machine a retransmission would add flushes and ACKs the tests count
        RcConnectSettings.defaults().timeout(20).connect(requester, responder);
        return new Pair(requester, responder, link[0]);
    }

    private static void send(final RcEndpoint from, final long wrId, final int length)
    {
        from.qp.postSend(new SendWr().wrId(wrId).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
            .sge(from.mr, 0, length));
    }

    @Test
    void shouldSendTheAckOfAPolledMessageWithThePollersReplyInOneFlush() throws InterruptedException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            final Pair p = pair(fabric, true);
            try
            {
                p.requester.qp.postRecv(new RecvWr().wrId(8).sge(p.requester.mr, 1024, 1024));
                p.responder.qp.postRecv(new RecvWr().wrId(7).sge(p.responder.mr, 1024, 1024));
                p.responderLink.awaitParked(p.responder.recvCq);

                send(p.requester, 1, 100);
                assertEquals(WcStatus.SUCCESS, p.responder.pollRecv(1, 10_000).getFirst().status());
                final List<Integer> beforeReply = List.copyOf(p.responderLink.flushes);
                send(p.responder, 2, 200);
                assertEquals(List.of(), p.responderLink.flushes, "the reply waits for the poller's next poll");
                assertEquals(0, p.responder.recvCq.poll(WorkCompletion.array(1)));

                assertEquals(WcStatus.SUCCESS, p.requester.pollRecv(1, 10_000).getFirst().status());
                final List<WorkCompletion> sent = p.requester.pollSend(1, 10_000);
                assertEquals(WcStatus.SUCCESS, sent.getFirst().status(), "the request was acknowledged");
                assertEquals(List.of(), beforeReply, "nothing left the responder between its poll and its reply");
                assertEquals(2, p.responderLink.flushes.getFirst(), "the ACK and the reply left in one flush: " +
                    p.responderLink.flushes);
                assertEquals(0L, p.requester.qp.counters().get("retransmitted_pkts"));
            }
            finally
            {
                p.responderLink.release();
            }
        }
    }

    @Test
    void shouldNotSendTheAckAWaiterLeftForTheReplyFromAnEmptyPollBeforeIt() throws InterruptedException
    {
        // an event consumer (req_notify, get_cq_event, poll until empty, reply) on an RC ping-pong: the thread that
        // waits receives the request, and its ACK is left for the reply. The poll that finds the CQ empty did
        // nothing, so it must not send that ACK alone: the requester would wake for it and again for the reply
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            final Pair p = pair(fabric, true, true);
            try
            {
                p.requester.qp.postRecv(new RecvWr().wrId(8).sge(p.requester.mr, 1024, 1024));
                p.responder.qp.postRecv(new RecvWr().wrId(7).sge(p.responder.mr, 1024, 1024));
                p.responderLink.awaitParked(p.responder.recvCq);
                final CompletionChannel events = p.responder.recvCq.channel();

                p.responder.recvCq.requestNotify(false);
                final WorkCompletion[] wcs = WorkCompletion.array(4);
                assertEquals(0, p.responder.recvCq.poll(wcs), "armed, then polled once more: nothing yet");
                send(p.requester, 1, 100);
                assertSame(p.responder.recvCq, events.getCqEvent(10, TimeUnit.SECONDS), "the waiter's event");
                p.responder.recvCq.ackEvents(1);
                assertEquals(1, p.responder.recvCq.poll(wcs));
                assertEquals(WcStatus.SUCCESS, wcs[0].status());
                assertEquals(0, p.responder.recvCq.poll(wcs), "polled until empty");
                assertEquals(List.of(), p.responderLink.flushes, "the ACK is still left for the reply");

                send(p.responder, 2, 200);
                // the post may leave both for the poller's next poll, as its progress thread's wait is brief
                assertEquals(0, p.responder.recvCq.poll(wcs));
                assertEquals(List.of(2), p.responderLink.flushes, "the ACK and the reply left in one flush");
                assertEquals(WcStatus.SUCCESS, p.requester.pollRecv(1, 10_000).getFirst().status());
                assertEquals(WcStatus.SUCCESS, p.requester.pollSend(1, 10_000).getFirst().status());
            }
            finally
            {
                p.responderLink.release();
            }
        }
    }

    @Test
    void shouldSendABurstOfSinglePostsAtThePollersNextPollInOneFlush() throws InterruptedException
    {
        // a thread that posts one work request at a time between its polls rings the doorbell once a poll:
        // the burst leaves in one system call, as a chain posted in one call would
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            final Pair p = pair(fabric, true);
            try
            {
                for (int i = 0; i < 4; i++)
                {
                    p.requester.qp.postRecv(new RecvWr().wrId(10 + i).sge(p.requester.mr, 1024, 1024));
                }
                p.responderLink.awaitParked(p.responder.recvCq);

                for (int i = 0; i < 4; i++)
                {
                    send(p.responder, 20 + i, 100 + i);
                }
                assertEquals(List.of(), p.responderLink.flushes, "four posts, no poll yet: nothing left");
                assertEquals(0, p.responder.recvCq.poll(WorkCompletion.array(1)));
                assertEquals(List.of(4), p.responderLink.flushes, "the poll sent the four SENDs in one flush");

                final List<WorkCompletion> received = p.requester.pollRecv(4, 10_000);
                assertEquals(4, received.size());
                for (int i = 0; i < 4; i++)
                {
                    assertEquals(WcStatus.SUCCESS, received.get(i).status());
                    assertEquals(100 + i, received.get(i).byteLen(), "in posting order");
                }
            }
            finally
            {
                p.responderLink.release();
            }
        }
    }

    @Test
    void shouldSendAPostAtOnceWhenTheProgressThreadMayWaitLong() throws InterruptedException
    {
        // nobody polled lately, so the progress thread may sleep long: a post must not wait for it
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            final Pair p = pair(fabric, false);
            try
            {
                p.requester.qp.postRecv(new RecvWr().wrId(10).sge(p.requester.mr, 1024, 1024));
                p.responderLink.awaitParked(null);

                send(p.responder, 20, 100);
                assertEquals(List.of(1), p.responderLink.flushes, "the post sent its SEND itself");
                assertEquals(WcStatus.SUCCESS, p.requester.pollRecv(1, 10_000).getFirst().status());
            }
            finally
            {
                p.responderLink.release();
            }
        }
    }

    @Test
    void shouldSendTheAckAtThePollersNextPollWhenItDoesNotReply() throws InterruptedException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            final Pair p = pair(fabric, true);
            try
            {
                p.responder.qp.postRecv(new RecvWr().wrId(7).sge(p.responder.mr, 1024, 1024));
                p.responderLink.awaitParked(p.responder.recvCq);

                send(p.requester, 1, 100);
                assertEquals(WcStatus.SUCCESS, p.responder.pollRecv(1, 10_000).getFirst().status());
                assertEquals(List.of(), p.responderLink.flushes, "the ACK waits for the poller's next call");
                assertEquals(0, p.responder.recvCq.poll(WorkCompletion.array(1)));

                assertEquals(List.of(1), p.responderLink.flushes, "the next poll sent the ACK alone");
                assertEquals(WcStatus.SUCCESS, p.requester.pollSend(1, 10_000).getFirst().status());
            }
            finally
            {
                p.responderLink.release();
            }
        }
    }

    @Test
    void shouldSendTheAckAtOnceWhenTheProgressThreadMayWaitLong() throws InterruptedException
    {
        // the progress thread went to its long wait (no thread polled for a while) and stays there: a
        // deferred ACK would wait for the requester's retransmission; the poll must send it itself. That wait is
        // 100 ms, whose end the device takes for the thread's next cycle: a poll made within a millisecond of it
        // rightly leaves the ACK to that cycle. So a try in which this thread was held up (a loaded machine) until
        // the wait was half over proves nothing either way, and is made again
        for (int attempt = 0; attempt < 5; attempt++)
        {
            if (ackSentByThePollWhileTheWaitIsFarFromItsEnd())
            {
                return;
            }
        }
        fail("five tries were each held up past half the progress thread's wait");
    }

    /** @return false if the poll came too late in the progress thread's wait for the case to hold. */
    private static boolean ackSentByThePollWhileTheWaitIsFarFromItsEnd() throws InterruptedException
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true))
        {
            final Pair p = pair(fabric, false);
            try
            {
                p.responder.qp.postRecv(new RecvWr().wrId(7).sge(p.responder.mr, 1024, 1024));
                p.responderLink.awaitParked(null);

                send(p.requester, 1, 100);
                assertEquals(WcStatus.SUCCESS, p.responder.pollRecv(1, 10_000).getFirst().status());
                final List<Integer> flushed = List.copyOf(p.responderLink.flushes);
                if (System.nanoTime() - p.responderLink.parkedAtNs > TimeUnit.MILLISECONDS.toNanos(50))
                {
                    return false;
                }
                assertEquals(List.of(1), flushed, "the poll that received sent the ACK");
                final List<WorkCompletion> sent = p.requester.pollSend(1, 10_000);
                assertTrue(!sent.isEmpty() && sent.getFirst().status() == WcStatus.SUCCESS, "acknowledged");
                assertEquals(0L, p.requester.qp.counters().get("retransmitted_pkts"));
                return true;
            }
            finally
            {
                p.responderLink.release();
            }
        }
    }
}
