package io.rdma4j.stat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A file holds any writer's table, and a reader finds each counter by its id, group and name wherever the table
 * lists it; what the writer cannot hold or a reader must not trust is refused or skipped.
 */
class StatFileFormatTest
{
    /** A writer's table as a module over the API would make one: its own ids and groups. */
    static final List<StatCounter> TABLE = List.of(
        new StatCounter(1001, "publication", "fragments_sent"),
        new StatCounter(1002, "publication", "messages_sent"),
        new StatCounter(1101, "subscription", "gaps"),
        new StatCounter(1190, "subscription", "max_lag"));

    @Test
    void shouldPublishEveryCounterWithItsIdGroupAndName(@TempDir final Path dir) throws Exception
    {
        final long[] values = {5, 7, 11, 13};
        try (StatFile file = StatFile.create(dir, "rmcast-pub-0000002a", "239.1.2.3", TABLE))
        {
            assertTrue(file.publish(i -> values[i], "publication session 0x0000002a group 239.1.2.3\n"));
            final StatReader.DeviceStat stat = StatReader.read(file.path());
            assertEquals(StatFile.FORMAT_VERSION, stat.version());
            assertEquals(List.of("rmcast-pub-0000002a", "239.1.2.3"), List.of(stat.device(), stat.address()));
            assertEquals(List.of(new StatReader.Counter(1001, "publication", "fragments_sent", 5),
                new StatReader.Counter(1002, "publication", "messages_sent", 7),
                new StatReader.Counter(1101, "subscription", "gaps", 11),
                new StatReader.Counter(1190, "subscription", "max_lag", 13)), stat.counters());
            assertEquals(13L, stat.counter(1190).orElseThrow().value());
            assertEquals("publication session 0x0000002a group 239.1.2.3\n", stat.describe());
        }
    }

    @Test
    void shouldRefuseATableAReaderWouldMisread(@TempDir final Path dir)
    {
        final IllegalArgumentException repeated = assertThrows(IllegalArgumentException.class,
            () -> StatFile.create(dir, "x", "127.0.0.1", List.of(new StatCounter(1, "device", "a"),
                new StatCounter(1, "device", "b"))));
        assertTrue(repeated.getMessage().contains("repeats"), repeated.getMessage());
        assertThrows(IllegalArgumentException.class, () -> StatFile.create(dir, "x", "127.0.0.1", List.of()));
        final IllegalArgumentException longName = assertThrows(IllegalArgumentException.class,
            () -> new StatCounter(1, "device", "n".repeat(StatCounter.MAX_NAME_BYTES + 1)));
        assertTrue(longName.getMessage().contains("1 to 39 bytes"), longName.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new StatCounter(1, "g".repeat(16), "a"));
        assertThrows(IllegalArgumentException.class, () -> new StatCounter(1, "device", ""));
    }

    @Test
    void shouldNameTheFileByPidObjectAndAddressWithNothingAShellMustQuote(@TempDir final Path dir) throws Exception
    {
        try (StatFile file = StatFile.create(dir, "soft 0/x", "fe80::1%eth0", TABLE))
        {
            assertEquals(ProcessHandle.current().pid() + "-soft_0_x-fe80__1%eth0" + StatFile.SUFFIX,
                file.path().getFileName().toString());
            assertEquals(dir, file.path().getParent());
        }
    }

