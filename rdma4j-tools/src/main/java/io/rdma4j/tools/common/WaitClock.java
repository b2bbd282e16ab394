package io.rdma4j.tools.common;

import java.util.concurrent.TimeUnit;

/**
 * The {@code --timeout} of the CM example tools, which wait for ever as their C originals do unless told:
 * short slices to wait for an event or a completion in, and whether the whole allowance is spent.
 */
public final class WaitClock
{
    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final int seconds;
    private long deadline;

    /**
     * @param seconds the allowance; 0 waits for ever.
     */
    public WaitClock(final int seconds)
    {
        this.seconds = seconds;
    }

    /**
     * Start the allowance now.
     */
    public void start()
    {
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }

    /**
     * @return true once a limited allowance is spent.
     */
    public boolean timedOut()
    {
        return seconds > 0 && deadline - System.nanoTime() <= 0;
    }

    /**
     * @return how long the next wait may take: a slice, or less when the allowance ends sooner.
     */
    public long waitNanos()
    {
        return seconds > 0 ? Math.max(1, Math.min(SLICE_NANOS, deadline - System.nanoTime())) : SLICE_NANOS;
    }

    /**
     * @return the allowance in seconds.
     */
    public int seconds()
    {
        return seconds;
    }
}
