package io.rdma4j.soft;

import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.ForwardingLink;
import io.rdma4j.soft.link.Link;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * A receiving device's link that counts what its waiting thread (not the progress thread) did: receives that found
 * nothing, and waits entered. Its waits keep their time limits, unlike {@link WaitRecordingLink}'s: a test's round
 * starts only once the waiting thread is in the link's wait, which needs the progress thread to give the role back
 * if it holds it. The device's receives in place come through {@link #receive}, as {@link Link#receiveInPlace}'s
 * default makes them. For the tests of how a waiter looks, spins and blocks ({@code WaitFirstTest},
 * {@code SpinThenBlockTest}).
 */
final class LookCountingLink extends ForwardingLink
{
    final AtomicInteger emptyLooks = new AtomicInteger();
    final AtomicInteger waitsEntered = new AtomicInteger();
    /**
     * Set by a test: the waiting thread's next look is held this long at least, and until {@link #released} is set,
     * before it looks: as if the thread lost its core meanwhile. Taken (reset to 0) by the look it holds.
     */
    final AtomicLong holdNextLookNs = new AtomicLong();
    /** Looks held so far. */
    final AtomicInteger looksHeld = new AtomicInteger();
    /** Set by the test to end a held look; reset by that look. */
    volatile boolean released;

    LookCountingLink(final Link inner)
    {
        super(inner);
    }

    /**
     * @param first where the first link wrapped is kept: the first device the fabric opens is the receiving one.
     * @return a {@code Fabric.linkWrapper} that wraps each link in a counting one.
     */
    static UnaryOperator<Link> keepingFirst(final AtomicReference<LookCountingLink> first)
    {
        return link ->
        {
            final LookCountingLink wrapped = new LookCountingLink(link);
            first.compareAndSet(null, wrapped);
            return wrapped;
        };
    }

    @Override
    public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
    {
        final boolean waiter = !WaitRecordingLink.isProgressThread();
        if (waiter)
        {
            final long holdNs = holdNextLookNs.getAndSet(0);
            if (holdNs > 0)
            {
                final long until = System.nanoTime() + holdNs;
                looksHeld.incrementAndGet();
                while (!released || System.nanoTime() < until)
                {
                    Thread.onSpinWait();
                }
                released = false;
            }
        }
        final boolean got = inner.receive(buffer, info);
        if (!got && waiter)
        {
            emptyLooks.incrementAndGet();
        }
        return got;
    }

    @Override
    public void awaitReadable(final long timeoutNanos)
    {
        if (timeoutNanos > 0 && !WaitRecordingLink.isProgressThread())
        {
            waitsEntered.incrementAndGet();
        }
        inner.awaitReadable(timeoutNanos);
    }
}
