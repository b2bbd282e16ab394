package io.rdma4j.soft.stat;

import io.rdma4j.soft.Fabric;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.counter.CounterGroup;
import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.InstanceNotFoundException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A device's counters are published in its stat file, where a reader (another process, here the same one)
 * sees the values the device counts, and in a JMX MBean; closing the device removes both.
 */
public class StatFileTest
{
    @Test
    void shouldShowTheDevicesOwnCountersInTheFileAndOverJmx(@TempDir final Path dir) throws Exception
    {
        final MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        final ObjectName name;
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY).settings(statIn(dir)))
        {
            final Context context = fabric.open();
            new SelfSender(context).send(3);
            final long sent = context.counters().get("sent_pkts");
            assertEquals(3, sent);

            final StatReader.DeviceStat stat = awaitCounter(dir, "sent_pkts", sent);
            assertEquals(ProcessHandle.current().pid(), stat.pid());
            assertEquals(context.device().name(), stat.device());

            name = CountersMBean.objectName(context.device().name(), stat.address());
            assertEquals(sent, jmx.getAttribute(name, "sent_pkts"));
            // every counter, the link's and the connection manager's too, known by the id and group no version
            // changes
            final MBeanAttributeInfo[] attributes = jmx.getMBeanInfo(name).getAttributes();
            assertEquals(SoftCounter.inIdOrder().stream().map(SoftCounter::counterName).toList(),
                Arrays.stream(attributes).map(MBeanAttributeInfo::getName).toList());
            for (final MBeanAttributeInfo attribute : attributes)
            {
                final SoftCounter counter = SoftCounter.byName(attribute.getName());
                assertEquals(String.valueOf(counter.id()), attribute.getDescriptor().getFieldValue("id"));
                assertEquals(counter.group().groupName(), attribute.getDescriptor().getFieldValue("group"));
            }
            assertEquals(0L, jmx.getAttribute(name, "cm_handled"));
            assertEquals(stat.byName().get("udp_send_failures"), jmx.getAttribute(name, "udp_send_failures"));
        }
        try (var files = Files.list(dir))
        {
            assertFalse(files.findAny().isPresent(), "closing the device removes its file");
        }
        assertThrows(InstanceNotFoundException.class, () -> jmx.getAttribute(name, "sent_pkts"));
    }

    /**
     * @param dir where the devices' counters files go.
     * @return this JVM's settings with that directory: a test's devices write where it reads.
     */
    public static SoftSettings statIn(final Path dir)
    {
        return SoftSettings.fromSystem().toBuilder().statDirectory(dir).build();
    }

    /**
     * The publisher copies the counters a few times a second: wait, bounded, until the file shows the value.
     */
    static StatReader.DeviceStat awaitCounter(final Path dir, final String counter, final long value) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<StatReader.DeviceStat> stats = StatReader.readAll(dir);
        while (stats.size() != 1 || stats.getFirst().byName().get(counter) != value)
        {
            assertTrue(System.nanoTime() < deadline, "the file never showed " + counter + " = " + value + ": " + stats);
            TimeUnit.MILLISECONDS.sleep(10);
            stats = StatReader.readAll(dir);
        }
        return stats.getFirst();
    }

    @Test
    void shouldForgetAFileWhosePidNowBelongsToAProcessStartedAfterItsDevice(@TempDir final Path dir) throws Exception
    {
        // a file naming this JVM's pid, as a process that died long ago and whose number this JVM then took
        // would have left it: its device opened a day before this JVM started
        final long jvmStart = ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli();
        try (StatFile file = StatFile.create(dir, "gone0", "127.0.0.99"))
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
    void shouldPublishEveryCounterWithItsIdGroupAndName(@TempDir final Path dir) throws Exception
    {
        final Counters counters = new Counters();
        for (final SoftCounter counter : SoftCounter.values())
        {
            counters.add(counter, 1000L + counter.id());
        }
        try (StatFile file = StatFile.create(dir, "ids0", "127.0.0.98"))
        {
            assertTrue(file.publish(counters, "qp 0x000001 RC RTS\n"));
            final StatReader.DeviceStat stat = StatReader.read(file.path());
            assertEquals(StatFile.FORMAT_VERSION, stat.version());
            assertEquals(SoftCounter.values().length, stat.counters().size());
            for (final StatReader.Counter read : stat.counters())
            {
                final SoftCounter counter = SoftCounter.byId(read.id());
                assertEquals(counter.counterName(), read.name(), "id " + read.id());
                assertEquals(counter.group().groupName(), read.group(), read.name());
                assertEquals(1000L + counter.id(), read.value(), read.name());
            }
            assertEquals(1000L + SoftCounter.CM_HANDLED.id(), stat.counter(SoftCounter.CM_HANDLED.id())
                .orElseThrow().value());
            assertEquals(CounterGroup.LINK.groupName(), stat.counter(SoftCounter.UDP_SEND_SYSCALLS.id())
                .orElseThrow().group());
            assertEquals("qp 0x000001 RC RTS\n", stat.describe());
        }
    }

    @Test
    void shouldReadCountersByTheirIdsWhereverTheFileListsThem(@TempDir final Path dir) throws Exception
    {
        final Counters counters = new Counters();
        counters.add(SoftCounter.SENT_PKTS, 7);
        counters.add(SoftCounter.RCVD_PKTS, 9);
        try (StatFile file = StatFile.create(dir, "ids1", "127.0.0.97"))
        {
            assertTrue(file.publish(counters, null));
            // another version may list its counters in another order: swap the first two entries and values
            final int count = SoftCounter.values().length;
            try (FileChannel channel = FileChannel.open(file.path(), StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                swap(channel, StatFile.COUNTERS_OFFSET, StatFile.COUNTERS_OFFSET + StatFile.COUNTER_BYTES,
                    StatFile.COUNTER_BYTES);
                final long values = StatFile.valuesOffset(count);
                swap(channel, values, values + Long.BYTES, Long.BYTES);
            }
            final StatReader.DeviceStat stat = StatReader.read(file.path());
            assertEquals(List.of(SoftCounter.RCVD_PKTS.id(), SoftCounter.SENT_PKTS.id()),
                stat.counters().subList(0, 2).stream().map(StatReader.Counter::id).toList());
            assertEquals(7L, stat.counter(SoftCounter.SENT_PKTS.id()).orElseThrow().value());
            assertEquals(9L, stat.counter(SoftCounter.RCVD_PKTS.id()).orElseThrow().value());
            assertEquals(7L, stat.byName().get("sent_pkts"));
        }
    }

    @Test
    void aRoundWithNoCounterMovedWritesNothingAndTheNextMoveWritesThemAll(@TempDir final Path dir) throws Exception
    {
        final Counters counters = new Counters();
        counters.add(SoftCounter.SENT_PKTS, 5);
        try (StatFile file = StatFile.create(dir, "idle0", "127.0.0.96"))
        {
            assertTrue(file.publish(counters, null));
            final long sentAt = StatFile.valuesOffset(SoftCounter.values().length) +
                (long)Long.BYTES * SoftCounter.inIdOrder().indexOf(SoftCounter.SENT_PKTS);
            // a mark in the file where sent_pkts is: a round that wrote would overwrite it
            try (FileChannel channel = FileChannel.open(file.path(), StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
                channel.write(ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder()).putLong(0, -1), sentAt);
            }
            assertTrue(file.publish(counters, null), "an idle round succeeds");
            assertEquals(-1L, StatReader.read(file.path()).byName().get("sent_pkts"), "and writes nothing");

            counters.add(SoftCounter.RCVD_PKTS, 1);
            assertTrue(file.publish(counters, null));
            final StatReader.DeviceStat stat = StatReader.read(file.path());
            assertEquals(1L, stat.byName().get("rcvd_pkts"), "the counter that moved");
            assertEquals(5L, stat.byName().get("sent_pkts"), "and every other, written again");
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
    void shouldNameTheDeviceOfAFileOfAnotherFormatVersionWithoutReadingItsCounters(@TempDir final Path dir)
        throws Exception
    {
        try (StatFile file = StatFile.create(dir, "old0", "127.0.0.96"))
        {
            assertTrue(file.publish(new Counters(), "qp 0x000002 UD RTS\n"));
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
