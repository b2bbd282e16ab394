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
        final long now = System.nanoTime();
        assertTrue(Libc.deadline(-1, TimeUnit.SECONDS) - now > TimeUnit.DAYS.toNanos(365 * 50L));
        assertTrue(Libc.deadline(0, TimeUnit.SECONDS) - System.nanoTime() <= 0);
        final long inASecond = Libc.deadline(1, TimeUnit.SECONDS) - now;
        assertTrue(inASecond > 0 && inASecond <= TimeUnit.SECONDS.toNanos(2));
    }
}
