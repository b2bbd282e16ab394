package io.rdma4j.soft.stat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Reads the {@link StatFile}s of the devices running on this machine, from any process: what
 * {@code rdma4j stat} prints. A file whose process is gone (it was killed before it could delete it)
 * is removed.
 */
public final class StatReader
{
    /** How far a process's start instant may seem to lie after its own device's start. */
    private static final long START_SLACK_MS = 2_000;

    private StatReader()
    {
    }

    /**
     * One device's file, read at one moment.
     *
     * @param pid      the process.
     * @param started  when the device opened, ms since the epoch.
     * @param device   its name.
     * @param address  its address.
     * @param counters every counter by name, in the device's order.
     * @param describe its QPs and groups, a line each.
     */
    public record DeviceStat(long pid, long started, String device, String address, Map<String, Long> counters,
        String describe)
    {
    }

    /**
     * @param directory where the files are ({@link StatFile#directory()}).
     * @return every live device's counters now, by pid and name.
     * @throws IOException if the directory cannot be listed.
     */
    public static List<DeviceStat> readAll(final Path directory) throws IOException
    {
        final List<DeviceStat> stats = new ArrayList<>();
        if (!Files.isDirectory(directory))
        {
            return stats;
        }
        final List<Path> files;
        try (Stream<Path> listing = Files.list(directory))
        {
            files = listing.filter(p -> p.getFileName().toString().endsWith(StatFile.SUFFIX)).sorted().toList();
        }
        for (final Path file : files)
        {
            final DeviceStat stat = read(file);
            if (stat != null)
            {
                stats.add(stat);
            }
        }
        return stats;
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
     * @param file a device's file.
     * @return what it holds, or null if it is not a complete stat file or its process is gone.
     * @throws IOException if it cannot be read.
     */
    public static DeviceStat read(final Path file) throws IOException
    {
        try (Arena arena = Arena.ofConfined(); FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final long size = channel.size();
            if (size < StatFile.LABELS_OFFSET)
            {
                return null;
            }
            final MemorySegment map = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            if (MemorySegment.ofArray(StatFile.MAGIC).mismatch(map.asSlice(0, StatFile.MAGIC.length)) != -1)
            {
                return null;
            }
            final long pid = map.get(ValueLayout.JAVA_LONG, StatFile.PID_OFFSET);
            if (!writerAlive(pid, map.get(ValueLayout.JAVA_LONG, StatFile.START_OFFSET)))
            {
                Files.deleteIfExists(file);
                return null;
            }
            final int count = map.get(ValueLayout.JAVA_INT, StatFile.COUNT_OFFSET);
            final long values = StatFile.valuesOffset(count);
            final long describe = StatFile.describeOffset(count);
            if (count <= 0 || describe + StatFile.DESCRIBE_BYTES > size)
            {
                return null;
            }
            final Map<String, Long> counters = new LinkedHashMap<>();
            for (int i = 0; i < count; i++)
            {
                counters.put(text(map, StatFile.LABELS_OFFSET + (long)StatFile.LABEL_BYTES * i, StatFile.LABEL_BYTES),
                    map.get(ValueLayout.JAVA_LONG, values + (long)Long.BYTES * i));
            }
            final int describeLength = Math.min(map.get(ValueLayout.JAVA_INT, StatFile.DESCRIBE_LENGTH_OFFSET),
                StatFile.DESCRIBE_BYTES);
            return new DeviceStat(pid, map.get(ValueLayout.JAVA_LONG, StatFile.START_OFFSET),
                text(map, StatFile.NAME_OFFSET, StatFile.NAME_BYTES), text(map, StatFile.ADDRESS_OFFSET,
                StatFile.ADDRESS_BYTES), counters, new String(map.asSlice(describe, Math.max(0, describeLength))
                .toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
        }
        catch (final NoSuchFileException ex)
        {
            // the device closed while we listed
            return null;
        }
    }

    private static String text(final MemorySegment map, final long offset, final int bytes)
    {
        final byte[] raw = map.asSlice(offset, bytes).toArray(ValueLayout.JAVA_BYTE);
        int length = 0;
        while (length < raw.length && raw[length] != 0)
        {
            length++;
        }
        return new String(raw, 0, length, StandardCharsets.UTF_8);
    }
}
