package io.rdma4j.stat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Set;

/**
 * The counters of one counting object (a soft device, a publication, a subscription) in a memory-mapped file, so
 * that another process of the same user ({@code rdma4j stat}) reads them while it runs, as Aeron's tools read its
 * media driver's counters. The object counts in its own memory, and a publishing thread (the soft device's
 * {@code StatPublisher}, or a {@link StatFilePublisher}) copies the values here a few times a second through
 * {@link CounterValues}: a file another process truncates or replaces then costs the publishing, never the data
 * path (a write to a truncated mapping is a SIGBUS, which must not land there). A text section describes what
 * changes rarely: a device's QPs, groups and connection manager ids; a publication's session and group.
 * <p>
 * The files live in an {@link OwnerOnlyDirectory} ({@link StatDirectory}: {@code rdma4j.stat.dir},
 * {@code <java.io.tmpdir>/rdma4j-stat-USER} by default), are
 * made new ({@code O_CREAT|O_EXCL}, so never through a link) and {@code rw-------}: a QP's number, state and
 * peer are what a blind packet injector lacks, so only the device's user may read them.
 * <p>
 * Layout (the platform's byte order, little-endian on every platform rdma4j runs on), format version 2:
 * <pre>
 *   0  magic "r4jstat" and the format version, '2' (8 bytes)
 *   8  pid (long)               16 start time, ms since the epoch (long)
 *  24  counter count N (int)    28 describe section length in use (int)
 *  32  device name (32 bytes, UTF-8, NUL-padded)
 *  64  device address (48 bytes, UTF-8, NUL-padded)
 * 128  counters, N x 64 bytes: id (int), 4 bytes zero, group (16 bytes), name (40 bytes), UTF-8, NUL-padded
 *  V   counter values, N x 8 bytes, the i-th counter's i-th (V = 128 + 64 N)
 *  D   describe section, 16 KiB of UTF-8 text (D = V + 8 N rounded up to 64)
 * </pre>
 * A counter is known by its {@linkplain StatCounter#id() id} (or its name), never by its place in the table:
 * the table lists what the writer counts, so a release that adds counters keeps the format, and a reader
 * finds the ids it knows and shows the others by their names. Version 1 ({@code r4jstat1}) had names without
 * ids, 32 bytes each; the header up to the table is the same in both, so a reader still tells whose a file of
 * another version is, and whether its process is alive.
 */
public final class StatFile implements AutoCloseable
{
    /** The magic without the version byte: every version's files start so. */
    static final byte[] MAGIC_PREFIX = "r4jstat".getBytes(StandardCharsets.US_ASCII);
    /** The format version this class writes and {@link StatReader} reads, as the magic's last byte. */
    public static final int FORMAT_VERSION = 2;
    static final byte[] MAGIC = ("r4jstat" + FORMAT_VERSION).getBytes(StandardCharsets.US_ASCII);
    static final int PID_OFFSET = 8;
    static final int START_OFFSET = 16;
    static final int COUNT_OFFSET = 24;
    static final int DESCRIBE_LENGTH_OFFSET = 28;
    static final int NAME_OFFSET = 32;
    static final int NAME_BYTES = 32;
    static final int ADDRESS_OFFSET = 64;
    static final int ADDRESS_BYTES = 48;
    static final int COUNTERS_OFFSET = 128;
    static final int COUNTER_BYTES = 64;
    static final int COUNTER_ID = 0;
    static final int COUNTER_GROUP = 8;
    static final int GROUP_BYTES = 16;
    static final int COUNTER_NAME = 24;
    static final int COUNTER_NAME_BYTES = 40;
    static final int DESCRIBE_BYTES = 16 * 1024;
    /** Files end so. */
    public static final String SUFFIX = ".stat";
    /** What the directory is for, in a refusal's message. */
    static final String ROLE = "rdma4j stat files";

    private final Path path;
    private final FileChannel channel;
    private final Object fileKey;
    private final Arena arena;
    private final MemorySegment file;
    private final long valuesOffset;
    private final long describeOffset;
    /** The counters in the file's order. */
    private final StatCounter[] counters;
    /** What the file holds, in the same order: a round where no counter moved writes nothing. Guarded by this. */
    private final long[] written;
    /** Whether {@link #written} holds what was written; false until the first publish. */
    private boolean anyWritten;
    /** Publishes in a row, up to now, that found no counter moved. Guarded by this. */
    private int unchangedRounds;
    /** Why the file is no longer written, or null while it is; guarded by this. */
    private String abandoned;

