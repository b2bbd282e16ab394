package io.rdma4j.soft.stat;

import io.rdma4j.soft.Fabric;
import io.rdma4j.soft.SoftDevices;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
        return SoftDevices.settings().toBuilder().statDirectory(dir).build();
    }

    /**
     * The publisher copies the counters a few times a second: wait, bounded, until the file shows the value.
     */
    static StatReader.DeviceStat awaitCounter(final Path dir, final String counter, final long value) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<StatReader.DeviceStat> stats = StatReader.readAll(dir);
        while (stats.size() != 1 || stats.getFirst().counters().get(counter) != value)
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
}
