package io.rdma4j.soft.link;

import static io.rdma4j.soft.link.LinkTesting.freePort;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.rdma4j.testing.TestNet;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A sender publishes a record with a release store, so its read of the receiver's parked flag may come before the
 * record is visible: a receiver that sets the flag while a record is claimed but not yet published must not wait
 * for a wake-up that sender may never send.
 */
final class SameHostWaitTest
{
    /** Where the ring's control block (its tail first) lies in an inbox file. */
    private static final long TAIL_AT = 256;

    @Test
    void aReceiverAboutToWaitDoesNotWaitOnARecordStillBeingWritten() throws IOException
    {
        try (SameHostLink b = (SameHostLink)SameHostLink.over(TestLinks.open(TestNet.hostAddress(13), freePort()),
            TestLinks.shmDirectory(), System.getLogger("b")))
        {
            // a sender's claim of 64 bytes at b's tail, its record not yet published
            try (FileChannel channel = FileChannel.open(b.inboxPath(), StandardOpenOption.READ,
                StandardOpenOption.WRITE))
            {
                final MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(),
                    Arena.ofAuto());
                file.set(ValueLayout.JAVA_LONG, TAIL_AT, file.get(ValueLayout.JAVA_LONG, TAIL_AT) + 64);
            }
            // a wait for a minute: returns at once, as the record will be there as soon as its writer publishes it
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> b.awaitReadable(TimeUnit.MINUTES.toNanos(1)),
                "waited with a record claimed in the inbox");
            assertFalse(b.waiting(), "the parked flag left set after the wait");
        }
    }
}
