package io.rdma4j.rdmacore;

import io.rdma4j.verbs.WaitDriver;
import io.rdma4j.verbs.WaitSet;
import io.rdma4j.verbs.Waitable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link WaitSet} over channels whose readiness only the kernel knows, as the native provider's are: the set's
 * thread sleeps in {@code poll(2)} over their descriptors ({@link DescriptorWait}), a descriptor made readable from
 * another thread ends it, and a watcher-told member and {@code wakeup} end it too ({@link DescriptorWaitAllocationTest}:
 * the waits allocate nothing).
 * The channels here are eventfds standing for {@code comp_channel->fd}, so no RDMA device is needed; every wait is
 * for ever or far longer than the test's, so a lost wake-up is a failure, not a slow pass.
 */
@Timeout(60)
class DescriptorWaitSetTest
{
    private final List<FdChannel> channels = new ArrayList<>();
    private final WaitSet set = WaitSet.create();
    private final Waitable[] ready = new Waitable[8];

    @AfterEach
    void tearDown()
    {
        set.close();
        channels.forEach(FdChannel::close);
    }

    @Test
    void shouldSleepInPollUntilAnotherThreadMakesOneDescriptorReadable() throws Exception
    {
        final FdChannel first = channel();
        final FdChannel second = channel();
        set.add(first);
        set.add(second);
        assertEquals(0, set.await(ready, 0, TimeUnit.SECONDS), "nothing is readable yet");

        final CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(this::awaitForEver);
        awaitInPoll(first.wait);
        second.post();

        assertEquals(1, waiter.get(20, TimeUnit.SECONDS));
        assertSame(second, ready[0]);
        second.take();
        assertEquals(0, set.await(ready, 0, TimeUnit.SECONDS), "taken: no longer ready");
    }

    @Test
    void shouldPreferTheDescriptorsOverAnotherMembersDriverSoThatTheirEventsAreNotMissed() throws Exception
    {
        // a member whose device would take the wait (as a soft channel's) added first: a set that slept in its
        // driver would never see the descriptor, and this wait for ever would never return
        final TellingChannel told = new TellingChannel();
        final FdChannel fd = channel();
        set.add(told);
        set.add(fd);

        final CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(this::awaitForEver);
        awaitInPoll(fd.wait);
        fd.post();
        assertEquals(1, waiter.get(20, TimeUnit.SECONDS));
        assertSame(fd, ready[0]);
        assertEquals(0, told.driver.awaits, "the other member's driver was not slept in");
        fd.take();

        // and the watcher-told member ends the sleep in poll
        final CompletableFuture<Integer> again = CompletableFuture.supplyAsync(this::awaitForEver);
        awaitInPoll(fd.wait);
        told.makeReady();
        assertEquals(1, again.get(20, TimeUnit.SECONDS));
        assertSame(told, ready[0]);
    }

    @Test
    void shouldEndTheSleepInPollAtAWakeup() throws Exception
    {
        final FdChannel fd = channel();
        set.add(fd);
        final CompletableFuture<Integer> woken = CompletableFuture.supplyAsync(this::awaitForEver);
        awaitInPoll(fd.wait);
        set.wakeup();
        assertEquals(0, woken.get(20, TimeUnit.SECONDS));

    }

    @Test
    void shouldEndAThreadInTheDriversPollWhenItsChannelCloses() throws Exception
    {
        final FdChannel fd = channel();
        final CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> fd.wait.await(new WaitDriver.Wait()
        {
            @Override
            public boolean satisfied()
            {
                return false;
            }

            @Override
            public void roleOffered()
            {
            }

            @Override
            public Waitable[] waitables()
            {
                return new Waitable[] {fd};
            }
        }, -1));
        awaitInPoll(fd.wait);
        fd.close();
        assertEquals(WaitDriver.SATISFIED, waiting.get(20, TimeUnit.SECONDS));
        assertTrue(!fd.wait.waitingForTest());
        assertEquals(null, fd.waitDriver(), "a closed channel names no driver");
        assertEquals(-1, fd.descriptor());
    }

    private FdChannel channel()
    {
        final FdChannel channel = new FdChannel();
        channels.add(channel);
        return channel;
    }

    private int awaitForEver()
    {
        try
        {
            return set.await(ready, -1, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** Until the set's thread is inside the driver's poll (or about to be): its state, not a guess of time. */
    private static void awaitInPoll(final DescriptorWait wait) throws InterruptedException
    {
        while (!wait.waitingForTest())
        {
            Thread.onSpinWait();
            Thread.sleep(0, 100_000);
        }
    }

    /** A channel whose readiness is an eventfd's: the stand-in for a native completion channel. */
    static final class FdChannel implements Waitable
    {
        private final int fd = Libc.eventfd();
        private final DescriptorWait wait = new DescriptorWait();
        private final Arena arena = Arena.ofShared();
        private final MemorySegment one = arena.allocate(ValueLayout.JAVA_LONG).fill((byte)0);
        private final MemorySegment count = arena.allocate(ValueLayout.JAVA_LONG);
        private final MemorySegment capture = Libc.captureState(arena);
        private volatile boolean closed;
        private volatile Runnable watcher;

        FdChannel()
        {
            one.set(ValueLayout.JAVA_LONG, 0, 1L);
        }

        synchronized void post()
        {
            Libc.signal(fd, one, capture);
        }

        synchronized void take()
        {
            Libc.drain(fd, count, capture);
        }

        @Override
        public boolean isReady()
        {
            return !closed && wait.isReadable(fd);
        }

        @Override
        public void watch(final Runnable setWatcher)
        {
            watcher = setWatcher;
        }

        @Override
        public WaitDriver waitDriver()
        {
            return closed ? null : wait;
        }

        @Override
        public int descriptor()
        {
            return closed ? -1 : fd;
        }

        synchronized void close()
        {
            if (closed)
            {
                return;
            }
            closed = true;
            wait.close();
            final Runnable told = watcher;
            if (told != null)
            {
                told.run();
            }
            Libc.close(fd);
            arena.close();
        }
    }

    /** A member that tells its watcher, with a driver of its own that would sleep without the descriptors. */
    private static final class TellingChannel implements Waitable
    {
        private volatile boolean ready;
        private volatile Runnable watcher;
        private final RecordingDriver driver = new RecordingDriver();

        void makeReady()
        {
            ready = true;
            final Runnable told = watcher;
            if (told != null)
            {
                told.run();
            }
        }

        @Override
        public boolean isReady()
        {
            return ready;
        }

        @Override
        public void watch(final Runnable setWatcher)
        {
            watcher = setWatcher;
        }

        @Override
        public WaitDriver waitDriver()
        {
            return driver;
        }
    }

    /** Sleeps until the wait is satisfied, as a device's driver does, and counts how often it was asked. */
    private static final class RecordingDriver implements WaitDriver
    {
        private final CountDownLatch never = new CountDownLatch(1);
        private volatile int awaits;

        @Override
        public int await(final Wait wait, final long timeoutNs)
        {
            awaits++;
            while (!wait.satisfied())
            {
                try
                {
                    never.await(1, TimeUnit.MILLISECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return TIMED_OUT;
                }
            }
            return SATISFIED;
        }

        @Override
        public void stopSeeking(final Wait wait)
        {
        }

        @Override
        public void wakeReceiver(final Thread receiver)
        {
        }
    }
}
