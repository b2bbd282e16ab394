package io.rdma4j.tools.perf;

/**
 * How both the rdma4j loops and the UDP baseline wait in busy-poll mode, so the two are measured with
 * the same idle strategy: spin with {@link Thread#onSpinWait()} for a while, then yield between polls.
 * Pure spinning would be perftest's way, but two processes and the soft device's own threads share two
 * cores here, and a spinner that never yields can starve the thread it waits for.
 */
final class IdleSpin
{
    /** Empty polls spent spinning before yielding the core between polls. */
    static final int SPIN_POLLS = 2000;

    private int idle;

    /**
     * Called after an empty poll.
     */
    void idle()
    {
        if (++idle < SPIN_POLLS)
        {
            Thread.onSpinWait();
        }
        else
        {
            Thread.yield();
        }
    }

    /**
     * Called after a poll that found work.
     */
    void reset()
    {
        idle = 0;
    }
}
