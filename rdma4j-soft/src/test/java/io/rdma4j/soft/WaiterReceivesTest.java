package io.rdma4j.soft;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionChannel;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread that waits for a CQ event, or polls a CQ with a timeout, receives for the device itself while nobody else
 * does: the datagram that completes its CQ wakes it once, with no progress thread between. The receiving device's
 * link here waits with no time limit (only a datagram, a wake-up or the close end a wait), so a wake-up that is
 * lost is a hang, which the class's timeout turns into a failure, not a slow pass.
 */
@Timeout(60)
class WaiterReceivesTest
{
    /** A UD QP whose CQ reports to a channel, with receives posted. */
    static final class Receiver
    {
        final CompletionChannel channel;
        final CompletionQueue cq;
        final QueuePair qp;
        final ProtectionDomain pd;
        final MemoryRegion mr;
        final MemorySegment buffer;
        final WorkCompletion[] wcs = WorkCompletion.array(16);

        Receiver(final Context context, final boolean withChannel)
        {
            channel = withChannel ? context.createCompChannel() : null;
            cq = context.createCq(256, channel, 0);
            pd = context.allocPd();
            qp = UdEndpoint.udQp(pd, cq, new QpCap(64, 128, 1, 1, 64), UdEndpoint.QKEY);
            buffer = Arena.ofShared().allocate(128L * 256);
            mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
            final RecvWr recv = new RecvWr();
            for (int i = 0; i < 128; i++)
            {
                qp.postRecv(recv.wrId(i).sge(mr, i * 256L, 256));
            }
        }

        int seq(final WorkCompletion wc)
        {
            // 40 bytes of GRH, then the sender's sequence number
            return buffer.get(ValueLayout.JAVA_INT_UNALIGNED, wc.wrId() * 256 + 40);
        }

        void repost(final WorkCompletion wc)
        {
            qp.postRecv(new RecvWr().wrId(wc.wrId()).sge(mr, wc.wrId() * 256, 256));
        }

        /**
         * With the CQ armed: wait for its event, take the one completion it announces, check that it is datagram
         * {@code seq}, and post its buffer again.
         */
        void takeOne(final int seq) throws InterruptedException
        {
            assertSame(cq, channel.getCqEvent(-1, TimeUnit.SECONDS));
            cq.ackEvents(1);
            assertEquals(1, cq.poll(wcs));
            assertEquals(seq, seq(wcs[0]));
            repost(wcs[0]);
        }
    }

    /** Sends sequence-numbered datagrams from a UD QP of its own device. */
    static final class Sender
    {
        final UdEndpoint endpoint;
        final AddressHandle ah;
        final SendWr wr = new SendWr();
        final WorkCompletion[] sendWcs = WorkCompletion.array(16);

        Sender(final Context context, final Context to)
        {
            endpoint = new UdEndpoint(context);
            ah = endpoint.ahTo(to.queryGid(1, 0));
        }

        void send(final QueuePair to, final int seq)
        {
            endpoint.buffer.set(ValueLayout.JAVA_INT_UNALIGNED, 0, seq);
            wr.wrId(seq).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(endpoint.mr, 0, 4)
                .ud(ah, to.qpNum(), UdEndpoint.QKEY);
            endpoint.qp.postSend(wr);
            // the send CQ fills up otherwise: take what is there
            endpoint.cq.poll(sendWcs);
        }
    }

    private static Fabric memoryFabric(final AtomicReference<WaitRecordingLink> recording)
    {
        return new Fabric(Fabric.Kind.MEMORY).pollsInline(true).linkWrapper(link ->
        {
            final WaitRecordingLink wrapped = new WaitRecordingLink(link);
            recording.compareAndSet(null, wrapped);
            return wrapped;
        });
    }

