package io.rdma4j.rdmacore;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The wait under a native completion channel's {@code getCqEvent} and {@code wakeup}: an eventfd written from
 * another thread ends a wait for ever on a descriptor that never becomes readable, the wake-up is drained so the
 * next wait sleeps again, and the channel's descriptor wins when both are ready. Plain libc, no rdma-core needed.
 */
@Timeout(30)
class WakeupFdTest
{
    private final int channelFd = Libc.eventfd();
    private final int wakeFd = Libc.eventfd();

    @AfterEach
    void tearDown()
    {
        Libc.close(channelFd);
        Libc.close(wakeFd);
    }

    @Test
    void shouldEndAWaitForEverWhenWokenFromAnotherThread() throws Exception
    {
        final CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> awaitForEver());
        Libc.signal(wakeFd);

        assertEquals(Libc.WOKEN, waiter.get(10, TimeUnit.SECONDS));
        // drained: the next wait times out rather than seeing the same wake-up again
        assertEquals(Libc.TIMED_OUT, Libc.awaitReadable(channelFd, wakeFd, Libc.deadline(1, TimeUnit.MILLISECONDS)));
    }

    @Test
    void shouldReportTheChannelReadableBeforeAWakeupAndKeepTheWakeup() throws Exception
    {
        Libc.signal(wakeFd);
        Libc.signal(channelFd);

        assertEquals(Libc.READABLE, Libc.awaitReadable(channelFd, wakeFd, Libc.deadline(-1, TimeUnit.SECONDS)));
        assertEquals(Libc.READABLE, Libc.awaitReadable(wakeFd, -1, Libc.deadline(0, TimeUnit.SECONDS)),
            "the wake-up is still pending for the next wait");
    }

    private Integer awaitForEver()
    {
        try
        {
            return Libc.awaitReadable(channelFd, wakeFd, Libc.deadline(-1, TimeUnit.SECONDS));
        }
        catch (final InterruptedException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
