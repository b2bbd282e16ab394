package io.rdma4j.examples;

import io.rdma4j.cm.CmEvent;
import io.rdma4j.cm.CmEventType;
import io.rdma4j.cm.CmId;
import io.rdma4j.cm.ConnParam;
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
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SharedReceiveQueue;
import io.rdma4j.verbs.SrqAttr;
import io.rdma4j.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Serve many RC clients from one pool of receives: every connection's QP takes its receives from one
 * shared receive queue, so the buffers posted do not grow with the number of clients. Each completion
 * names the QP the message came on; the buffer goes straight back to the pool.
 * <p>
 * Usage: {@code SrqServer ADDRESS CLIENTS MESSAGES_PER_CLIENT}; prints the port it listens on, then how
 * many messages each client's QP delivered.
 */
public final class SrqServer
{
    private static final int SLOTS = 16;
    private static final int SLOT = 256;

    public static void main(final String[] args) throws Exception
    {
        final InetAddress address = InetAddress.getByName(args[0]);
        final int clients = Integer.parseInt(args[1]);
        final int perClient = Integer.parseInt(args[2]);

        try (EventChannel channel = RdmaCm.createEventChannel(); Arena arena = Arena.ofShared())
        {
            final CmId listener = channel.createId(null, PortSpace.TCP);
            listener.bindAddr(new InetSocketAddress(address, 0));
            listener.listen(clients);
            System.out.printf("listening on port %d.%n", listener.localAddress().getPort());

            ProtectionDomain pd = null;
            CompletionQueue cq = null;
            SharedReceiveQueue srq = null;
            MemoryRegion mr = null;
            final RecvWr recv = new RecvWr();
            int accepted = 0;
            int disconnected = 0;
            while (accepted < clients)
            {
                final CmEvent event = channel.getEvent(-1, TimeUnit.SECONDS);
                final CmEventType type = event.type();
                final CmId id = event.id();
                event.ack();
                if (type == CmEventType.DISCONNECTED)
                {
                    disconnect(id);   // a quick client may be done before the last one connects
                    disconnected++;
                }
                if (type != CmEventType.CONNECT_REQUEST)
                {
                    continue;
                }
                if (pd == null)
                {
                    // the first request brings the device; the pool is made once, for every client
                    pd = id.verbs().allocPd();
                    cq = id.verbs().createCq(SLOTS * 2, null, 0);
                    srq = pd.createSrq(new SrqAttr(SLOTS, 1, 0));
                    mr = pd.regMr(arena.allocate((long)SLOTS * SLOT), java.util.EnumSet.of(AccessFlag.LOCAL_WRITE));
                    for (int slot = 0; slot < SLOTS; slot++)
                    {
                        srq.postRecv(recv.wrId(slot).sge(mr, (long)slot * SLOT, SLOT));
                    }
                }
                id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(1, 0)).withSrq(srq));
                id.accept(ConnParam.builder().srq(true).build());
                accepted++;
            }

            final Map<Integer, Integer> perQp = new TreeMap<>();
            final WorkCompletion[] wcs = WorkCompletion.array(SLOTS);
            for (int received = 0; received < clients * perClient; )
            {
                final int n = cq.poll(wcs);
                for (int i = 0; i < n; i++, received++)
                {
                    final WorkCompletion wc = wcs[i];
                    perQp.merge(wc.qpNum(), 1, Integer::sum);
                    final int slot = (int)wc.wrId();
                    srq.postRecv(recv.wrId(slot).sge(mr, (long)slot * SLOT, SLOT));   // back to the pool
                }
                if (n == 0)
                {
                    Thread.onSpinWait();
                }
            }
            System.out.println("messages per client QP: " + perQp.values());

            while (disconnected < clients)
            {
                final CmEvent event = channel.getEvent(-1, TimeUnit.SECONDS);
                final CmEventType type = event.type();
                final CmId id = event.id();
                event.ack();
                if (type == CmEventType.DISCONNECTED)
                {
                    disconnect(id);
                    disconnected++;
                }
            }
            srq.close();
            mr.close();
            cq.close();
            pd.close();
            listener.close();
        }
    }

    private static void disconnect(final CmId id)
    {
        id.destroyQp();
        id.close();
    }
}