    @Test
    void shouldReceiveOnTheThreadWaitingForTheEvent() throws Exception
    {
        final AtomicReference<WaitRecordingLink> recording = new AtomicReference<>();
        try (Fabric fabric = memoryFabric(recording))
        {
            final Context receiving = fabric.open();
            fabric.linkWrapper(link -> link);
            final Sender sender = new Sender(fabric.open(), receiving);
            final Receiver receiver = new Receiver(receiving, true);
            final WaitRecordingLink link = recording.get();
            receiver.cq.requestNotify(false);
            final Thread send = sendOnceWaiting(link, sender, receiver.qp, 7);

            assertSame(receiver.cq, receiver.channel.getCqEvent(-1, TimeUnit.SECONDS));
            receiver.cq.ackEvents(1);
            assertEquals(1, receiver.cq.poll(receiver.wcs));
            assertEquals(7, receiver.seq(receiver.wcs[0]));
            assertEquals(Set.of(Thread.currentThread().getName()), link.receivers,
                "the waiting thread received the datagram itself, not the progress thread");
            send.join();
        }
    }

    @Test
    void shouldWakeTheReceivingWaiterForACompletionMadeOnAnotherThread() throws Exception
    {
        final AtomicReference<WaitRecordingLink> recording = new AtomicReference<>();
        try (Fabric fabric = memoryFabric(recording))
        {
            final Context receiving = fabric.open();
            fabric.linkWrapper(link -> link);
            final Context other = fabric.open();
            // a UD send completes on the posting thread: the waiter, asleep in the link's wait, must be woken
            final CompletionChannel channel = receiving.createCompChannel();
            final CompletionQueue cq = receiving.createCq(16, channel, 0);
            final Receiver target = new Receiver(other, false);
            final UdEndpoint local = new UdEndpoint(receiving, receiving.allocPd(), UdEndpoint.QKEY);
            final QueuePair qp = UdEndpoint.udQp(local.pd, cq, new QpCap(8, 8, 1, 1, 64), UdEndpoint.QKEY);
            final AddressHandle ah = local.ahTo(other.queryGid(1, 0));
            final WaitRecordingLink link = recording.get();
            cq.requestNotify(false);
            final Thread post = Thread.ofPlatform().start(() ->
            {
                awaitQuietly(link.waiterInWait);
                qp.postSend(new SendWr().wrId(3).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                    .sge(local.mr, 0, 4).ud(ah, target.qp.qpNum(), UdEndpoint.QKEY));
            });

            assertSame(cq, channel.getCqEvent(-1, TimeUnit.SECONDS));
            cq.ackEvents(1);
            final WorkCompletion[] wcs = WorkCompletion.array(4);
            assertEquals(1, cq.poll(wcs));
            assertEquals(WcOpcode.SEND, wcs[0].opcode());
            assertEquals(3, wcs[0].wrId());
            post.join();
        }
    }

    @Test
    void shouldEndAReceivingWaitOnWakeup() throws Exception
    {
        final AtomicReference<WaitRecordingLink> recording = new AtomicReference<>();
        try (Fabric fabric = memoryFabric(recording))
        {
            final Receiver receiver = new Receiver(fabric.open(), true);
            final WaitRecordingLink link = recording.get();
            receiver.cq.requestNotify(false);
            final Thread waker = Thread.ofPlatform().start(() ->
            {
                awaitQuietly(link.waiterInWait);
                receiver.channel.wakeup();
            });

            assertNull(receiver.channel.getCqEvent(-1, TimeUnit.SECONDS), "woken, no event");
            waker.join();
        }
    }

