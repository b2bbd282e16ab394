package io.rdma4j.soft.stat;

import io.rdma4j.soft.Fabric;
import io.rdma4j.soft.config.SoftSettings;
import io.rdma4j.soft.counter.CounterGroup;
import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.stat.StatFile;
import io.rdma4j.stat.StatReader;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.InstanceNotFoundException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
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
    void shouldPublishEveryCounterWithItsIdGroupAndName(@TempDir final Path dir) throws Exception
    {
        final Counters counters = new Counters();
        for (final SoftCounter counter : SoftCounter.values())
        {
            counters.add(counter, 1000L + counter.id());
        }
        try (StatFile file = SoftStatFiles.create(dir, "ids0", "127.0.0.98"))
        {
            assertTrue(file.publish(SoftStatFiles.values(counters), "qp 0x000001 RC RTS\n"));
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
}
