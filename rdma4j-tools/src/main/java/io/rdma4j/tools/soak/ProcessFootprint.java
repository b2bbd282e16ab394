package io.rdma4j.tools.soak;

import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a process holds at one moment, for telling a leak from noise over a long soak: live heap
 * after a collection, direct buffers, native memory as the JVM's tracking reports it (when the JVM
 * runs with {@code -XX:NativeMemoryTracking=summary}), resident set, open file descriptors and
 * threads. File descriptors and threads are exact; the byte figures are read after a full GC so
 * that garbage does not look like growth.
 *
 * @param heapUsedBytes     heap in use after {@code System.gc()}.
 * @param directBytes       memory of direct ByteBuffers.
 * @param nativeCommitted   the JVM's committed memory outside the Java heap in bytes, or -1 without native
 *                          tracking.
 * @param rssBytes          resident set size from /proc, or -1 where there is none.
 * @param openFds           entries in /proc/self/fd, or -1 where there is none.
 * @param threads           live threads of the JVM.
 */
public record ProcessFootprint(
    long heapUsedBytes, long directBytes, long nativeCommitted, long rssBytes, int openFds, int threads)
{
    private static final Pattern NMT_TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
    private static final Pattern NMT_HEAP = Pattern.compile("Java Heap \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)");
    private static final Pattern VM_RSS = Pattern.compile("VmRSS:\\s+(\\d+) kB");

    /**
     * @return the footprint now, after a collection.
     */
    public static ProcessFootprint measure()
    {
        // two collections: the first may only queue finalizable and cleanable objects (direct buffers,
        // arenas) that the second frees
        System.gc();
        System.gc();
        final long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long direct = 0;
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                direct = pool.getMemoryUsed();
            }
        }
        return new ProcessFootprint(heap, direct, readNativeCommitted(), readRss(), countOpenFds(),
            ManagementFactory.getThreadMXBean().getThreadCount());
    }

    /**
     * @param before an earlier footprint.
     * @return one line comparing the two, in KiB.
     */
    public String changeSince(final ProcessFootprint before)
    {
        return String.format("heap %d -> %d KiB, direct %d -> %d KiB, native %s -> %s, rss %s -> %s, fds %d -> %d, " +
            "threads %d -> %d",
            before.heapUsedBytes / 1024, heapUsedBytes / 1024, before.directBytes / 1024, directBytes / 1024,
            kib(before.nativeCommitted), kib(nativeCommitted), kib(before.rssBytes), kib(rssBytes),
            before.openFds, openFds, before.threads, threads);
    }

    @Override
    public String toString()
    {
        return String.format("heap %d KiB, direct %d KiB, native %s, rss %s, fds %d, threads %d",
            heapUsedBytes / 1024, directBytes / 1024, kib(nativeCommitted), kib(rssBytes), openFds, threads);
    }

    private static String kib(final long bytes)
    {
        return bytes < 0 ? "n/a" : (bytes / 1024) + " KiB";
    }

    private static long readNativeCommitted()
    {
        try
        {
            final Object summary = ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                new Object[] { new String[] { "summary" } }, new String[] { String[].class.getName() });
            // the total includes the Java heap's committed memory, which GC grows and shrinks at will:
            // without it the figure is the JVM's and the libraries' own memory (direct buffers,
            // threads, code, metaspace, arenas), where a native leak would show
            final Matcher total = NMT_TOTAL.matcher(String.valueOf(summary));
            final Matcher heap = NMT_HEAP.matcher(String.valueOf(summary));
            return total.find() && heap.find() ?
                (Long.parseLong(total.group(2)) - Long.parseLong(heap.group(2))) * 1024 : -1;
        }
        catch (final Exception ex)
        {
            // no DiagnosticCommand bean (another JVM) or tracking off: the figure is simply not known
            return -1;
        }
    }

    private static long readRss()
    {
        try
        {
            final Matcher matcher = VM_RSS.matcher(Files.readString(Path.of("/proc/self/status")));
            return matcher.find() ? Long.parseLong(matcher.group(1)) * 1024 : -1;
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    private static int countOpenFds()
    {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            // the listing's own descriptor is among them
            return (int)fds.count() - 1;
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }
}
