package io.rdma4j.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.verbs.Context;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Spin, then block, by a budget (issue 40): a thread that sleeps for its CQ event, again and again, polls its link
 * for the spin budget before it blocks when its last wait found work. A datagram that comes within the spin costs no
 * wait in the link at all (no sleep, no wake-up); spins that run out make the following waits block at once, so a
 * peer slower than the budget costs one spin in many waits, not one in each.
 * <p>
 * Each round's datagram is sent by a thread that watches the receiving link: once the waiter has looked in this round
 * (it spins), or once it is in the link's wait (it blocks). The order is the link's counts', not timing's.
 */
@Timeout(120)
class SpinThenBlockTest
{
    private static final int ROUNDS = 20;

    /** When the sending thread sends a round's datagram. */
    private enum SendWhen
    {
        /** as soon as the waiter looked (or, in a wait that does not spin, waits) in the round */
        LOOKED,
        /** a while after the waiter entered the link's wait: its spin, if any, ran out */
        BLOCKED,
        /**
         * once the waiter looked, while its next look is held well past the budget (as if it lost its core), which
         * then finds the datagram; to a waiter that blocked instead, at once
         */
        DURING_A_HELD_LOOK
    }

    /** How long a held look lasts at least: three budgets of {@link #aSpinThatLostItsCoreDidNotPay}. */
    private static final long HELD_NS = TimeUnit.MILLISECONDS.toNanos(150);

    /**
     * What the rounds after the first did, as the link counted it, and the receiving device's spin counters over the
     * whole run.
     */
    private record Rounds(int waitsEntered, int roundsThatWaited, long spinsCounted, long spinsPaidCounted)
    {
    }

    @Test
    void aDatagramWithinTheSpinCostsNoWaitInTheLink() throws Exception
    {
        // a budget no loaded machine runs out of between the waiter's look and the datagram it sees sent: the spin
        // ends with the datagram
        final Rounds rounds = run(TimeUnit.SECONDS.toNanos(5), SendWhen.LOOKED);
        assertEquals(0, rounds.waitsEntered(), "waits in the link after the first round");
        // every round after the first spun (the first follows no wait that found work), and each spin paid
        assertEquals(ROUNDS - 1, rounds.spinsCounted(), "wait_spins");
        assertEquals(ROUNDS - 1, rounds.spinsPaidCounted(), "wait_spins_paid");
    }

    @Test
    void withoutABudgetEveryWaitBlocks() throws Exception
    {
        final Rounds rounds = run(0, SendWhen.LOOKED);
        // at least one wait each: a wake-up that is not the datagram's (the progress thread's kick) makes a second
        assertEquals(ROUNDS - 1, rounds.roundsThatWaited(), "rounds after the first that waited in the link");
        assertEquals(0, rounds.spinsCounted(), "wait_spins");
    }

    @Test
    void spinsThatRunOutMakeTheNextWaitsBlockAtOnce() throws Exception
    {
        final Rounds rounds = run(TimeUnit.MICROSECONDS.toNanos(100), SendWhen.BLOCKED);
        // every spin runs out (the datagram leaves only once the waiter blocked): rounds 2, 5, 10 and 19 spin, where
        // a spin without back-off would spin in all 19
        assertEquals(ROUNDS - 1, rounds.roundsThatWaited(), "every round after the first ended in the link's wait");
        assertEquals(4, rounds.spinsCounted(), "wait_spins");
        assertEquals(0, rounds.spinsPaidCounted(), "wait_spins_paid: none of them paid");
    }

    @Test
    void aSpinThatLostItsCoreDidNotPay() throws Exception
    {
        // each round's datagram is found by a look that began within the budget but ended well past it: a spin
        // satisfied so late was off the core meanwhile, where a blocked waiter is woken ahead of the thread that
        // took it. It counts as one that ran out, so the back-off is that of spinsThatRunOutMakeTheNextWaitsBlock.
        // A budget that the sending thread, watching the waiter's looks, never misses on a loaded machine
        final Rounds rounds = run(TimeUnit.MILLISECONDS.toNanos(50), SendWhen.DURING_A_HELD_LOOK);
        assertEquals(0, rounds.spinsPaidCounted(), "wait_spins_paid: none of them paid");
        assertEquals(4, rounds.spinsCounted(), "wait_spins");
    }

