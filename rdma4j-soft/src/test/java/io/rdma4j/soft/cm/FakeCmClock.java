package io.rdma4j.soft.cm;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that stands still until the test moves it, so that CM timeouts of seconds or minutes
 * pass at once and exactly.
 */
final class FakeCmClock implements CmClock
{
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<Runnable> wakes = new CopyOnWriteArrayList<>();

    @Override
    public long nanoTime()
    {
        return now.get();
    }

    @Override
    public void onAdvance(final Runnable wake)
    {
        wakes.add(wake);
    }

    /**
     * Move the time on and wake whoever waits on it.
     *
     * @param nanos how far.
     */
    void advance(final long nanos)
    {
        now.addAndGet(nanos);
        wakes.forEach(Runnable::run);
    }
}
