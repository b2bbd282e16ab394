package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvRecvWr;
import io.rdma4j.rdmacore.abi.IbvSge;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SgList;
import io.rdma4j.verbs.Sge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Native {@code struct ibv_recv_wr} and {@code struct ibv_sge} arrays, owned by a QP or SRQ and reused by
 * every post: a chain of {@link RecvWr}s is written into them as C would build it, linked by {@code next}.
 * The caller holds the owner's receive lock around {@link #write} and the post.
 */
final class RecvWrArray
{
    private final MemorySegment wrs;
    private final MemorySegment sges;
    private final MemorySegment badWr;
    private final int maxWr;
    private final int maxSge;

    RecvWrArray(final Arena arena, final int maxWr, final int maxSge)
    {
        this.maxWr = Math.max(1, maxWr);
        this.maxSge = Math.max(1, maxSge);
        this.wrs = arena.allocate(IbvRecvWr.LAYOUT, this.maxWr);
        this.sges = arena.allocate(IbvSge.LAYOUT, (long)this.maxWr * this.maxSge);
        this.badWr = arena.allocate(ValueLayout.ADDRESS);
    }

    MemorySegment first()
    {
        return wrs;
    }

    MemorySegment badWr()
    {
        return badWr;
    }

    /**
     * @param first the chain's head.
     * @param label the owner's name for the sentence.
     * @throws PostException ENOMEM if the chain is longer than the queue, EINVAL if a request has more SGEs than
     *     the queue was made for.
     */
    void write(final RecvWr first, final String label)
    {
        int index = 0;
        for (RecvWr wr = first; wr != null; wr = wr.next(), index++)
        {
            if (index == maxWr)
            {
                throw new PostException(Errno.ENOMEM, label + ": the chain is longer than max_recv_wr " + maxWr, index);
            }
            final SgList sgList = wr.sgList();
            final int numSge = sgList.numSge();
            if (numSge > maxSge)
            {
                throw new PostException(Errno.EINVAL, label + ": num_sge " + numSge + " exceeds max_recv_sge " +
                    maxSge, index);
            }
            final long base = index * IbvRecvWr.SIZE;
            final long sgeBase = (long)index * maxSge * IbvSge.SIZE;
            for (int i = 0; i < numSge; i++)
            {
                final Sge sge = sgList.get(i);
                final long at = sgeBase + i * IbvSge.SIZE;
                sges.set(ValueLayout.JAVA_LONG, at + IbvSge.ADDR, sge.addr());
                sges.set(ValueLayout.JAVA_INT, at + IbvSge.LENGTH, sge.length());
                sges.set(ValueLayout.JAVA_INT, at + IbvSge.LKEY, sge.lkey());
            }
            wrs.set(ValueLayout.JAVA_LONG, base + IbvRecvWr.WR_ID, wr.wrId());
            wrs.set(ValueLayout.JAVA_LONG, base + IbvRecvWr.SG_LIST, sges.address() + sgeBase);
            wrs.set(ValueLayout.JAVA_INT, base + IbvRecvWr.NUM_SGE, numSge);
            wrs.set(ValueLayout.JAVA_LONG, base + IbvRecvWr.NEXT,
                wr.next() == null ? 0L : wrs.address() + base + IbvRecvWr.SIZE);
        }
    }

    /**
     * @return the index in the chain of the request {@code bad_wr} points at after a failed post.
     */
    int badIndex()
    {
        final long bad = badWr.get(ValueLayout.JAVA_LONG, 0);
        return bad == 0 ? 0 : (int)((bad - wrs.address()) / IbvRecvWr.SIZE);
    }
}
