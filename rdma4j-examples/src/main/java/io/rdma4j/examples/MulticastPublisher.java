package io.rdma4j.examples;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
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
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * Publish to a multicast group through the connection manager: join send-only (no IP group join,
 * nothing received), build an address handle from what the join event says, send COUNT messages once
 * each (the network and the receivers' devices make the copies), leave.
 * <p>
 * Usage: {@code MulticastPublisher LOCAL_ADDRESS GROUP COUNT}.
 */
public final class MulticastPublisher
{
    public static void main(final String[] args) throws Exception
    {
        final InetSocketAddress local = new InetSocketAddress(InetAddress.getByName(args[0]), 0);
        final InetSocketAddress group = new InetSocketAddress(InetAddress.getByName(args[1]), 0);
        final int count = Integer.parseInt(args[2]);

        try (EventChannel channel = RdmaCm.createEventChannel(); Arena arena = Arena.ofShared())
        {
            final CmId id = channel.createId(null, PortSpace.UDP);
            id.bindAddr(local);
            final ProtectionDomain pd = id.verbs().allocPd();
            final CompletionQueue cq = id.verbs().createCq(16, null, 0);
            id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(16, 1)));

            id.joinMulticast(group, JoinFlags.SENDONLY_FULLMEMBER, null);
            final CmEvent joined = channel.expect(CmEventType.MULTICAST_JOIN, 10, TimeUnit.SECONDS);
            final UdParam ud = joined.udParam();   // the group's address vector, QPN 0xFFFFFF and Q_Key
            joined.ack();
            final AddressHandle ah = pd.createAh(ud.ahAttr());

            final MemorySegment buffer = arena.allocate(1024);
            final MemoryRegion mr = pd.regMr(buffer, EnumSet.noneOf(AccessFlag.class));
            final SendWr send = new SendWr().opcode(WrOpcode.SEND).sendFlags(SendFlags.SIGNALED);
            final WorkCompletion[] wcs = WorkCompletion.array(1);
            for (int i = 0; i < count; i++)
            {
                final byte[] text = ("message " + i).getBytes(StandardCharsets.UTF_8);
                MemorySegment.copy(MemorySegment.ofArray(text), 0, buffer, 0, text.length);
                id.qp().postSend(send.wrId(i).sge(mr, 0, text.length).ud(ah, ud.qpNum(), ud.qkey()));
                // one buffer: wait until the device has sent it before writing the next message
                while (cq.poll(wcs) == 0)
                {
                    Thread.onSpinWait();
                }
            }
            System.out.println("sent " + count + " messages to " + args[1]);

            id.leaveMulticast(group);
            id.destroyQp();
            ah.close();
            mr.close();
            cq.close();
            pd.close();
            id.close();
        }
    }
}
