package io.rdma4j.soft;

import io.rdma4j.soft.counter.Counters;
import io.rdma4j.soft.counter.SoftCounter;
import io.rdma4j.soft.engine.SoftEngine;
import io.rdma4j.soft.resource.MrTable;
import io.rdma4j.soft.resource.SoftMr;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.Mtu;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.QueuePair;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rkeys and QP numbers a stranger cannot predict: a random key byte under the slot index, new on
 * every registration; QP numbers drawn at random from the 24-bit space.
 */
@Timeout(60)
class KeysAndQpnsTest
{
    private static final MemorySegment BUFFER = Arena.global().allocate(4096);

    @Test
    void shouldGiveTheFirstRegionOfEachDeviceItsOwnKeyByte()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Set<Integer> firstKeys = new HashSet<>();
            for (int i = 0; i < 4; i++)
            {
                final MemoryRegion mr = fabric.open().allocPd().regMr(BUFFER, EnumSet.of(AccessFlag.LOCAL_WRITE));
                assertEquals(mr.lkey(), mr.rkey());
                firstKeys.add(mr.rkey());
            }
            // a counter gives every device 0x101; four random key bytes all equal has odds of 2^-24
            assertTrue(firstKeys.size() > 1, "first rkeys " + firstKeys);
        }
    }

    @Test
    void shouldDrawANewKeyByteOnEveryRegistrationOfASlot()
    {
        final MrTable table = new MrTable(8, new Counters());
        final java.util.Map<Integer, Integer> lastKeyByIndex = new java.util.HashMap<>();
        final Set<Integer> firstKeyBytes = new HashSet<>();
        for (int i = 0; i < 64 * 4; i++)
        {
            final SoftMr mr = table.add(key -> new SoftMr(null, BUFFER, key, EnumSet.noneOf(AccessFlag.class), closed -> { }));
            final int index = mr.rkey() >>> 8;
            final Integer previous = lastKeyByIndex.put(index, mr.rkey());
            if (previous == null)
            {
                firstKeyBytes.add(mr.rkey() & 0xFF);
            }
            else
            {
                assertNotEquals(previous, mr.rkey(), "slot " + index + " kept its key");
            }
            table.remove(mr);
        }
        assertTrue(lastKeyByIndex.size() > 1, "slots used " + lastKeyByIndex.keySet());
        // a generation counter starts every slot at key byte 1
        assertTrue(firstKeyBytes.size() > 1, "first key bytes " + firstKeyBytes);
    }

    @Test
    void shouldFindRegionsOnlyByTheirWholeKeyAndCountAWrongKeyByte()
    {
        final Counters counters = new Counters();
        final MrTable table = new MrTable(8, counters, ScriptedRandom.of(0x40, 0x40));
        final SoftMr[] made = new SoftMr[1];
        final SoftMr mr = table.add(key -> made[0] = new SoftMr(null, BUFFER, key, EnumSet.noneOf(AccessFlag.class), closed -> { }));
        assertEquals(0x140, mr.rkey());
        assertSame(mr, table.lookup(0x140));
        assertNull(table.lookup(0x141));
        assertNull(table.lookup(0x240));
        assertEquals(1, counters.get(SoftCounter.MR_KEY_MISMATCH));
    }

    @Test
    void shouldRefuseARemoteWriteWithTheRightIndexAndAWrongKeyByte()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final RcEndpoint[] pair = RcFixtures.pair(fabric, QpType.RC, Mtu.MTU_1024);
            final RcEndpoint a = pair[0];
            final RcEndpoint b = pair[1];
            final byte[] before = RcFixtures.bytes(b.buffer, 0, 64);
            RcFixtures.fill(a.buffer, 0, 64, 1);
            final int guessed = b.mr.rkey() ^ 0x5A;
            a.qp.postSend(new SendWr().wrId(1).opcode(WrOpcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED)
                .sge(a.mr, 0, 64).rdma(b.mr.address(), guessed));
            assertEquals(WcStatus.REM_ACCESS_ERR, RcFixtures.one(a.pollSend(1, 10_000), "write").status());
            assertArrayEquals(before, RcFixtures.bytes(b.buffer, 0, 64));
            assertEquals(1, b.counter(SoftCounter.MR_KEY_MISMATCH));
        }
    }

    @Test
    void shouldNumberQpsAtRandomAndUniquely()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = fabric.open();
            final ProtectionDomain pd = context.allocPd();
            final CompletionQueue cq = context.createCq(16, null, 0);
            final List<Integer> qpns = new ArrayList<>();
            final List<QueuePair> qps = new ArrayList<>();
            for (int i = 0; i < 8; i++)
            {
                final QueuePair qp = pd.createQp(QpInitAttr.of(QpType.UD, cq, QpCap.of(1, 1)));
                qps.add(qp);
                qpns.add(qp.qpNum());
                assertTrue(qp.qpNum() >= 2 && qp.qpNum() <= 0xFFFFFE, Integer.toHexString(qp.qpNum()));
                assertSame(qp, SoftEngine.of(context).qp(qp.qpNum()));
            }
            assertEquals(8, new HashSet<>(qpns).size());
            boolean consecutive = true;
            for (int i = 1; i < qpns.size(); i++)
            {
                consecutive &= qpns.get(i) == qpns.get(i - 1) + 1;
            }
            assertFalse(consecutive, "QPNs count up: " + qpns);
            qps.getFirst().close();
            assertNull(SoftEngine.of(context).qp(qpns.getFirst()));
        }
    }
}
