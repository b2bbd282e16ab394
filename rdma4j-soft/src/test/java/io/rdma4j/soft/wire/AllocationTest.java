package io.rdma4j.soft.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AllocationTest
{
    private static final int WARM_UP = 30_000;
    private static final int MEASURED = 100_000;
    private static final long SLACK_BYTES = 4096;

    @Test
    void shouldParseAndBuildWithoutAllocating()
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean);
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);

        final List<PcapReader.Datagram> datagrams = Captures.allDatagrams().subList(0, 64);
        final MemorySegment receive = MemorySegment.ofArray(new byte[2048]);
        final MemorySegment send = MemorySegment.ofArray(new byte[2048]);
        final PacketParser parser = new PacketParser();
        final PacketBuilder builder = new PacketBuilder();
        final PacketInfo info = new PacketInfo();

        long checksum = run(WARM_UP, datagrams, receive, send, parser, builder, info);
        final long threadId = Thread.currentThread().threadId();
        final long before = threads.getThreadAllocatedBytes(threadId);
        checksum += run(MEASURED, datagrams, receive, send, parser, builder, info);
        final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

        assertTrue(checksum != 0);
        assertTrue(allocated < SLACK_BYTES, "allocated " + allocated + " bytes in " + MEASURED + " packets");
    }

    private static long run(
        final int iterations,
        final List<PcapReader.Datagram> datagrams,
        final MemorySegment receive,
        final MemorySegment send,
        final PacketParser parser,
        final PacketBuilder builder,
        final PacketInfo info)
    {
        long checksum = 0;
        for (int i = 0; i < iterations; i++)
        {
            final PcapReader.Datagram d = datagrams.get(i & 63);
            final byte[] payload = d.payload();
            MemorySegment.copy(payload, 0, receive, ValueLayout.JAVA_BYTE, 0, payload.length);
            info.clear()
                .network(d.sourceAddress(), d.sourcePort(), d.destinationAddress(), d.destinationPort(),
                    Icrc.UNKNOWN_IP_ID);
            final DropCause cause = parser.parse(receive, 0, payload.length, info);
            if (cause != DropCause.NONE)
            {
                assertEquals(DropCause.NONE, cause);
            }
            checksum += info.ipIdentification();
            checksum += builder.build(info, receive, info.payloadOffset(), info.payloadLength(), send, 0);
        }
        return checksum;
    }
}
