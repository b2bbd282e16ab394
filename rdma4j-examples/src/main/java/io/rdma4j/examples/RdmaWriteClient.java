package io.rdma4j.examples;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * RDMA WRITE a buffer into the server's memory and READ it back, with the server's address and rkey
 * taken from the private data of its accept (the ESTABLISHED event carries it); then a zero-byte SEND
 * with the CRC-32 as immediate data tells the server it is done.
 * <p>
 * Usage: {@code RdmaWriteClient SERVER PORT LOCAL_ADDRESS}.
 */
public final class RdmaWriteClient
{
    public static void main(final String[] args) throws Exception
    {
        final InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(args[0]),
            Integer.parseInt(args[1]));
        final InetSocketAddress local = new InetSocketAddress(InetAddress.getByName(args[2]), 0);

        try (EventChannel channel = RdmaCm.createEventChannel(); Arena arena = Arena.ofShared())
        {
            final CmId id = channel.createId(null, PortSpace.TCP);
            id.resolveAddr(local, server, 500);
            channel.expect(CmEventType.ADDR_RESOLVED, 5, TimeUnit.SECONDS).ack();
            id.resolveRoute(500);
            channel.expect(CmEventType.ROUTE_RESOLVED, 5, TimeUnit.SECONDS).ack();
            final ProtectionDomain pd = id.verbs().allocPd();
            final CompletionQueue cq = id.verbs().createCq(4, null, 0);
            id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
            id.connect(null);

            final CmEvent established = channel.expect(CmEventType.ESTABLISHED, 30, TimeUnit.SECONDS);
            final ByteBuffer key = ByteBuffer.wrap(established.connParam().privateData());
            established.ack();
            final long remoteAddress = key.getLong();
            final int rkey = key.getInt();
            final int size = key.getInt();

            final MemorySegment source = arena.allocate(size);
            final MemorySegment readBack = arena.allocate(size);
            for (int i = 0; i < size; i++)
            {
                source.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 31 + 7));
            }
            final MemoryRegion sourceMr = pd.regMr(source, EnumSet.noneOf(AccessFlag.class));
            final MemoryRegion readBackMr = pd.regMr(readBack, EnumSet.of(AccessFlag.LOCAL_WRITE));
            final CRC32 crc = new CRC32();
            crc.update(source.asByteBuffer());

            final SendWr wr = new SendWr().sendFlags(SendFlags.SIGNALED);
            run(id, cq, wr.wrId(1).opcode(WrOpcode.RDMA_WRITE).sge(sourceMr, 0, size).rdma(remoteAddress, rkey));
            run(id, cq, wr.wrId(2).opcode(WrOpcode.RDMA_READ).sge(readBackMr, 0, size).rdma(remoteAddress, rkey));
            System.out.printf("wrote and read back %d bytes: %s, CRC-32 %08x%n", size,
                source.mismatch(readBack) == -1 ? "identical" : "DIFFERENT", crc.getValue());
            wr.sgList().numSge(0);
            run(id, cq, wr.wrId(3).opcode(WrOpcode.SEND_WITH_IMM).immData((int)crc.getValue()));

            id.disconnect();
            channel.expect(CmEventType.DISCONNECTED, 30, TimeUnit.SECONDS).ack();
            id.destroyQp();
            sourceMr.close();
            readBackMr.close();
            cq.close();
            pd.close();
            id.close();
        }
    }

    /** Post one signaled request and wait for its completion. */
    private static void run(final CmId id, final CompletionQueue cq, final SendWr wr)
    {
        id.qp().postSend(wr);
        final WorkCompletion[] wcs = WorkCompletion.array(1);
        while (cq.poll(wcs) == 0)
        {
            Thread.onSpinWait();
        }
        if (!wcs[0].isSuccess())
        {
            throw new IllegalStateException(wr.opcode() + " failed: " + wcs[0]);
        }
    }
}
