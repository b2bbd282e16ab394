package io.rdma4j.soft.cm;

import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CM thread as an agent: due timers before completions before received MADs, a task that throws costs
 * itself only (counted), and the idle strategy is the caller's when given.
 */
@Timeout(30)
class CmLoopTest
{
    @Test
    void shouldRunDueTimersThenCompletionsThenMadsAndSurviveATaskThatThrows() throws InterruptedException
    {
        final FakeCmClock clock = new FakeCmClock();
        final List<String> ran = new CopyOnWriteArrayList<>();
        final AtomicInteger failed = new AtomicInteger();
        final CountDownLatch gate = new CountDownLatch(1);
        final CmLoop<String> loop = new CmLoop<>(clock, 4, ran::add, failed::incrementAndGet, null, "cm-loop-test",
            System.getLogger("test"));
        loop.start();
        try
        {
            // the thread is held in a task while the rest is queued, so the order is the loop's choice
            loop.later(() -> awaitQuietly(gate));
            loop.offerMad("mad");
            loop.later(() ->
            {
                throw new IllegalStateException("a bug in one task");
            });
            loop.later(() -> ran.add("completion"));
            loop.schedule(() -> ran.add("timer"), 0);
            loop.schedule(() -> ran.add("later timer"), TimeUnit.SECONDS.toNanos(10));
            gate.countDown();
            loop.awaitIdle();

            assertEquals(List.of("timer", "completion", "mad"), ran);
            assertEquals(1, failed.get(), "the task that threw was counted, and the ones after it ran");
        }
        finally
        {
            loop.stop();
        }
    }

    @Test
    void shouldRefuseAMadBeyondItsCapacity() throws InterruptedException
    {
        final CountDownLatch gate = new CountDownLatch(1);
        final CmLoop<String> loop = new CmLoop<>(new FakeCmClock(), 2, mad -> { }, () -> { }, null, "cm-loop-full",
            System.getLogger("test"));
        loop.start();
        try
        {
            loop.later(() -> awaitQuietly(gate));
            assertTrue(loop.offerMad("1"));
            assertTrue(loop.offerMad("2"));
            assertFalse(loop.offerMad("3"), "two wait already");
            assertEquals(2, loop.madHighWater());
            gate.countDown();
        }
        finally
        {
            loop.stop();
        }
    }

    @Test
    void shouldIdleWithTheStrategyItIsGiven() throws InterruptedException
    {
        final List<String> idlers = new CopyOnWriteArrayList<>();
        final CountDownLatch idled = new CountDownLatch(3);
        final IdleStrategy sleeping = new SleepingMillisIdleStrategy(1);
        final IdleStrategy recording = new IdleStrategy()
        {
            @Override
            public void idle(final int workCount)
            {
                if (workCount == 0)
                {
                    idlers.add(Thread.currentThread().getName());
                    idled.countDown();
                }
                sleeping.idle(workCount);
            }

            @Override
            public void idle()
            {
                idle(0);
            }

            @Override
            public void reset()
            {
            }
        };
        final CmLoop<String> loop = new CmLoop<>(new FakeCmClock(), 2, mad -> { }, () -> { }, recording,
            "cm-loop-idle", System.getLogger("test"));
        loop.start();
        try
        {
            assertTrue(idled.await(10, TimeUnit.SECONDS), "the loop idled through the given strategy");
            assertEquals("cm-loop-idle", idlers.getFirst());
        }
        finally
        {
            loop.stop();
        }
    }

    private static void awaitQuietly(final CountDownLatch gate)
    {
        try
        {
            gate.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
