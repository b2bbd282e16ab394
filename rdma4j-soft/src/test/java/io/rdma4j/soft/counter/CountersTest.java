package io.rdma4j.soft.counter;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CountersTest
{
    private static final int LINE_BYTES = 128;

    @Test
    void aDevicesCountersEachHaveACacheLinePairToThemselves()
    {
        final Counters counters = new Counters();
        for (final SoftCounter a : SoftCounter.inIdOrder())
        {
            // clear of the array's header, which shares its line with the object before it on the heap
            assertTrue(counters.index(a) * Long.BYTES >= LINE_BYTES, a.counterName());
            for (final SoftCounter b : SoftCounter.inIdOrder())
            {
                if (a != b)
                {
                    assertTrue(Math.abs(counters.index(a) - counters.index(b)) * Long.BYTES >= LINE_BYTES,
                        a.counterName() + " and " + b.counterName() + " share 128 bytes");
                }
            }
        }
    }

    @Test
    void aQpsCountersLieSideBySide()
    {
        final Counters counters = Counters.compact();
        for (final SoftCounter counter : SoftCounter.inIdOrder())
        {
            assertEquals(counter.id(), counters.index(counter));
        }
    }

    @Test
    void eachCounterCountsOnlyItsOwnInEitherLayout()
    {
        for (final Counters counters : new Counters[] {new Counters(), Counters.compact()})
        {
            for (final SoftCounter counter : SoftCounter.inIdOrder())
            {
                // a distinct total for each: a counter that read or wrote a neighbour's slot shows
                counters.add(counter, counter.id() * 3L);
                counters.increment(counter);
                counters.addOwned(counter, 2);
                counters.incrementOwned(counter);
            }
            final Map<String, Long> snapshot = counters.snapshot();
            assertEquals(SoftCounter.inIdOrder().size(), snapshot.size());
            for (final SoftCounter counter : SoftCounter.inIdOrder())
            {
                final long expected = counter.id() * 3L + 4;
                assertEquals(expected, counters.get(counter), counter.counterName());
                assertEquals(expected, snapshot.get(counter.counterName()), counter.counterName());
            }
        }
    }

    @Test
    void twoThreadsBumpingCountersAtOnceLoseNone() throws InterruptedException
    {
        final Counters counters = new Counters();
        final int bumps = 200_000;
        final CountDownLatch start = new CountDownLatch(1);
        final Thread sender = new Thread(() -> bump(start, counters, SoftCounter.SENT_PKTS, bumps));
        final Thread receiver = new Thread(() -> bump(start, counters, SoftCounter.RCVD_PKTS, bumps));
        sender.start();
        receiver.start();
        start.countDown();
        sender.join();
        receiver.join();
        assertEquals(2L * bumps, counters.get(SoftCounter.SENT_PKTS));
        assertEquals(2L * bumps, counters.get(SoftCounter.RCVD_PKTS));
    }

    private static void bump(final CountDownLatch start, final Counters counters, final SoftCounter counter,
        final int bumps)
    {
        try
        {
            start.await();
        }
        catch (final InterruptedException e)
        {
            throw new IllegalStateException(e);
        }
        for (int i = 0; i < bumps; i++)
        {
            counters.increment(counter);
            // both threads bump this one at once: the atomic add loses none
            counters.increment(SoftCounter.RCVD_PKTS == counter ? SoftCounter.SENT_PKTS : SoftCounter.RCVD_PKTS);
        }
    }
}
