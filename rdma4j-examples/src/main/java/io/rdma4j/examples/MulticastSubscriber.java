package io.rdma4j.examples;

import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.EventChannel;
import io.rdma4j.cm.JoinFlags;
import io.rdma4j.cm.PortSpace;
import io.rdma4j.cm.RdmaCm;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.CompletionQueue;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.QpCap;
import io.rdma4j.verbs.QpInitAttr;
import io.rdma4j.verbs.QpType;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.UdPayload;
import io.rdma4j.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * Receive a multicast group's messages through the connection manager: bind, create a UD QP on the
 * id, post receives, join as a full member (the QP is attached when the join event is taken), print
 * each message, leave.
 * <p>
 * Usage: {@code MulticastSubscriber LOCAL_ADDRESS GROUP COUNT}.
 */
public final class MulticastSubscriber
{
    /** A UD receive slot: the 40-byte GRH the device writes, then the data. */
    private static final int SLOT = ReplyAddress.GRH_BYTES + 1024;

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
            final CompletionQueue cq = id.verbs().createCq(count, null, 0);
            id.createQp(pd, QpInitAttr.of(QpType.UD, cq, QpCap.of(1, count)));
            final MemorySegment buffer = arena.allocate((long)SLOT * count);
            final MemoryRegion mr = pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE));
            final RecvWr recv = new RecvWr();
            for (int i = 0; i < count; i++)
            {
                id.qp().postRecv(recv.wrId(i).sge(mr, (long)SLOT * i, SLOT));
            }

            id.joinMulticast(group, JoinFlags.FULLMEMBER, null);
            channel.expect(CmEventType.MULTICAST_JOIN, 10, TimeUnit.SECONDS).ack();
            System.out.println("joined " + args[1]);

            final WorkCompletion[] wcs = WorkCompletion.array(16);
            for (int received = 0; received < count; )
            {
                final int n = cq.poll(wcs);
                for (int i = 0; i < n; i++, received++)
                {
                    final WorkCompletion wc = wcs[i];
                    // the GRH slot comes first: UdPayload slices the sender's bytes after it
                    final byte[] text = UdPayload.of(buffer.asSlice((long)SLOT * wc.wrId(), SLOT), wc)
                        .toArray(ValueLayout.JAVA_BYTE);
                    System.out.println("received: " + new String(text, StandardCharsets.UTF_8));
                }
                if (n == 0)
                {
                    Thread.onSpinWait();
                }
            }

            id.leaveMulticast(group);
            id.destroyQp();
            mr.close();
            cq.close();
            pd.close();
            id.close();
        }
    }
}
