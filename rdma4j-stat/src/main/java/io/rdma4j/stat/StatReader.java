package io.rdma4j.stat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Reads the {@link StatFile}s of this user's devices running on this machine, from any of the user's
 * processes: what {@code rdma4j stat} prints. A file whose process is gone (it was killed before it could
 * delete it) is removed.
 */
public final class StatReader
{
    /** More counters than any device has: a count beyond it is not a stat file's. */
    static final int MAX_COUNTERS = 4096;
    /** A stat file of {@link #MAX_COUNTERS} counters; anything larger is not read. */
    private static final long MAX_FILE_BYTES = StatFile.size(MAX_COUNTERS);
    /** The header every version's file has: magic, pid, start, counts, name and address. */
    private static final int HEADER_BYTES = StatFile.COUNTERS_OFFSET;
    /** How far a process's start instant may seem to lie after its own device's start. */
    private static final long START_SLACK_MS = 2_000;

    private StatReader()
    {
    }

    /**
     * One counter of a device's file.
     *
     * @param id    its id, which no other counter ever has.
     * @param group what it counts for: {@code device}, {@code link}, {@code cm}, {@code publication}, ...
     *              (the writer's {@link StatCounter#group()}).
     * @param name  its name.
     * @param value its value when read.
     */
    public record Counter(int id, String group, String name, long value)
    {
    }

    /**
     * One device's file, read at one moment.
     *
     * @param pid      the process.
     * @param started  when the device opened, ms since the epoch.
     * @param device   its name.
     * @param address  its address.
     * @param version  the file's format version; one other than {@link StatFile#FORMAT_VERSION} (a device of
     *                 another rdma4j version) has no counters here and a describe line that says so.
     * @param counters every counter, in the file's order, which is no reader's business: find one by id or name.
     * @param describe its QPs and groups, a line each.
     */
    public record DeviceStat(long pid, long started, String device, String address, int version,
        List<Counter> counters, String describe)
    {
        /**
         * @return every counter's value by name, in the file's order.
         */
        public Map<String, Long> byName()
        {
            final Map<String, Long> map = new LinkedHashMap<>();
            for (final Counter counter : counters)
            {
                map.put(counter.name(), counter.value());
            }
            return map;
        }

        /**
         * @param id a counter's id.
         * @return the counter of that id, if the file has it.
         */
        public Optional<Counter> counter(final int id)
        {
            return counters.stream().filter(c -> c.id() == id).findFirst();
        }
    }