    @Test
    void shouldForgetAFileWhosePidNowBelongsToAProcessStartedAfterItsDevice(@TempDir final Path dir) throws Exception
    {
        // a file naming this JVM's pid, as a process that died long ago and whose number this JVM then took
        // would have left it: its device opened a day before this JVM started
        final long jvmStart = ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli();
        try (StatFile file = StatFile.create(dir, "gone0", "127.0.0.99", TABLE))
        {
            final Path path = dir.resolve(ProcessHandle.current().pid() + "-gone0-127.0.0.99" + StatFile.SUFFIX);
            assertTrue(Files.exists(path), "the file: " + path);
            assertEquals(1, StatReader.readAll(dir).size(), "the file of a live device is read");
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                channel.write(ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder())
                    .putLong(0, jvmStart - 86_400_000L), StatFile.START_OFFSET);
            }
            assertEquals(List.of(), StatReader.readAll(dir), "a pid that started after the device is another's");
            assertFalse(Files.exists(path), "and the dead device's file is removed");
        }
    }

    @Test
    void shouldReadCountersByTheirIdsWhereverTheFileListsThem(@TempDir final Path dir) throws Exception
    {
        final long[] values = {7, 9, 0, 0};
        try (StatFile file = StatFile.create(dir, "ids1", "127.0.0.97", TABLE))
        {
            assertTrue(file.publish(i -> values[i], null));
            // another version may list its counters in another order: swap the first two entries and values
            try (FileChannel channel = FileChannel.open(file.path(), StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                swap(channel, StatFile.COUNTERS_OFFSET, StatFile.COUNTERS_OFFSET + StatFile.COUNTER_BYTES,
                    StatFile.COUNTER_BYTES);
                final long at = StatFile.valuesOffset(TABLE.size());
                swap(channel, at, at + Long.BYTES, Long.BYTES);
            }
            final StatReader.DeviceStat stat = StatReader.read(file.path());
            assertEquals(List.of(1002, 1001), stat.counters().subList(0, 2).stream().map(StatReader.Counter::id).toList());
            assertEquals(7L, stat.counter(1001).orElseThrow().value());
            assertEquals(9L, stat.counter(1002).orElseThrow().value());
            assertEquals(7L, stat.byName().get("fragments_sent"));
        }
    }

    @Test
    void aRoundWithNoCounterMovedWritesNothingAndTheNextMoveWritesThemAll(@TempDir final Path dir) throws Exception
    {
        final long[] values = {5, 0, 0, 0};
        try (StatFile file = StatFile.create(dir, "idle0", "127.0.0.96", TABLE))
        {
            assertTrue(file.publish(i -> values[i], null));
            final long firstAt = StatFile.valuesOffset(TABLE.size());
            // a mark in the file where the first counter is: a round that wrote would overwrite it
            try (FileChannel channel = FileChannel.open(file.path(), StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                channel.write(ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder()).putLong(0, -1), firstAt);
            }
            assertTrue(file.publish(i -> values[i], null), "an idle round succeeds");
            assertEquals(-1L, StatReader.read(file.path()).byName().get("fragments_sent"), "and writes nothing");
            assertEquals(1, file.unchangedRounds());

            values[1] = 1;
            assertTrue(file.publish(i -> values[i], null));
            final StatReader.DeviceStat stat = StatReader.read(file.path());
            assertEquals(1L, stat.byName().get("messages_sent"), "the counter that moved");
            assertEquals(5L, stat.byName().get("fragments_sent"), "and every other, written again");
            assertEquals(0, file.unchangedRounds());
        }
    }

    private static void swap(final FileChannel channel, final long a, final long b, final int bytes) throws Exception
    {
        final ByteBuffer first = ByteBuffer.allocate(bytes);
        final ByteBuffer second = ByteBuffer.allocate(bytes);
        channel.read(first, a);
        channel.read(second, b);
        channel.write(first.flip(), b);
        channel.write(second.flip(), a);
    }

    @Test
    void shouldNameTheWriterOfAFileOfAnotherFormatVersionWithoutReadingItsCounters(@TempDir final Path dir)
        throws Exception
    {
        try (StatFile file = StatFile.create(dir, "old0", "127.0.0.96", TABLE))
        {
            assertTrue(file.publish(i -> 0, "qp 0x000002 UD RTS\n"));
            try (FileChannel channel = FileChannel.open(file.path(), StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                // version 1's magic: its counters were 32-byte names without ids, which this reader must not
                // take for version 2's
                channel.write(ByteBuffer.wrap(new byte[] {'1'}), StatFile.MAGIC.length - 1);
            }
            final List<StatReader.DeviceStat> stats = StatReader.readAll(dir);
            assertEquals(1, stats.size());
            final StatReader.DeviceStat stat = stats.getFirst();
            assertEquals(List.of("old0", "127.0.0.96"), List.of(stat.device(), stat.address()));
            assertEquals(1, stat.version());
            assertEquals(List.of(), stat.counters());
            assertTrue(stat.describe().startsWith("stat file format 1, not 2"), stat.describe());
        }
    }
}
