package io.rdma4j.examples;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
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
 * Answer UD requests: a listener in the UDP port space answers a client's SIDR request with its QP's
 * number and Q_Key; each request that arrives is answered to the address its global route header
 * names (an address handle made from the completion), to the QPN the completion gives as source.
 * <p>
 * Usage: {@code UdServer ADDRESS REQUESTS}; prints the port it listens on.
 */
public final class UdServer
{
    /** A UD receive slot: the 40-byte GRH the device writes, then the data. */
    private static final int SLOT = ReplyAddress.GRH_BYTES + 256;

    public static void main(final String[] args) throws Exception
    {
        final InetAddress address = InetAddress.getByName(args[0]);
        final int requests = Integer.parseInt(args[1]);

        try (EventChannel channel = RdmaCm.createEventChannel(); Arena arena = Arena.ofShared())
        {
            final CmId listener = channel.createId(null, PortSpace.UDP);
            listener.bindAddr(new InetSocketAddress(address, 0));
            listener.listen(1);
            System.out.printf("listening on port %d.%n", listener.localAddress().getPort());

            final CmEvent request = channel.expect(CmEventType.CONNECT_REQUEST, -1, TimeUnit.SECONDS);
            final CmId id = request.id();
            request.ack();
            final ProtectionDomain pd = id.verbs().allocPd();
            // a CQ each for receives and sends, so waiting for one never takes the other's completion
            final CompletionQueue recvCq = id.verbs().createCq(4, null, 0);
            final CompletionQueue sendCq = id.verbs().createCq(4, null, 0);
            id.createQp(pd, QpInitAttr.of(QpType.UD, sendCq, QpCap.of(4, 4)).withRecvCq(recvCq));
            final MemorySegment buffer = arena.allocate(SLOT * 2L);
            final MemoryRegion mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
            final RecvWr recv = new RecvWr().wrId(0).sge(mr, 0, SLOT);
            id.qp().postRecv(recv);
            id.accept(null);   // SIDR REP: our QPN and Q_Key

            final SendWr reply = new SendWr().wrId(1).opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED);
            final WorkCompletion[] wcs = WorkCompletion.array(1);
            for (int i = 0; i < requests; i++)
            {
                awaitOne(recvCq, wcs);
                final WorkCompletion wc = wcs[0];
                final String text = new String(UdPayload.of(buffer, wc).toArray(ValueLayout.JAVA_BYTE),
                    StandardCharsets.UTF_8);
                System.out.println("request: " + text);
                final AddressHandle ah = pd.createAhFromWc(wc, buffer, 1);
                // the request is read: its slot takes the next one before this reply goes out
                id.qp().postRecv(recv);
                final byte[] answer = text.replace("request", "response").getBytes(StandardCharsets.UTF_8);
                MemorySegment.copy(MemorySegment.ofArray(answer), 0, buffer, SLOT, answer.length);
                id.qp().postSend(reply.sge(mr, SLOT, answer.length).ud(ah, wc.srcQp(), RdmaCm.UDP_QKEY));
                awaitOne(sendCq, wcs);
                ah.close();
            }

            id.destroyQp();
            mr.close();
            recvCq.close();
            sendCq.close();
            pd.close();
            id.close();
            listener.close();
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
