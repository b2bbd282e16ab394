package io.rdma4j.soft;

import io.rdma4j.soft.link.DatagramInfo;
import io.rdma4j.soft.link.ForwardingLink;
import io.rdma4j.soft.link.Link;

import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * For tests of the threads that wait: records which threads received, and waits with no time limit (only a
 * datagram, a wake-up or the close end a wait), so that a lost wake-up is a hang the test's timeout fails rather
 * than a slow pass; tells when a thread other than the progress thread is in the link's wait.
 */
final class WaitRecordingLink extends ForwardingLink
{
    final Set<String> receivers = ConcurrentHashMap.newKeySet();
    /** Counted down when a thread other than the progress thread waits on the link. */
    final CountDownLatch waiterInWait = new CountDownLatch(1);

    WaitRecordingLink(final Link inner)
    {
        super(inner);
    }

    static boolean isProgressThread()
    {
        return Thread.currentThread().getName().startsWith("rdma4j-");
    }

    @Override
    public boolean receive(final ByteBuffer buffer, final DatagramInfo info)
    {
        final boolean got = inner.receive(buffer, info);
        if (got)
        {
            receivers.add(Thread.currentThread().getName());
        }
        return got;
    }

    @Override
    public void awaitReadable(final long timeoutNanos)
    {
        if (timeoutNanos <= 0)
        {
            return;
        }
        if (!isProgressThread())
        {
            waiterInWait.countDown();
        }
        inner.awaitReadable(TimeUnit.DAYS.toNanos(1));
    }
}
