package io.rdma4j.examples;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.cm.UdParam;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.UdPayload;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * Ask a UD server: resolve it through the connection manager (a SIDR exchange: ESTABLISHED brings the
 * server's address vector, QPN and Q_Key), then send COUNT requests, each answered before the next.
 * <p>
 * Usage: {@code UdClient SERVER PORT LOCAL_ADDRESS COUNT}.
 */
public final class UdClient
{
    /** A UD receive slot: the 40-byte GRH the device writes, then the data. */
    private static final int SLOT = ReplyAddress.GRH_BYTES + 256;

    public static void main(final String[] args) throws Exception
    {
        final InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(args[0]),
            Integer.parseInt(args[1]));
        final InetSocketAddress local = new InetSocketAddress(InetAddress.getByName(args[2]), 0);
        final int count = Integer.parseInt(args[3]);

        try (EventChannel channel = RdmaCm.createEventChannel(); Arena arena = Arena.ofShared())
        {
            final CmId id = channel.createId(null, PortSpace.UDP);
            id.resolveAddr(local, server, 500);
            channel.expect(CmEventType.ADDR_RESOLVED, 5, TimeUnit.SECONDS).ack();
            id.resolveRoute(500);
            channel.expect(CmEventType.ROUTE_RESOLVED, 5, TimeUnit.SECONDS).ack();
            final ProtectionDomain pd = id.verbs().allocPd();
            final CompletionQueue recvCq = id.verbs().createCq(4, null, 0);
            final CompletionQueue sendCq = id.verbs().createCq(4, null, 0);
            id.createQp(pd, QpInitAttr.of(QpType.UD, sendCq, QpCap.of(4, 4)).withRecvCq(recvCq));
            id.connect(null);   // in the UDP port space: a SIDR request, no connection

            final CmEvent resolved = channel.expect(CmEventType.ESTABLISHED, 30, TimeUnit.SECONDS);
            final UdParam ud = resolved.udParam();
            resolved.ack();
            final AddressHandle ah = pd.createAh(ud.ahAttr());

            final MemorySegment buffer = arena.allocate(SLOT * 2L);
            final MemoryRegion mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
            final RecvWr recv = new RecvWr().wrId(0).sge(mr, 0, SLOT);
            final SendWr send = new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED);
            final WorkCompletion[] wcs = WorkCompletion.array(1);
            for (int i = 0; i < count; i++)
            {
                id.qp().postRecv(recv);   // before the request: the answer may come back at once
                final byte[] request = ("request " + i).getBytes(StandardCharsets.UTF_8);
                MemorySegment.copy(MemorySegment.ofArray(request), 0, buffer, SLOT, request.length);
                id.qp().postSend(send.sge(mr, SLOT, request.length).ud(ah, ud.qpNum(), ud.qkey()));
                awaitOne(sendCq, wcs);
                awaitOne(recvCq, wcs);
                System.out.println("response: " + new String(
                    UdPayload.of(buffer, wcs[0]).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
            }

            id.destroyQp();
            ah.close();
            mr.close();
            recvCq.close();
            sendCq.close();
            pd.close();
            id.close();
        }
    }

    private static void awaitOne(final CompletionQueue cq, final WorkCompletion[] wcs)
    {
        while (cq.poll(wcs) == 0)
        {
            Thread.onSpinWait();
        }
        if (!wcs[0].isSuccess())
        {
            throw new IllegalStateException("completion failed: " + wcs[0]);
        }
    }
}
