package io.rdma4j.soft.counter;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
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
        // every slot, shared and receive side: the receive side's is written by another thread than the shared one
        final List<Integer> slots = new ArrayList<>();
        for (final SoftCounter a : SoftCounter.inIdOrder())
        {
            slots.add(counters.index(a));
            slots.add(counters.receiveSideIndex(a));
        }
        for (int i = 0; i < slots.size(); i++)
        {
            // clear of the array's header, which shares its line with the object before it on the heap
            assertTrue(slots.get(i) * Long.BYTES >= LINE_BYTES, "slot " + slots.get(i));
            for (int j = i + 1; j < slots.size(); j++)
            {
                assertTrue(Math.abs(slots.get(i) - slots.get(j)) * Long.BYTES >= LINE_BYTES,
                    "slots " + slots.get(i) + " and " + slots.get(j) + " share 128 bytes");
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
                counters.addOnReceiveSide(counter, 5);
                counters.incrementOnReceiveSide(counter);
                counters.increment(counter, true);
                counters.increment(counter, false);
            }
            final Map<String, Long> snapshot = counters.snapshot();
            assertEquals(SoftCounter.inIdOrder().size(), snapshot.size());
            for (final SoftCounter counter : SoftCounter.inIdOrder())
            {
                final long expected = counter.id() * 3L + 12;
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

    /**
     * The receive side bumps its slot without an atomic while another thread adds to the same counter's shared
     * slot (as a multicast loopback counts rcvd_pkts on a sending thread): the counter reads both, all of them.
     * Were the receive side's plain read-and-store on the shared slot, it would overwrite adds made between its
     * read and its store, and the total would come up short.
     */
    @Test
    void theReceiveSideAndAnotherThreadBumpingOneCounterLoseNone() throws InterruptedException
    {
        for (final Counters counters : new Counters[] {new Counters(), Counters.compact()})
        {
            final int bumps = 500_000;
            final CountDownLatch start = new CountDownLatch(1);
            final Thread receiveSide = new Thread(() ->
            {
                awaitQuietly(start);
                for (int i = 0; i < bumps; i++)
                {
                    counters.incrementOnReceiveSide(SoftCounter.RCVD_PKTS);
                }
            });
            final Thread sender = new Thread(() ->
            {
                awaitQuietly(start);
                for (int i = 0; i < bumps; i++)
                {
                    counters.increment(SoftCounter.RCVD_PKTS);
                }
            });
            receiveSide.start();
            sender.start();
            start.countDown();
            receiveSide.join();
            sender.join();
            assertEquals(2L * bumps, counters.get(SoftCounter.RCVD_PKTS));
            assertEquals(2L * bumps, counters.snapshot().get(SoftCounter.RCVD_PKTS.counterName()));
            assertEquals(0, counters.get(SoftCounter.SENT_PKTS), "no neighbour touched");
        }
    }

    private static void awaitQuietly(final CountDownLatch start)
    {
        try
        {
            start.await();
        }
        catch (final InterruptedException e)
        {
            throw new IllegalStateException(e);
        }
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
