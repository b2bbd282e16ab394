package io.rdma4j.soft;

import io.rdma4j.soft.transport.CompletionWriter;
import io.rdma4j.soft.verbs.SoftCq;
import io.rdma4j.verbs.Context;
import io.rdma4j.verbs.WcFlags;
import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;
import io.rdma4j.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reused {@link CompletionWriter} writes each completion with exactly the fields set for it: what an
 * earlier completion set does not leak into the next one.
 */
class CompletionWriterTest
{
    @Test
    void shouldStartEachCompletionFromSuccessAndZeroes()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final Context context = fabric.open();
            final SoftCq cq = (SoftCq)context.createCq(4, null, 0);
            final CompletionWriter writer = new CompletionWriter();
            assertTrue(writer.begin(7, WcOpcode.RECV_RDMA_WITH_IMM).status(WcStatus.LOC_PROT_ERR).byteLen(100)
                .immData(0x1234).qpNum(0x11).srcQp(0x22).wcFlags(WcFlags.WITH_IMM).solicited(true).writeTo(cq));
            assertTrue(writer.begin(8, WcOpcode.SEND).qpNum(0x11).writeTo(cq));
            assertTrue(cq.flushRecv(9, 0x11));

            final WorkCompletion[] wcs = WorkCompletion.array(4);
            assertEquals(3, cq.poll(wcs));
            assertEquals(7, wcs[0].wrId());
            assertEquals(WcStatus.LOC_PROT_ERR, wcs[0].status());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wcs[0].opcode());
            assertEquals(100, wcs[0].byteLen());
            assertEquals(0x1234, wcs[0].immData());
            assertEquals(0x22, wcs[0].srcQp());
            assertEquals(WcFlags.WITH_IMM, wcs[0].wcFlags());

            assertEquals(8, wcs[1].wrId());
            assertEquals(WcStatus.SUCCESS, wcs[1].status());
            assertEquals(WcOpcode.SEND, wcs[1].opcode());
            assertEquals(0, wcs[1].byteLen());
            assertEquals(0, wcs[1].immData());
            assertEquals(0, wcs[1].srcQp());
            assertEquals(0, wcs[1].wcFlags());
            assertEquals(0x11, wcs[1].qpNum());

            assertEquals(9, wcs[2].wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, wcs[2].status());
            assertEquals(WcOpcode.RECV, wcs[2].opcode());
        }
    }

    @Test
    void shouldReportACompletionLostToAFullCq()
    {
        try (Fabric fabric = new Fabric(Fabric.Kind.MEMORY))
        {
            final SoftCq cq = (SoftCq)fabric.open().createCq(1, null, 0);
            final CompletionWriter writer = new CompletionWriter();
            assertTrue(writer.begin(1, WcOpcode.SEND).writeTo(cq));
            assertFalse(writer.begin(2, WcOpcode.SEND).writeTo(cq), "the CQ holds one");
            assertEquals(1, cq.overruns());
        }
    }
}
