package io.rdma4j.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdma4j.soft.link.Link;
import io.rdma4j.soft.link.socket.UdpLinks;
import io.rdma4j.verbs.Context;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread that sleeps for its CQ event, again and again (a ping-pong's server), finds its link empty each time it
 * comes to wait. Its wait then begins with the link's own wait ({@code poll}, which returns at once if a datagram came
 * meanwhile), not with a receive that finds the socket empty: that look was a system call for nothing, one of four a
 * message cost over UDP where a blocking socket's receiver makes one (issue 40).
 */
@Timeout(120)
class WaitFirstTest
{
    private static final int ROUNDS = 20;

    @Test
    void shouldWaitBeforeItLooksWhenItsLastWaitSlept() throws Exception
    {
        final AtomicReference<LookCountingLink> counting = new AtomicReference<>();
        // the Linux socket, whose batches tell when they drained it (Link.caughtUp): a receiver that got its datagram
        // then stops without a look of its own
        // no spin: a spin's looks are its own (SpinThenBlockTest), and each wait here would spin for a datagram that
        // comes only once the wait blocked
        try (Fabric fabric = new Fabric(Fabric.Kind.UDP).socket(UdpLinks.Socket.LINUX).pollsInline(true).waitSpin(0)
            .linkWrapper(LookCountingLink.keepingFirst(counting)))
        {
            final Context receiving = fabric.open();
            fabric.linkWrapper(link -> link);
            final WaiterReceivesTest.Sender sender = new WaiterReceivesTest.Sender(fabric.open(), receiving);
            final WaiterReceivesTest.Receiver receiver = new WaiterReceivesTest.Receiver(receiving, true);
            final LookCountingLink link = counting.get();
            // each round: the waits the receiving thread had entered when it began the round
            final BlockingQueue<Integer> rounds = new ArrayBlockingQueue<>(ROUNDS);
            // a daemon, interrupted when the test ends: one that failed leaves it waiting for a round that never comes
            final Thread sending = Thread.ofPlatform().daemon().start(() ->
            {
                for (int i = 0; i < ROUNDS; i++)
                {
                    final int entered;
                    try
                    {
                        entered = rounds.take();
                    }
                    catch (final InterruptedException ex)
                    {
                        return;
                    }
                    // once the receiver is in a wait of this round
                    while (link.waitsEntered.get() <= entered)
                    {
                        if (Thread.currentThread().isInterrupted())
                        {
                            return;
                        }
                        Thread.onSpinWait();
                    }
                    // the datagram comes a while into the wait, so that the wait slept on any machine (it is judged
                    // by how long it took); the order itself is the round queue's and the count of waits'
                    final long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(200);
                    while (System.nanoTime() < until)
                    {
                        Thread.onSpinWait();
                    }
                    sender.send(receiver.qp, i);
                }
            });
            int looksAfterTheFirstRound = 0;
            try
            {
                for (int i = 0; i < ROUNDS; i++)
                {
                    final int before = link.emptyLooks.get();
                    receiver.cq.requestNotify(false);
                    rounds.add(link.waitsEntered.get());
                    receiver.takeOne(i);
                    if (i > 0)
                    {
                        looksAfterTheFirstRound += link.emptyLooks.get() - before;
                    }
                }
                sending.join();
            }
            finally
            {
                sending.interrupt();
            }
            assertEquals(0, looksAfterTheFirstRound, "empty receives before the waits that followed a wait that slept");
        }
    }
}