    /**
     * @param directory where the files are (the devices' {@code rdma4j.stat.dir}); it must be this user's alone.
     * @return every live device's counters now, by pid and name. Anything in the directory that is not a
     *         regular {@code rw-------} file of this user (a link, a FIFO, another user's file) is skipped
     *         unopened, so reading never blocks and never reads what someone else planted.
     * @throws IOException if the directory cannot be listed, or is not this user's alone (the message says why).
     */
    public static List<DeviceStat> readAll(final Path directory) throws IOException
    {
        final List<DeviceStat> stats = new ArrayList<>();
        if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS))
        {
            return stats;
        }
        final int uid = OwnerOnlyDirectory.check(directory, StatFile.ROLE);
        for (final Path file : statFiles(directory))
        {
            if (OwnerOnlyDirectory.isOwnFile(file, uid))
            {
                final DeviceStat stat = read(file);
                if (stat != null)
                {
                    stats.add(stat);
                }
            }
        }
        return stats;
    }

    /**
     * Delete the files of devices whose processes are gone (killed before they could delete them). Only files
     * of this user's are looked at; the caller has checked the directory.
     *
     * @param directory where the files are.
     * @return how many were deleted.
     */
    static int removeDead(final Path directory)
    {
        int removed = 0;
        try
        {
            final int uid = OwnerOnlyDirectory.currentUid();
            for (final Path file : statFiles(directory))
            {
                if (OwnerOnlyDirectory.isOwnFile(file, uid) && read(file) == null && !Files.exists(file))
                {
                    removed++;
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // a directory we cannot list now: left for the next device or reader
        }
        return removed;
    }

    private static List<Path> statFiles(final Path directory) throws IOException
    {
        try (Stream<Path> listing = Files.list(directory))
        {
            return listing.filter(p -> p.getFileName().toString().endsWith(StatFile.SUFFIX)).sorted().toList();
        }
    }

    /**
     * Whether the process that wrote a stat file still runs. Its number alone does not say: Linux gives
     * numbers out again, to processes and to threads (whose ids {@link ProcessHandle#of} also finds), so a
     * process that started after the device it is said to own is another that took the number.
     *
     * @param pid               the number in the file.
     * @param deviceStartMillis when the device opened, ms since the epoch (the file's start time).
     * @return true if a process of that number runs and started no later than the device.
     */
    static boolean writerAlive(final long pid, final long deviceStartMillis)
    {
        final Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive())
        {
            return false;
        }
        final Optional<Instant> started = handle.get().info().startInstant();
        // the start instant comes from clock ticks since boot: allow it a little slack against the wall clock
        return started.isEmpty() || started.get().toEpochMilli() <= deviceStartMillis + START_SLACK_MS;
    }

    /**
     * @param file a device's file; not followed if it is a link. The caller has checked it is a regular
     *             file: opening a FIFO would block.
     * @return what it holds, or null if it is not a complete stat file or its process is gone (then the file
     *         is deleted).
     * @throws IOException if it cannot be read.
     */
    public static DeviceStat read(final Path file) throws IOException
    {
        final ByteBuffer map;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))
        {
            // read, not mapped: a file truncated under a mapping is a SIGBUS here
            final long size = channel.size();
            if (size < HEADER_BYTES || size > MAX_FILE_BYTES)
            {
                return null;
            }
            map = ByteBuffer.allocate((int)size).order(ByteOrder.nativeOrder());
            while (map.hasRemaining() && channel.read(map) >= 0)
            {
                // a regular file reads to its end; one that shrank meanwhile ends the loop early
            }
            map.flip();
        }
        catch (final NoSuchFileException ex)
        {
            // the device closed while we listed
            return null;
        }
        final long size = map.limit();
        final int prefix = StatFile.MAGIC_PREFIX.length;
        if (size < HEADER_BYTES || !Arrays.equals(StatFile.MAGIC_PREFIX, 0, prefix, map.array(), 0, prefix))
        {
            return null;
        }
        final long pid = map.getLong(StatFile.PID_OFFSET);
        final long started = map.getLong(StatFile.START_OFFSET);
        if (!writerAlive(pid, started))
        {
            // whatever its version: every version's header has the pid and the start here
            Files.deleteIfExists(file);
            return null;
        }
        final String device = text(map, StatFile.NAME_OFFSET, StatFile.NAME_BYTES);
        final String address = text(map, StatFile.ADDRESS_OFFSET, StatFile.ADDRESS_BYTES);
        final int version = map.get(prefix) - '0';
        if (version != StatFile.FORMAT_VERSION)
        {
            // its counters are laid out otherwise: say whose it is rather than misread it or hide the device
            return new DeviceStat(pid, started, device, address, version, List.of(),
                "stat file format " + (char)map.get(prefix) + ", not " + StatFile.FORMAT_VERSION +
                    ": written by another rdma4j version, whose rdma4j stat reads it\n");
        }
        final int count = map.getInt(StatFile.COUNT_OFFSET);
        if (count <= 0 || count > MAX_COUNTERS || StatFile.size(count) > size)
        {
            return null;
        }
        final int values = (int)StatFile.valuesOffset(count);
        final int describe = (int)StatFile.describeOffset(count);
        final List<Counter> counters = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final int entry = StatFile.COUNTERS_OFFSET + StatFile.COUNTER_BYTES * i;
            counters.add(new Counter(map.getInt(entry + StatFile.COUNTER_ID),
                text(map, entry + StatFile.COUNTER_GROUP, StatFile.GROUP_BYTES),
                text(map, entry + StatFile.COUNTER_NAME, StatFile.COUNTER_NAME_BYTES),
                map.getLong(values + Long.BYTES * i)));
        }
        final int describeLength = Math.clamp(map.getInt(StatFile.DESCRIBE_LENGTH_OFFSET), 0, StatFile.DESCRIBE_BYTES);
        return new DeviceStat(pid, started, device, address, version, List.copyOf(counters),
            new String(map.array(), describe, describeLength, StandardCharsets.UTF_8));
    }

    private static String text(final ByteBuffer map, final int offset, final int bytes)
    {
        int length = 0;
        while (length < bytes && map.get(offset + length) != 0)
        {
            length++;
        }
        return new String(map.array(), offset, length, StandardCharsets.UTF_8);
    }
}
