package io.rdma4j.soft.stat;

import io.rdma4j.soft.Counters;
import io.rdma4j.soft.SoftCounter;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A device's counters in a memory-mapped file, so that another process ({@code rdma4j stat}) reads
 * them while the device runs, as Aeron's tools read its media driver's counters. The device's
 * {@link Counters} live in the file itself: bumping one is the same atomic add as in heap memory,
 * with no copy and no publishing thread. A text section, rewritten about once a second, describes
 * what changes rarely: the QPs, the multicast groups, the connection manager's ids on the device.
 * <p>
 * Layout (little-endian, as the JVM writes it on every platform rdma4j runs on):
 * <pre>
 *   0  magic "r4jstat1" (8 bytes)
 *   8  pid (long)               16 start time, ms since the epoch (long)
 *  24  counter count N (int)    28 describe section length in use (int)
 *  32  device name (32 bytes, UTF-8, NUL-padded)
 *  64  device address (48 bytes, UTF-8, NUL-padded)
 * 128  counter names, N x 32 bytes
 *  V   counter values, N x 8 bytes (V = 128 + 32 N rounded up to 64)
 *  D   describe section, 16 KiB of UTF-8 text (D = V + 8 N rounded up to 64)
 * </pre>
 */
public final class StatFile implements AutoCloseable
{
    static final byte[] MAGIC = "r4jstat1".getBytes(StandardCharsets.US_ASCII);
    static final int PID_OFFSET = 8;
    static final int START_OFFSET = 16;
    static final int COUNT_OFFSET = 24;
    static final int DESCRIBE_LENGTH_OFFSET = 28;
    static final int NAME_OFFSET = 32;
    static final int NAME_BYTES = 32;
    static final int ADDRESS_OFFSET = 64;
    static final int ADDRESS_BYTES = 48;
    static final int LABELS_OFFSET = 128;
    static final int LABEL_BYTES = 32;
    static final int DESCRIBE_BYTES = 16 * 1024;
    /** The directory the files are in, unless {@code rdma4j.stat.dir} or {@code RDMA4J_STAT_DIR} say. */
    public static final String DIR_PROPERTY = "rdma4j.stat.dir";
    /** Files end so. */
    public static final String SUFFIX = ".stat";

    private final Path path;
    private final MemorySegment file;
    private final Counters counters;
    private final long describeOffset;

    private StatFile(final Path path, final MemorySegment file, final long valuesOffset, final long describeOffset)
    {
        this.path = path;
        this.file = file;
        this.counters = new Counters(file.asSlice(valuesOffset, Counters.bytes()));
        this.describeOffset = describeOffset;
    }

    /**
     * @return where device files go: {@code rdma4j.stat.dir}, {@code RDMA4J_STAT_DIR}, or
     *         {@code <java.io.tmpdir>/rdma4j-stat}.
     */
    public static Path directory()
    {
        final String property = System.getProperty(DIR_PROPERTY);
        if (property != null && !property.isBlank())
        {
            return Path.of(property);
        }
        final String environment = System.getenv("RDMA4J_STAT_DIR");
        return environment != null && !environment.isBlank() ? Path.of(environment) :
            Path.of(System.getProperty("java.io.tmpdir"), "rdma4j-stat");
    }

    static long valuesOffset(final int count)
    {
        return align(LABELS_OFFSET + (long)LABEL_BYTES * count);
    }

    static long describeOffset(final int count)
    {
        return align(valuesOffset(count) + (long)Long.BYTES * count);
    }

    private static long align(final long offset)
    {
        return (offset + 63) & ~63L;
    }

    /**
     * Create the file of a device of this process, replacing one a dead process of the same pid left.
     *
     * @param deviceName the device's name.
     * @param address    its address, as text.
     * @return the file, mapped; its {@link #counters()} are the device's.
     * @throws IOException if the file cannot be made.
     */
    public static StatFile create(final String deviceName, final String address) throws IOException
    {
        final int count = SoftCounter.values().length;
        final long describe = describeOffset(count);
        final long size = describe + DESCRIBE_BYTES;
        final Path dir = directory();
        Files.createDirectories(dir);
        final long pid = ProcessHandle.current().pid();
        // the address too: two devices of one process may share a name (the connection manager opens
        // one per address), never an address
        final Path path = dir.resolve(pid + "-" + deviceName + "-" + address.replace(':', '_') + SUFFIX);
        // an automatic arena: the mapping lives as long as the counters are reachable, so a late bump
        // (or a read of a closed device's counters) never meets unmapped memory; close() only unlinks
        final Arena arena = Arena.ofAuto();
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING))
        {
            final MemorySegment file = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            file.set(ValueLayout.JAVA_LONG, PID_OFFSET, pid);
            file.set(ValueLayout.JAVA_LONG, START_OFFSET, System.currentTimeMillis());
            file.set(ValueLayout.JAVA_INT, COUNT_OFFSET, count);
            putText(file, NAME_OFFSET, NAME_BYTES, deviceName);
            putText(file, ADDRESS_OFFSET, ADDRESS_BYTES, address);
            for (final SoftCounter counter : SoftCounter.values())
            {
                putText(file, LABELS_OFFSET + (long)LABEL_BYTES * counter.ordinal(), LABEL_BYTES,
                    counter.counterName());
            }
            // the magic last: a reader that sees it sees a complete header
            MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, file, 0, MAGIC.length);
            return new StatFile(path, file, valuesOffset(count), describe);
        }
        catch (final IOException | RuntimeException ex)
        {
            Files.deleteIfExists(path);
            throw ex;
        }
    }

    static void putText(final MemorySegment file, final long offset, final int bytes, final String text)
    {
        final byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        final int length = Math.min(utf8.length, bytes - 1);
        file.asSlice(offset, bytes).fill((byte)0);
        MemorySegment.copy(MemorySegment.ofArray(utf8), 0, file, offset, length);
    }

    /**
     * @return the device's counters, in the file.
     */
    public Counters counters()
    {
        return counters;
    }

    /**
     * @return the file.
     */
    public Path path()
    {
        return path;
    }

    /**
     * Replace the describe section: what the device holds now (QPs, groups), a few lines of text.
     * Text beyond the section is cut.
     *
     * @param text the lines.
     */
    public void describe(final String text)
    {
        final byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        final int length = Math.min(utf8.length, DESCRIBE_BYTES);
        // length 0 first, so a reader never takes a half-written text for a whole one
        file.set(ValueLayout.JAVA_INT, DESCRIBE_LENGTH_OFFSET, 0);
        MemorySegment.copy(MemorySegment.ofArray(utf8), 0, file, describeOffset, length);
        file.set(ValueLayout.JAVA_INT, DESCRIBE_LENGTH_OFFSET, length);
    }

    /**
     * Delete the file: the device is gone. The mapping stays until the counters are unreachable.
     */
    @Override
    public void close()
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            // a stale file names a dead pid, which the reader skips and removes
        }
    }
}
