package io.rdma4j.soft.stat;

import io.rdma4j.soft.Fabric;
import io.rdma4j.stat.StatReader;
import io.rdma4j.verbs.Context;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Opening and publishing a device makes no MBean server (a few hundred milliseconds of a process's first
 * connection); the device's MBean comes once the process has one. A class of its own: each test class runs in a
 * JVM of its own ({@code reuseForks=false}), and the others' make the platform server.
 */
class StatJmxOnDemandTest
{
    @Test
    void shouldRegisterTheCountersOnlyOnceTheProcessHasAnMBeanServer(@TempDir final Path dir) throws Exception
    {
        assertEquals(List.of(), MBeanServerFactory.findMBeanServer(null), "this JVM starts without one");
        final MBeanServer jmx;
        final ObjectName name;
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY).settings(StatFileTest.statIn(dir)))
        {
            final Context context = fabric.open();
            new SelfSender(context).send(2);
            // rounds of the publisher ran: the file shows what was sent
            final StatReader.DeviceStat stat = StatFileTest.awaitCounter(dir, "sent_pkts", 2);
            assertEquals(List.of(), MBeanServerFactory.findMBeanServer(null), "the device made no MBean server");

            jmx = ManagementFactory.getPlatformMBeanServer();
            name = CountersMBean.objectName(context.device().name(), stat.address());
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!jmx.isRegistered(name))
            {
                assertTrue(System.nanoTime() < deadline, "the MBean came within 10 s of the server: " + name);
                TimeUnit.MILLISECONDS.sleep(10);
            }
            assertEquals(2L, jmx.getAttribute(name, "sent_pkts"));
        }
        assertFalse(jmx.isRegistered(name), "closing the device unregisters it");
    }
}
