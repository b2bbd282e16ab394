package io.rdma4j.soft.cm;

/**
 * The time a {@link ConnectionManager} runs its retransmissions, MRA waits and timewaits by. The
 * system clock in production; tests give a clock they advance themselves, so that a minute of CM
 * retries takes no minute.
 */
public interface CmClock
{
    /**
     * @return a monotonic time in nanoseconds.
     */
    long nanoTime();

    /**
     * Tell the clock whom to wake when it jumps: a clock that moves by itself never calls it.
     *
     * @param wake called after every jump.
     */
    default void onAdvance(final Runnable wake)
    {
    }

    /**
     * @return {@link System#nanoTime()}.
     */
    static CmClock system()
    {
        return System::nanoTime;
    }
}
