package io.rdma4j.bench.compare.mcast;

import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.ReplyAddress;
import io.rdma4j.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Map;

/**
 * A plain UD multicast receiver on the soft device: {@link #SLOTS} receives posted on a ring, each reposted as
 * soon as its datagram is read, as rmcast's subscription keeps its own (1024).
 */
final class UdMcastSink implements McastSink
{
    private static final int SLOTS = 1024;
    private static final int BATCH = 64;

    private final UdGroup group;
    private final DeviceDrops drops;
    private final McastStats stats;
    private final MemorySegment ring;
    private final MemoryRegion ringMr;
    private final int slotLength;
    private final RecvWr wr = new RecvWr();
    private final WorkCompletion[] wcs = WorkCompletion.array(BATCH);
    private long failed;

    UdMcastSink(final Map<String, String> args, final McastStats stats) throws Exception
    {
        this.stats = stats;
        group = new UdGroup(args, false, SLOTS);
        slotLength = ReplyAddress.GRH_BYTES + group.mtu;
        ring = group.resources.add(Arena.ofShared()).allocate((long)SLOTS * slotLength, 4096);
        ringMr = group.resources.add(group.pd.regMr(ring, EnumSet.of(AccessFlag.LOCAL_WRITE)));
        for (int i = 0; i < SLOTS; i++)
        {
            repost(i);
        }
        group.join();
        drops = new DeviceDrops(args.get("local"));
    }

    private void repost(final int slot)
    {
        group.qp.postRecv(wr.wrId(slot).sge(ringMr, (long)slot * slotLength, slotLength));
    }

    @Override
    public int poll()
    {
        final int n = group.cq.poll(wcs, BATCH);
        for (int i = 0; i < n; i++)
        {
            final WorkCompletion wc = wcs[i];
            final int slot = (int)wc.wrId();
            final long at = (long)slot * slotLength + ReplyAddress.GRH_BYTES;
            if (wc.isSuccess() && wc.byteLen() - ReplyAddress.GRH_BYTES >= Chunking.HEADER)
            {
                stats.onDatagram(ring.get(ValueLayout.JAVA_LONG_UNALIGNED, at),
                    ring.get(ValueLayout.JAVA_LONG_UNALIGNED, at + Long.BYTES),
                    ring.get(ValueLayout.JAVA_INT_UNALIGNED, at + Chunking.INDEX_OFFSET),
                    ring.get(ValueLayout.JAVA_INT_UNALIGNED, at + Chunking.COUNT_OFFSET));
            }
            else
            {
                failed++;
            }
            repost(slot);
        }
        return n;
    }

    @Override
    public String counters()
    {
        return "repair-requests=0 loss-events=0 failed-receives=" + failed + " injected=" + drops.injected();
    }

    @Override
    public void close()
    {
        drops.close();
        group.close();
    }
}
