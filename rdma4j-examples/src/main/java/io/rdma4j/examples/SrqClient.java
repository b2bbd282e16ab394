package io.rdma4j.examples;

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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * One of {@link SrqServer}'s many clients: connect and send COUNT messages, each after the previous
 * completed; the transport retries (RNR) if the server's pool is momentarily empty.
 * <p>
 * Usage: {@code SrqClient SERVER PORT LOCAL_ADDRESS COUNT}.
 */
public final class SrqClient
{
    public static void main(final String[] args) throws Exception
    {
        final InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(args[0]),
            Integer.parseInt(args[1]));
        final InetSocketAddress local = new InetSocketAddress(InetAddress.getByName(args[2]), 0);
        final int count = Integer.parseInt(args[3]);

        try (EventChannel channel = RdmaCm.createEventChannel(); Arena arena = Arena.ofShared())
        {
            final CmId id = channel.createId(null, PortSpace.TCP);
            id.resolveAddr(local, server, 500);
            channel.expect(CmEventType.ADDR_RESOLVED, 5, TimeUnit.SECONDS).ack();
            id.resolveRoute(500);
            channel.expect(CmEventType.ROUTE_RESOLVED, 5, TimeUnit.SECONDS).ack();
            final ProtectionDomain pd = id.verbs().allocPd();
            final CompletionQueue cq = id.verbs().createCq(4, null, 0);
            id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 1)));
            id.connect(null);
            channel.expect(CmEventType.ESTABLISHED, 30, TimeUnit.SECONDS).ack();

            final MemoryRegion mr = pd.regMr(arena.allocate(64), EnumSet.noneOf(AccessFlag.class));
            final SendWr send = new SendWr().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED).sge(mr, 0, 64);
            final WorkCompletion[] wcs = WorkCompletion.array(1);
            for (int i = 0; i < count; i++)
            {
                id.qp().postSend(send.wrId(i));
                while (cq.poll(wcs) == 0)
                {
                    Thread.onSpinWait();
                }
                if (!wcs[0].isSuccess())
                {
                    throw new IllegalStateException("send " + i + " failed: " + wcs[0]);
                }
            }
            System.out.println("sent " + count + " messages.");

            id.disconnect();
            channel.expect(CmEventType.DISCONNECTED, 30, TimeUnit.SECONDS).ack();
            id.destroyQp();
            mr.close();
            cq.close();
            pd.close();
            id.close();
        }
    }
}