    private static Rounds run(final long spinNs, final SendWhen when) throws Exception
    {
        final AtomicReference<LookCountingLink> watched = new AtomicReference<>();
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).socket(UdpLinks.Socket.LINUX).pollsInline(true)
            .waitSpin(spinNs).linkWrapper(LookCountingLink.keepingFirst(watched)))
        {
            final Context receiving = fabric.open();
            fabric.linkWrapper(link -> link);
            final WaiterReceivesTest.Sender sender = new WaiterReceivesTest.Sender(fabric.open(), receiving);
            final WaiterReceivesTest.Receiver receiver = new WaiterReceivesTest.Receiver(receiving, true);
            final LookCountingLink link = watched.get();
            // each round: the link's counts when the receiving thread began it
            final BlockingQueue<int[]> starts = new ArrayBlockingQueue<>(ROUNDS);
            // a daemon, interrupted when the test ends: one that failed leaves it waiting for a round that never comes
            final Thread sending = Thread.ofPlatform().daemon().start(() ->
            {
                for (int i = 0; i < ROUNDS; i++)
                {
                    final int[] start;
                    try
                    {
                        start = starts.take();
                    }
                    catch (final InterruptedException ex)
                    {
                        return;
                    }
                    while (link.waitsEntered.get() <= start[1] &&
                        (when == SendWhen.BLOCKED || link.emptyLooks.get() <= start[0]))
                    {
                        if (Thread.currentThread().isInterrupted())
                        {
                            return;
                        }
                        Thread.onSpinWait();
                    }
                    if (when == SendWhen.DURING_A_HELD_LOOK)
                    {
                        sendDuringAHeldLook(link, start, sender, receiver, i);
                        continue;
                    }
                    if (when == SendWhen.BLOCKED)
                    {
                        // into the wait, so that it slept; the order is the counts'
                        final long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(200);
                        while (System.nanoTime() < until)
                        {
                            Thread.onSpinWait();
                        }
                    }
                    sender.send(receiver.qp, i);
                }
            });
            int waitsEntered = 0;
            int roundsThatWaited = 0;
            try
            {
                for (int i = 0; i < ROUNDS; i++)
                {
                    final int looksBefore = link.emptyLooks.get();
                    final int waitsBefore = link.waitsEntered.get();
                    receiver.cq.requestNotify(false);
                    starts.add(new int[] {looksBefore, waitsBefore});
                    receiver.takeOne(i);
                    if (i > 0)
                    {
                        final int waits = link.waitsEntered.get() - waitsBefore;
                        waitsEntered += waits;
                        roundsThatWaited += waits > 0 ? 1 : 0;
                    }
                }
                sending.join();
            }
            finally
            {
                sending.interrupt();
            }
            final Counters counters = SoftEngine.of(receiving).counters();
            return new Rounds(waitsEntered, roundsThatWaited, counters.get(SoftCounter.WAIT_SPINS),
                counters.get(SoftCounter.WAIT_SPINS_PAID));
        }
    }

    /**
     * Hold the waiter's next look and send while it is held; if the waiter blocks in the link instead (a round that
     * does not spin) before it took the hold, withdraw the hold and send to the blocked waiter.
     */
    private static void sendDuringAHeldLook(final LookCountingLink link, final int[] start,
        final WaiterReceivesTest.Sender sender, final WaiterReceivesTest.Receiver receiver, final int round)
    {
        final int heldBefore = link.looksHeld.get();
        link.holdNextLookNs.set(HELD_NS);
        while (!Thread.currentThread().isInterrupted())
        {
            if (link.looksHeld.get() > heldBefore)
            {
                // released once the datagram is on the receiver's socket: the sending device's flush may be its
                // progress thread's, a moment after the post, and the held look must find it
                final long sentBefore = sender.endpoint.counter(SoftCounter.UDP_SENT_PKTS);
                sender.send(receiver.qp, round);
                while (sender.endpoint.counter(SoftCounter.UDP_SENT_PKTS) == sentBefore &&
                    !Thread.currentThread().isInterrupted())
                {
                    Thread.onSpinWait();
                }
                link.released = true;
                return;
            }
            if (link.waitsEntered.get() > start[1] && link.holdNextLookNs.getAndSet(0) > 0)
            {
                sender.send(receiver.qp, round);
                return;
            }
            Thread.onSpinWait();
        }
    }
}
