package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvSge;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.SgList;
import io.rdma4j.verbs.Sge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What the send and the receive work request arrays share: a native array of requests sized for the longest
 * chain the queue takes, one of {@code struct ibv_sge} with room for the queue's max_sge per request, the
 * {@code bad_wr} out-parameter, the two limits a chain is checked against, and the writing of a request's SGEs.
 * A subclass writes its own request struct; the owner's lock is held around the writing and the post.
 */
abstract class WrArray
{
    /** The requests, one {@code wrSize} slot each. */
    final MemorySegment wrs;
    private final MemorySegment sges;
    private final MemorySegment badWr;
    private final long wrSize;
    private final int maxWr;
    private final int maxSge;
    private final String queue;

    /**
     * @param wrLayout the request struct.
     * @param maxWr the longest chain, the queue's max_wr.
     * @param maxSge SGEs per request, the queue's max_sge.
     * @param queue "send" or "recv": which of the queue's attributes a refusal names.
     */
    WrArray(final Arena arena, final MemoryLayout wrLayout, final int maxWr, final int maxSge, final String queue)
    {
        this.maxWr = Math.max(1, maxWr);
        this.maxSge = Math.max(1, maxSge);
        this.wrSize = wrLayout.byteSize();
        this.queue = queue;
        this.wrs = arena.allocate(wrLayout, this.maxWr);
        this.sges = arena.allocate(IbvSge.LAYOUT, (long)this.maxWr * this.maxSge);
        this.badWr = arena.allocate(ValueLayout.ADDRESS);
    }

    final MemorySegment first()
    {
        return wrs;
    }

    final MemorySegment badWr()
    {
        return badWr;
    }

    /**
     * Refuse the chain's request {@code index} if the chain is too long or the request has too many SGEs.
     *
     * @throws PostException ENOMEM past max_wr, EINVAL past max_sge.
     */
    final void check(final int index, final int numSge, final String label)
    {
        if (index == maxWr)
        {
            throw new PostException(Errno.ENOMEM, label + ": the chain is longer than max_" + queue + "_wr " + maxWr,
                index);
        }
        if (numSge > maxSge)
        {
            throw new PostException(Errno.EINVAL, label + ": num_sge " + numSge + " exceeds max_" + queue + "_sge " +
                maxSge, index);
        }
    }

    /**
     * Write request {@code index}'s SGEs into its part of the SGE array.
     *
     * @return the address of that part, the request's {@code sg_list}.
     */
    final long writeSges(final int index, final SgList sgList, final int numSge)
    {
        final long sgeBase = (long)index * maxSge * IbvSge.SIZE;
        for (int i = 0; i < numSge; i++)
        {
            final Sge sge = sgList.get(i);
            final long at = sgeBase + i * IbvSge.SIZE;
            sges.set(ValueLayout.JAVA_LONG, at + IbvSge.ADDR, sge.addr());
            sges.set(ValueLayout.JAVA_INT, at + IbvSge.LENGTH, sge.length());
            sges.set(ValueLayout.JAVA_INT, at + IbvSge.LKEY, sge.lkey());
        }
        return sges.address() + sgeBase;
    }

    /**
     * @return the index in the chain of the request {@code bad_wr} points at after a failed post.
     */
    final int badIndex()
    {
        final long bad = badWr.get(ValueLayout.JAVA_LONG, 0);
        return bad == 0 ? 0 : (int)((bad - wrs.address()) / wrSize);
    }
}
