package io.rdma4j.stat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The publisher's thread copies what a writer counts into its file while it is registered, and closing the
 * registration deletes the file.
 */
@Timeout(30)
class StatFilePublisherTest
{
    @Test
    void shouldCopyTheValuesInWhileRegisteredAndDeleteTheFileWhenClosed(@TempDir final Path tmp) throws Exception
    {
        final Path dir = tmp.resolve("stat");
        final StatFilePublisher publisher = new StatFilePublisher("test-stat", System.getLogger("test"));
        final AtomicLong sent = new AtomicLong(3);
        final StatFile file = StatFile.create(dir, "rmcast-pub-00000001", "239.1.2.3", StatFileFormatTest.TABLE);
        final Path path = file.path();
        try (StatFilePublisher.Registration registration = publisher.add(file, i -> i == 0 ? sent.get() : i,
            "publication session 0x00000001\n"))
        {
            assertEquals(path, registration.file().path());
            // written once as it is added, describe and all
            final StatReader.DeviceStat first = StatReader.read(path);
            assertEquals(3L, first.byName().get("fragments_sent"));
            assertEquals(3L, first.byName().get("max_lag"));
            assertEquals("publication session 0x00000001\n", first.describe());
            assertEquals(1, publisher.size());

            sent.set(41);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (StatReader.read(path).byName().get("fragments_sent") != 41)
            {
                assertTrue(System.nanoTime() < deadline, "the publishing thread never copied the new value");
                TimeUnit.MILLISECONDS.sleep(10);
            }
            assertEquals("publication session 0x00000001\n", StatReader.read(path).describe(), "the text stays");
        }
        assertFalse(Files.exists(path), "closing the registration deletes the file");
        assertEquals(0, publisher.size());
        assertEquals(List.of(), StatReader.readAll(dir));
    }
}
