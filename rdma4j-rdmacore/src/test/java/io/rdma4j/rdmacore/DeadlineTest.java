package io.rdma4j.rdmacore;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The native channels' waits take the API's timeouts: 0 does not wait, a negative one waits for ever
 * (it returned at once, so {@code getEvent(-1, ...)} on librdmacm gave null where the soft device
 * waited).
 */
class DeadlineTest
{
    @Test
    void shouldWaitForEverOnANegativeTimeoutAndNotAtAllOnZero()
    {
        // each deadline between the clock's readings before and after its call: no bound on how long the call
        // (the first loads Libc) takes on a loaded machine
        long deadline = Libc.deadline(-1, TimeUnit.SECONDS);
        long after = System.nanoTime();
        assertTrue(deadline - after > TimeUnit.DAYS.toNanos(365 * 50L));

        long before = System.nanoTime();
        deadline = Libc.deadline(0, TimeUnit.SECONDS);
        after = System.nanoTime();
        assertTrue(deadline - before >= 0 && deadline - after <= 0, "the deadline is the call's now");

        before = System.nanoTime();
        deadline = Libc.deadline(1, TimeUnit.SECONDS);
        after = System.nanoTime();
        assertTrue(deadline - before >= TimeUnit.SECONDS.toNanos(1) && deadline - after <= TimeUnit.SECONDS.toNanos(1),
            "the deadline is a second after the call's now");
    }
}
