package io.rdma4j.rmcast;

import io.rdma4j.stat.StatReader;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A publication's and a subscription's counters are in counters files of their own, where {@code rdma4j stat}
 * reads them (its reader, here in the same process) while they run, and the files go when they close.
 */
@Timeout(60)
class RmcastStatTest
{
    private static final int MESSAGES = 40;

    @Test
    void shouldShowThePublicationsAndSubscriptionsCountersAndGaugesUntilTheyClose(@TempDir final Path tmp)
        throws Exception
    {
        final Path dir = tmp.resolve("stat");
        try (MemoryFabric fabric = new MemoryFabric(31); Arena arena = Arena.ofConfined();
             Publication publication = Publication.open(config(dir), fabric.device(1), fabric.group(1));
             Subscription subscription = Subscription.open(config(dir), fabric.device(2), fabric.group(1), null))
        {
            final int[] delivered = new int[1];
            final Runnable step = () ->
            {
                publication.doWork();
                subscription.poll((buffer, offset, length, session, position) -> delivered[0]++, 64);
            };
            Traffic.await(() -> publication.memberCount() == 1 && subscription.imageCount() == 1, step, 10_000,
                "the member joins");
            final MemorySegment message = arena.allocate(64);
            for (int i = 0; i < MESSAGES; i++)
            {
                while (publication.offer(message) < 0)
                {
                    step.run();
                }
            }
            Traffic.await(() -> delivered[0] == MESSAGES, step, 10_000, "every message delivered");

            final String pubName = String.format("rmcast-pub-%08x", publication.sessionId());
            // the copying thread writes a few times a second: the files show the objects' own counts within that
            Traffic.await(() -> shows(dir, pubName, "messages_sent", MESSAGES) &&
                shows(dir, "rmcast-sub-", "messages_delivered", MESSAGES) &&
                shows(dir, pubName, "position", publication.position()), step, 10_000,
                "the files show what the publication and the subscription counted: " + read(dir));

            final StatReader.DeviceStat pub = find(dir, pubName).orElseThrow();
            assertEquals(fabric.group(1).getAddress().getHostAddress(), pub.address());
            assertEquals(ProcessHandle.current().pid(), pub.pid());
            assertTrue(pub.counters().stream().allMatch(c -> c.group().equals("publication")), pub.toString());
            assertEquals(RmcastCounter.MESSAGES_SENT.id(), pub.counters().stream()
                .filter(c -> c.name().equals("messages_sent")).findFirst().orElseThrow().id());
            assertEquals(1L, pub.counter(RmcastStat.PUBLICATION_MEMBERS_ID).orElseThrow().value());
            // every counter the publication's own snapshot has, by name
            for (final Map.Entry<String, Long> counted : publication.counters().entrySet())
            {
                assertTrue(pub.byName().containsKey(counted.getKey()), counted.getKey());
            }
            assertTrue(pub.describe().startsWith(String.format("publication session 0x%08x group ",
                publication.sessionId())), pub.describe());

            final StatReader.DeviceStat sub = find(dir, "rmcast-sub-").orElseThrow();
            assertTrue(sub.counters().stream().allMatch(c -> c.group().equals("subscription")), sub.toString());
            assertEquals(1L, sub.counter(RmcastStat.SUBSCRIPTION_IMAGES_ID).orElseThrow().value());
            assertEquals(subscription.counters().keySet(), Set.copyOf(sub.byName().keySet().stream()
                .filter(name -> !name.equals("images") && !name.equals("max_lag")).toList()));
            assertTrue(sub.describe().startsWith("subscription group "), sub.describe());

            try (var files = Files.list(dir))
            {
                for (final Path file : files.toList())
                {
                    assertEquals("rw-------", PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)), file.toString());
                }
            }
        }
        assertEquals(List.of(), read(dir), "closing them removes their files");
        assertEquals(0, RmcastStat.published(), "and nothing is published any more");
    }

    @Test
    void shouldKeepNoFileWhenTheConfigSaysSo(@TempDir final Path tmp) throws Exception
    {
        final Path dir = tmp.resolve("stat");
        try (MemoryFabric fabric = new MemoryFabric(32);
             Publication publication = Publication.open(config(dir).stat(false), fabric.device(1), fabric.group(1)))
        {
            assertTrue(publication.sessionId() != 0);
            assertFalse(Files.exists(dir), "no directory, no file");
            assertEquals(0, RmcastStat.published());
        }
    }

    @Test
    void shouldRefuseAStatSettingItDoesNotKnow()
    {
        System.setProperty("rdma4j.stat", "maybe");
        try
        {
            final RdmaException refused = assertThrows(RdmaException.class, () -> new MulticastConfig().conclude());
            assertEquals(Errno.EINVAL, refused.errno());
            assertTrue(refused.getMessage().contains("rdma4j.stat 'maybe' is neither 'true'"), refused.getMessage());
        }
        finally
        {
            System.clearProperty("rdma4j.stat");
        }
        assertTrue(new MulticastConfig().conclude().stat());
    }

    private static MulticastConfig config(final Path dir)
    {
        return new MulticastConfig().windowSlots(256).maxMessageLength(65536).statDirectory(dir);
    }

    private static boolean shows(final Path dir, final String name, final String counter, final long value)
    {
        return find(dir, name).map(stat -> stat.byName().get(counter)).filter(v -> v == value).isPresent();
    }

    private static Optional<StatReader.DeviceStat> find(final Path dir, final String namePrefix)
    {
        return read(dir).stream().filter(stat -> stat.device().startsWith(namePrefix)).findFirst();
    }

    private static List<StatReader.DeviceStat> read(final Path dir)
    {
        try
        {
            return StatReader.readAll(dir);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
