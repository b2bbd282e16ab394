package io.rdma4j.soft.stat;

import io.rdma4j.soft.Fabric;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AhAttr;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpAttr;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpState;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A device's counters live in its stat file, where a reader (another process, here the same one) sees
 * the values the device counts, and in a JMX MBean; closing the device removes both.
 */
class StatFileTest
{
    @AfterEach
    void forgetTheDirectory()
    {
        System.clearProperty(StatFile.DIR_PROPERTY);
    }

    @Test
    void shouldShowTheDevicesOwnCountersInTheFileAndOverJmx(@TempDir final Path dir) throws Exception
    {
        System.setProperty(StatFile.DIR_PROPERTY, dir.toString());
        final MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        final ObjectName name;
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = fabric.open();
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16, null, 0);
            final QueuePair qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(8, 8)));
            qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).qkey(1));
            qp.modify(new QpAttr().state(QpState.RTR));
            qp.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
            final SendWr send = new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED)
                .sge(pd.regMr(Arena.ofAuto().allocate(8), EnumSet.of(AccessFlag.LOCAL_WRITE)), 0, 8)
                .ud(pd.createAh(AhAttr.global(context.queryGid(1, 0), 64)), 0x123456, 1);
            final WorkCompletion[] wcs = WorkCompletion.array(1);
            for (int i = 0; i < 3; i++)
            {
                qp.postSend(send);
                while (cq.poll(wcs) == 0)
                {
                    Thread.onSpinWait();
                }
            }

            final List<StatReader.DeviceStat> stats = StatReader.readAll(dir);
            assertEquals(1, stats.size(), "one device open: " + stats);
            final StatReader.DeviceStat stat = stats.getFirst();
            assertEquals(ProcessHandle.current().pid(), stat.pid());
            assertEquals(context.device().name(), stat.device());
            final long sent = context.counters().get("sent_pkts");
            assertEquals(3, sent);
            assertEquals(sent, stat.counters().get("sent_pkts"), "the file holds the device's own counter");

            name = CountersMBean.objectName(context.device().name(), stat.address());
            assertEquals(sent, jmx.getAttribute(name, "sent_pkts"));
        }
        try (var files = Files.list(dir))
        {
            assertFalse(files.findAny().isPresent(), "closing the device removes its file");
        }
        assertThrows(InstanceNotFoundException.class, () -> jmx.getAttribute(name, "sent_pkts"));
    }

    @Test
    void shouldForgetAFileWhosePidNowBelongsToAProcessStartedAfterItsDevice(@TempDir final Path dir) throws Exception
    {
        System.setProperty(StatFile.DIR_PROPERTY, dir.toString());
        // a file naming this JVM's pid, as a process that died long ago and whose number this JVM then took
        // would have left it: its device opened a day before this JVM started
        final long jvmStart = ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli();
        try (StatFile file = StatFile.create("gone0", "127.0.0.99"))
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