    private StatFile(final Path path, final FileChannel channel, final Object fileKey, final Arena arena,
        final MemorySegment file, final StatCounter[] counters, final long valuesOffset, final long describeOffset)
    {
        this.counters = counters;
        this.written = new long[counters.length];
        this.path = path;
        this.channel = channel;
        this.fileKey = fileKey;
        this.arena = arena;
        this.file = file;
        this.valuesOffset = valuesOffset;
        this.describeOffset = describeOffset;
    }

    static long valuesOffset(final int count)
    {
        return align(COUNTERS_OFFSET + (long)COUNTER_BYTES * count);
    }

    static long describeOffset(final int count)
    {
        return align(valuesOffset(count) + (long)Long.BYTES * count);
    }

    static long size(final int count)
    {
        return describeOffset(count) + DESCRIBE_BYTES;
    }

    private static long align(final long offset)
    {
        return (offset + 63) & ~63L;
    }

    /**
     * Create the file of a counting object of this process, replacing one a dead process of the same pid left,
     * and removing those of other dead processes.
     *
     * @param dir        the directory of the files, made if missing; it must be this user's alone.
     * @param deviceName the object's name (a device's, {@code rmcast-pub-SESSION}), up to 31 bytes shown.
     * @param address    its address, as text, up to 47 bytes shown: with the name and the pid, what makes the
     *                   file's name unique.
     * @param table      the counters, in the order {@link #publish}'s values give them.
     * @return the file, mapped.
     * @throws IOException              if the directory is not this user's alone, or the file cannot be made.
     * @throws IllegalArgumentException if the table is empty, too long, or repeats an id or a name.
     */
    public static StatFile create(final Path dir, final String deviceName, final String address,
        final List<StatCounter> table) throws IOException
    {
        final StatCounter[] counters = StatCounter.checkTable(table).toArray(new StatCounter[0]);
        final int count = counters.length;
        final long describe = describeOffset(count);
        final long size = size(count);
        OwnerOnlyDirectory.open(dir, ROLE);
        StatReader.removeDead(dir);
        final long pid = ProcessHandle.current().pid();
        // the address too: two devices of one process may share a name (the connection manager opens
        // one per address), never an address
        final Path path = dir.resolve(pid + "-" + fileNamePart(deviceName) + "-" + fileNamePart(address) + SUFFIX);
        // a file of this name is a dead process's of the same pid (ours are unique by address): only this
        // user can have put it in the directory, and it is unlinked, not opened
        Files.deleteIfExists(path);
        final FileChannel channel = FileChannel.open(path, Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), OwnerOnlyDirectory.fileMode());
        final Arena arena = Arena.ofShared();
        try
        {
            final Object key = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
            final MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            file.set(ValueLayout.JAVA_LONG, PID_OFFSET, pid);
            file.set(ValueLayout.JAVA_LONG, START_OFFSET, System.currentTimeMillis());
            file.set(ValueLayout.JAVA_INT, COUNT_OFFSET, count);
            putText(file, NAME_OFFSET, NAME_BYTES, deviceName);
            putText(file, ADDRESS_OFFSET, ADDRESS_BYTES, address);
            for (int i = 0; i < count; i++)
            {
                final long entry = COUNTERS_OFFSET + (long)COUNTER_BYTES * i;
                file.set(ValueLayout.JAVA_INT, entry + COUNTER_ID, counters[i].id());
                putText(file, entry + COUNTER_GROUP, GROUP_BYTES, counters[i].group());
                putText(file, entry + COUNTER_NAME, COUNTER_NAME_BYTES, counters[i].name());
            }
            // the magic last: a reader that sees it sees a complete header
            MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, file, 0, MAGIC.length);
            return new StatFile(path, channel, key, arena, file, counters, valuesOffset(count), describe);
        }
        catch (final IOException | RuntimeException ex)
        {
            arena.close();
            channel.close();
            Files.deleteIfExists(path);
            throw ex;
        }
    }

    /**
     * Delete this process's own stat files from a directory of them, as the process exits without having closed
     * its devices: a reader that still has one mapped keeps its last figures, and no later reader lists a process
     * that is gone. Only the names this process gives its files are touched ({@code <pid>-...}), and only in a
     * directory that is this user's alone.
     *
     * @param dir the stat directory.
     * @return how many were deleted.
     */
    public static int removeOwn(final Path dir)
    {
        return OwnerOnlyDirectory.deleteFilesIfOwnerOnly(dir, ROLE, ProcessHandle.current().pid() + "-*" + SUFFIX,
            file -> true);
    }

    /** A name or an address as part of a file's name: never a separator, nothing a shell must quote. */
    private static String fileNamePart(final String text)
    {
        return text.replaceAll("[^A-Za-z0-9_.%-]", "_");
    }

    static void putText(final MemorySegment file, final long offset, final int bytes, final String text)
    {
        final byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        final int length = Math.min(utf8.length, bytes - 1);
        file.asSlice(offset, bytes).fill((byte)0);
        MemorySegment.copy(MemorySegment.ofArray(utf8), 0, file, offset, length);
    }

    /**
     * @return the file.
     */
    public Path path()
    {
        return path;
    }

    /**
     * Copy the counters into the file, and the describe section if given.
     *
     * @param values   the counters' values, by their place in the table.
     * @param describe what the object holds now (a device's QPs and groups), a few lines of text cut to the
     *                 section; or null to leave the section as it is.
     * @return true if written; false if the file is closed or was abandoned, now or before, because another
     *         process truncated or replaced it ({@link #abandoned()} says why).
     */
    public synchronized boolean publish(final CounterValues values, final String describe)
    {
        if (abandoned != null || !arena.scope().isAlive())
        {
            return false;
        }
        final boolean moved = moved(values);
        unchangedRounds = moved ? 0 : unchangedRounds + 1;
        if (describe == null && !moved)
        {
            // an idle device's round costs a look at its counters: no write, and none of the integrity check's
            // system calls, which were most of an idle server's publishing thread (the file's next write checks)
            return true;
        }
        final String broken = integrity();
        if (broken != null)
        {
            abandon(broken);
            return false;
        }
        try
        {
            for (int i = 0; i < counters.length; i++)
            {
                final long value = values.value(i);
                written[i] = value;
                file.set(ValueLayout.JAVA_LONG, valuesOffset + (long)Long.BYTES * i, value);
            }
            anyWritten = true;
            if (describe != null)
            {
                final byte[] utf8 = describe.getBytes(StandardCharsets.UTF_8);
                final int length = Math.min(utf8.length, DESCRIBE_BYTES);
                // length 0 first, so a reader never takes a half-written text for a whole one
                file.set(ValueLayout.JAVA_INT, DESCRIBE_LENGTH_OFFSET, 0);
                MemorySegment.copy(MemorySegment.ofArray(utf8), 0, file, describeOffset, length);
                file.set(ValueLayout.JAVA_INT, DESCRIBE_LENGTH_OFFSET, length);
            }
            return true;
        }
        catch (final InternalError ex)
        {
            // the JVM's word for a SIGBUS on a mapping: the file shrank between the check and the copy
            abandon("truncated while written (" + ex.getMessage() + ")");
            return false;
        }
    }

    /**
     * @return publishes in a row, up to the last, that found no counter moved and wrote nothing.
     */
    public synchronized int unchangedRounds()
    {
        return unchangedRounds;
    }

    /**
     * @return whether a counter differs from what the file holds.
     */
    private boolean moved(final CounterValues values)
    {
        if (!anyWritten)
        {
            return true;
        }
        for (int i = 0; i < counters.length; i++)
        {
            if (values.value(i) != written[i])
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return why the file is no longer written (another process truncated or replaced it), or null.
     */
    public synchronized String abandoned()
    {
        return abandoned;
    }

    /** What is wrong with the file now, or null: its size and its identity, checked without touching the map. */
    private String integrity()
    {
        if (!stillAtPath())
        {
            return "replaced or removed by another process";
        }
        try
        {
            final long size = channel.size();
            return size < file.byteSize() ? "truncated to " + size + " bytes by another process" : null;
        }
        catch (final IOException ex)
        {
            return "unreadable (" + ex.getMessage() + ")";
        }
    }

    /** Whether the path still names the file this device made (not another put in its place). */
    private boolean stillAtPath()
    {
        try
        {
            final Object key = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
            return fileKey == null || fileKey.equals(key);
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private void abandon(final String why)
    {
        abandoned = path + " " + why + ": no longer written";
        arena.close();
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            // closing a descriptor of a file we give up on: nothing more to lose
        }
    }

    /**
     * Unmap and delete the file: the device is gone. A file put in its place by another process is left.
     */
    @Override
    public synchronized void close()
    {
        final boolean ours = stillAtPath();
        if (arena.scope().isAlive())
        {
            arena.close();
        }
        try
        {
            channel.close();
            if (ours)
            {
                Files.deleteIfExists(path);
            }
        }
        catch (final IOException ex)
        {
            // a stale file names a dead pid, which the reader skips and removes
        }
    }
}