    @Test
    void shouldPollWithATimeoutAsTheReceiverWithoutAChannel() throws Exception
    {
        final AtomicReference<WaitRecordingLink> recording = new AtomicReference<>();
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            // waiting mode: a poll alone does not receive, so only the wait can have
            final Context receiving = waitingOnly(fabric, recording, 91);
            final Sender sender = new Sender(fabric.open(), receiving);
            final Receiver receiver = new Receiver(receiving, false);
            final WaitRecordingLink link = recording.get();
            final Thread send = sendOnceWaiting(link, sender, receiver.qp, 11);

            assertEquals(1, receiver.cq.poll(receiver.wcs, -1, TimeUnit.SECONDS));
            assertEquals(11, receiver.seq(receiver.wcs[0]));
            assertEquals(Set.of(Thread.currentThread().getName()), link.receivers,
                "the polling thread received the datagram in its wait");
            send.join();
        }
    }

    @Test
    void shouldCloseTheDeviceWhileAThreadReceivesInItsWait() throws Exception
    {
        final AtomicReference<WaitRecordingLink> recording = new AtomicReference<>();
        final Fabric fabric = memoryFabric(recording);
        final Context context = fabric.open();
        final Receiver receiver = new Receiver(context, true);
        receiver.cq.requestNotify(false);
        final CountDownLatch returned = new CountDownLatch(1);
        final Thread waiter = Thread.ofPlatform().start(() ->
        {
            try
            {
                receiver.channel.getCqEvent(-1, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            finally
            {
                returned.countDown();
            }
        });
        recording.get().waiterInWait.await();
        // the link's close waits for its receiver: the waiter must leave the link's wait for it (else a hang)
        fabric.close();
        waiter.interrupt();
        assertTrue(returned.await(30, TimeUnit.SECONDS), "the waiter, off the device, still ends on interrupt");
    }

    /**
     * In waiting mode polls only read the CQ: once the waiter has had its event and stopped waiting, the progress
     * thread must take the link over (else later datagrams wait for ever).
     */
    @Test
    void shouldLeaveTheLinkToTheProgressThreadWhenTheWaiterStops() throws Exception
    {
        final AtomicReference<WaitRecordingLink> recording = new AtomicReference<>();
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context receiving = waitingOnly(fabric, recording, 90);
            final Sender sender = new Sender(fabric.open(), receiving);
            final Receiver receiver = new Receiver(receiving, true);
            final WaitRecordingLink link = recording.get();
            receiver.cq.requestNotify(false);
            final Thread send = sendOnceWaiting(link, sender, receiver.qp, 1);
            assertSame(receiver.cq, receiver.channel.getCqEvent(-1, TimeUnit.SECONDS));
            receiver.cq.ackEvents(1);
            send.join();
            assertEquals(Set.of(Thread.currentThread().getName()), link.receivers);

            // nobody waits any more; this thread only polls, which in waiting mode does not receive
            link.receivers.clear();
            sender.send(receiver.qp, 2);
            final List<WorkCompletion> got = TestVerbs.pollFor(receiver.cq, 2, 20_000);
            assertEquals(2, got.size());
            assertEquals(2, receiver.buffer.get(ValueLayout.JAVA_INT_UNALIGNED, got.get(1).wrId() * 256 + 40));
            assertTrue(link.receivers.stream().allMatch(name -> name.startsWith("rdma4j-")),
                "the progress thread received once the waiter left: " + link.receivers);
        }
    }

    /**
     * @return a device in waiting mode, whose polls only read the CQ: what receives is the waiting thread or the
     *     progress thread, never a poll.
     */
    private static Context waitingOnly(final Fabric fabric, final AtomicReference<WaitRecordingLink> recording,
        final int host)
    {
        final Context context = SoftDevice.builder("waiting" + host, fabric.address(host))
            .link(a ->
            {
                final WaitRecordingLink wrapped = new WaitRecordingLink(fabric.network().attach(a));
                recording.set(wrapped);
                return wrapped;
            })
            .pollsInline(false).waitsInline(true).build().open();
        fabric.adopt(context);
        return context;
    }

    /**
     * @return a thread that sends one datagram once a thread other than the progress thread waits on the link.
     */
    static Thread sendOnceWaiting(final WaitRecordingLink link, final Sender sender, final QueuePair to, final int seq)
    {
        return Thread.ofPlatform().start(() ->
        {
            awaitQuietly(link.waiterInWait);
            sender.send(to, seq);
        });
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
