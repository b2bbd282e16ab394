package io.rdma4j.bench.compare.mcast;

import io.rdma4j.cm.UdParam;
import io.rdma4j.verbs.AccessFlag;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.MemoryRegion;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WorkCompletion;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Map;

/**
 * Plain UD multicast on the soft device: each message one SEND to the group (in equal SENDs of up to the MTU
 * when larger), copied into a registered ring of send slots, one completion signaled in {@link #SIGNAL_EVERY};
 * no flow control, no repair: the receivers get what they keep up with.
 */
final class UdMcastSource implements McastSource
{
    private static final int DEPTH = 256;
    private static final int SIGNAL_EVERY = 16;

    private final UdGroup group;
    private final DeviceDrops drops;
    private final MemorySegment message;
    private final MemorySegment ring;
    private final MemoryRegion ringMr;
    private final int slotLength;
    private final Chunking chunking;
    private final SendWr wr = new SendWr();
    private final WorkCompletion[] wcs = WorkCompletion.array(32);
    private long posted;
    private long completed;

    UdMcastSource(final Map<String, String> args, final ByteBuffer message) throws Exception
    {
        this.message = MemorySegment.ofBuffer(message);
        group = new UdGroup(args, true, DEPTH);
        chunking = new Chunking(message.capacity(), group.mtu);
        slotLength = group.mtu;
        ring = group.resources.add(Arena.ofShared()).allocate((long)DEPTH * slotLength, 4096);
        ringMr = group.resources.add(group.pd.regMr(ring, EnumSet.of(AccessFlag.LOCAL_WRITE)));
        final UdParam ud = group.join();
        final AddressHandle ah = group.resources.add(group.pd.createAh(ud.ahAttr()));
        wr.opcode(WrOpcode.SEND).ud(ah, ud.qpNum(), ud.qkey());
        drops = new DeviceDrops(args.get("local"));
    }

    @Override
    public boolean offer(final int length)
    {
        final int chunks = chunking.chunks();
        if (posted + chunks - completed > DEPTH)
        {
            reclaim();
            if (posted + chunks - completed > DEPTH)
            {
                return false;
            }
        }
        for (int i = 0; i < chunks; i++)
        {
            final long slot = (posted % DEPTH) * slotLength;
            MemorySegment.copy(message, 0, ring, slot, 2 * Long.BYTES);
            ring.set(ValueLayout.JAVA_INT_UNALIGNED, slot + Chunking.INDEX_OFFSET, i);
            ring.set(ValueLayout.JAVA_INT_UNALIGNED, slot + Chunking.COUNT_OFFSET, chunks);
            MemorySegment.copy(message, chunking.offset(i), ring, slot + Chunking.HEADER, chunking.length(i));
            posted++;
            final boolean signal = posted % SIGNAL_EVERY == 0 || posted - completed >= DEPTH;
            wr.wrId(posted).sendFlags(signal ? SendFlags.SIGNALED : 0)
                .sge(ringMr, slot, Chunking.HEADER + chunking.length(i));
            group.qp.postSend(wr);
        }
        return true;
    }

    private int reclaim()
    {
        final int n = group.cq.poll(wcs);
        for (int i = 0; i < n; i++)
        {
            if (!wcs[i].isSuccess())
            {
                throw new IllegalStateException("a send to the group failed: " + wcs[i].status().description());
            }
            completed = Math.max(completed, wcs[i].wrId());
        }
        return n;
    }

    @Override
    public int doWork()
    {
        return reclaim();
    }

    @Override
    public void flush()
    {
        // the soft device in polling mode holds posted sends until the poster polls (for up to 1 ms)
        reclaim();
    }

    @Override
    public String counters()
    {
        return "injected=" + drops.injected() + " datagrams=" + posted;
    }

    @Override
    public void close()
    {
        drops.close();
        group.close();
    }
}
