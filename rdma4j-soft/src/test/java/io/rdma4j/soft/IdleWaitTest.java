package io.rdma4j.soft;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdma4j.soft.link.Link;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread that waits for a CQ event on a device where nothing happens drives the device, and so wakes when the
 * link's wait ends: whatever needs it sooner wakes it, so the wait lasts {@link Link#IDLE_WAIT_NANOS}, a second, at
 * a time. At 100 ms each, those wake-ups were most of an idle Netty server's CPU (issue 40's idle target).
 */
@Timeout(60)
class IdleWaitTest
{
    @Test
    void anIdleWaiterWakesOncePerIdleWait() throws Exception
    {
        final AtomicReference<LookCountingLink> counting = new AtomicReference<>();
        // polling mode, the default, in which a waiting thread takes the receive role
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).pollsInline(true)
            .linkWrapper(LookCountingLink.keepingFirst(counting)))
        {
            final WaiterReceivesTest.Receiver receiver = new WaiterReceivesTest.Receiver(fabric.open(), true);
            final LookCountingLink link = counting.get();
            receiver.cq.requestNotify(false);
            final int before = link.waitsEntered.get();
            final long start = System.nanoTime();
            // the subject, not a synchronisation: a wait of three seconds in which nothing comes
            assertNull(receiver.channel.getCqEvent(3, TimeUnit.SECONDS));
            final long waited = System.nanoTime() - start;
            final int waits = link.waitsEntered.get() - before;
            // about once a second: a wait per second and one for the rest, one more for a kick of the progress
            // thread's at the start (at 100 ms a wait, this was 30)
            final long most = waited / TimeUnit.SECONDS.toNanos(1) + 2;
            assertTrue(waits >= 1 && waits <= most, "the waiter entered the link's wait " + waits + " times in " +
                TimeUnit.NANOSECONDS.toMillis(waited) + " ms; at most " + most + " expected");
        }
    }

    /**
     * A device that closes wakes its progress thread, then ends its runner: the thread, woken, must not go back into
     * an idle wait before the runner's end reaches it, or every close takes a whole idle wait (a second; each close
     * cost up to 100 ms when the wait was that long). Not a measure of speed: a bound at half the idle wait, which
     * a close took in full without the fix.
     */
    @Test
    void aClosingDeviceDoesNotWaitOutAnIdleWait() throws Exception
    {
        for (int i = 0; i < 3; i++)
        {
            final long start;
            try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY).pollsInline(true))
            {
                // a device with a QP and nothing to do: its progress thread in the link's wait
                new WaiterReceivesTest.Receiver(fabric.open(), true);
                start = System.nanoTime();
            }
            final long closed = System.nanoTime() - start;
            assertTrue(closed < Link.IDLE_WAIT_NANOS / 2, "closing an idle device took " +
                TimeUnit.NANOSECONDS.toMillis(closed) + " ms");
        }
    }
}
