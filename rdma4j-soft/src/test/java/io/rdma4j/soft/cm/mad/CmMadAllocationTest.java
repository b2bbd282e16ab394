package io.rdma4j.soft.cm.mad;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The codecs run for every MAD the CM sends and receives, so, like the data-path flyweights, they must not
 * allocate: not in the getters and setters, not in the private data copies, not in the filter.
 */
class CmMadAllocationTest
{
    private static final int WARM_UP = 30_000;
    private static final int MEASURED = 100_000;
    private static final long SLACK_BYTES = 4096;

    private final MemorySegment memory = MemorySegment.ofArray(new byte[CmMad.MAD_LENGTH + 8]);
    private final CmMad header = new CmMad();
    private final CmReq req = new CmReq();
    private final CmRep rep = new CmRep();
    private final SidrRep sidrRep = new SidrRep();
    private final CmaHeader cma = new CmaHeader();
    private final byte[] privateData = new byte[CmReq.PRIVATE_DATA_LENGTH];

    @Test
    void shouldBuildAndReadMadsWithoutAllocating()
    {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean);
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean)bean;
        Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);

        long checksum = run(WARM_UP);
        final long threadId = Thread.currentThread().threadId();
        final long before = threads.getThreadAllocatedBytes(threadId);
        checksum += run(MEASURED);
        final long allocated = threads.getThreadAllocatedBytes(threadId) - before;

        assertTrue(checksum != 0);
        assertTrue(allocated < SLACK_BYTES, "allocated " + allocated + " bytes in " + MEASURED + " MADs");
    }

    private long run(final int iterations)
    {
        long checksum = 0;
        for (int i = 0; i < iterations; i++)
        {
            final int at = i & 7;
            header.wrap(memory, at).initHeader(CmMad.ATTR_REQ, i);
            req.wrap(memory, at)
                .localCommId(i)
                .serviceId(ServiceId.of(ServiceId.PS_TCP, i))
                .localQpn(i)
                .startingPsn(i * 31)
                .remoteCmResponseTimeout(20)
                .retryCount(7)
                .primaryFlowLabel(i)
                .primaryLocalAckTimeout(19)
                .privateData(privateData, i % CmReq.PRIVATE_DATA_LENGTH);
            cma.wrap(memory, req.privateDataOffset()).ipVersion(CmaHeader.IPV4).sourcePort(i).sourceIpv4(i)
                .destinationIpv4(~i);
            if (CmMad.looksLikeCm(memory, at, CmMad.MAD_LENGTH))
            {
                checksum += req.localQpn() + req.startingPsn() + req.primaryFlowLabel() + cma.destinationIpv4() +
                    ServiceId.port(req.serviceId()) + req.privateData(privateData);
            }
            checksum += rep.wrap(memory, at).localQpn() + sidrRep.wrap(memory, at).vendorId() +
                rep.vendorId() + header.transactionId();
        }
        return checksum;
    }
}
