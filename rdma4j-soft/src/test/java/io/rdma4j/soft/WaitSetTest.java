package io.rdma4j.soft;

import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import io.rdma4j.verbs.WaitSet;
import io.rdma4j.verbs.Waitable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One wait for the completion channels of two devices: the thread in the set receives for the first device itself,
 * and a channel of the second device or a wake-up ends that wait (the connection manager's channel:
 * {@code cm.CmWaitSetTest}). The first device's link waits with no time limit, so a wake-up that goes astray is a
 * hang, which the timeout fails.
 */
@Timeout(60)
class WaitSetTest
{
    @Test
    void shouldWaitForTwoDevicesAndWakeUpOnEither() throws Exception
    {
        final AtomicReference<WaitRecordingLink> recording = new AtomicReference<>();
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY).pollsInline(true).linkWrapper(link ->
        {
            final WaitRecordingLink wrapped = new WaitRecordingLink(link);
            recording.compareAndSet(null, wrapped);
            return wrapped;
        });
            WaitSet set = WaitSet.create())
        {
            final Context first = fabric.open();
            fabric.linkWrapper(link -> link);
            final Context second = fabric.open();
            final WaiterReceivesTest.Sender sender = new WaiterReceivesTest.Sender(fabric.open(), first);
            final WaiterReceivesTest.Sender toSecond = new WaiterReceivesTest.Sender(fabric.open(), second);
            final WaiterReceivesTest.Receiver one = new WaiterReceivesTest.Receiver(first, true);
            final WaiterReceivesTest.Receiver two = new WaiterReceivesTest.Receiver(second, true);
            set.add(one.channel);
            set.add(two.channel);
            one.cq.requestNotify(false);
            two.cq.requestNotify(false);
            final WaitRecordingLink link = recording.get();
            final Waitable[] ready = new Waitable[4];

            final Thread toFirst = Thread.ofPlatform().start(() ->
            {
                awaitQuietly(link);
                sender.send(one.qp, 1);
            });
            assertEquals(1, set.await(ready, -1, TimeUnit.SECONDS));
            assertSame(one.channel, ready[0]);
            assertEquals(Set.of(Thread.currentThread().getName()), link.receivers,
                "the waiting thread received for the first device itself");
            assertSame(one.cq, one.channel.getCqEvent(0, TimeUnit.SECONDS));
            one.cq.ackEvents(1);
            toFirst.join();

            // the second device's progress thread completes this one; the set's thread waits in the first's link
            final Thread later = Thread.ofPlatform().start(() ->
            {
                awaitQuietly(link);
                toSecond.send(two.qp, 2);
            });
            assertEquals(1, set.await(ready, -1, TimeUnit.SECONDS));
            assertSame(two.channel, ready[0], "woken out of the first device's wait by the second's channel");
            assertSame(two.cq, two.channel.getCqEvent(0, TimeUnit.SECONDS));
            two.cq.ackEvents(1);
            later.join();

            final Thread waker = Thread.ofPlatform().start(set::wakeup);
            waker.join();
            assertEquals(0, set.await(ready, -1, TimeUnit.SECONDS), "a wake-up before the wait ends the next");
        }
    }

    @Test
    void shouldReturnNothingWhenTheTimeRunsOut() throws Exception
    {
        // a link that keeps time: the driver's wait ends at the set's deadline
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY).pollsInline(true);
            WaitSet set = WaitSet.create())
        {
            final WaiterReceivesTest.Receiver receiver = new WaiterReceivesTest.Receiver(fabric.open(), true);
            set.add(receiver.channel);
            receiver.cq.requestNotify(false);
            final Waitable[] ready = new Waitable[1];
            assertEquals(0, set.await(ready, 0, TimeUnit.SECONDS), "only looks");
            final long start = System.nanoTime();
            assertEquals(0, set.await(ready, 30, TimeUnit.MILLISECONDS), "nothing came");
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(30), "waited out its time");
        }
    }

    @Test
    void shouldRefuseMisuseWithAClearError() throws Exception
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY).pollsInline(true);
            WaitSet set = WaitSet.create();
            WaitSet other = WaitSet.create())
        {
            final WaiterReceivesTest.Receiver receiver = new WaiterReceivesTest.Receiver(fabric.open(), true);
            set.add(receiver.channel);
            assertEquals(Errno.EINVAL, assertThrows(RdmaException.class, () -> set.add(receiver.channel)).errno());
            assertEquals(Errno.EBUSY, assertThrows(RdmaException.class, () -> other.add(receiver.channel)).errno());
            set.remove(receiver.channel);
            other.add(receiver.channel);
            other.close();
            assertEquals(Errno.EINVAL,
                assertThrows(RdmaException.class, () -> other.await(new Waitable[1], 0, TimeUnit.SECONDS)).errno());
            set.add(receiver.channel);
        }
    }

    private static void awaitQuietly(final WaitRecordingLink link)
    {
        try
        {
            link.waiterInWait.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
