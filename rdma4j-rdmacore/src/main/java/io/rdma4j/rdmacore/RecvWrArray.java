package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvRecvWr;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.RecvWr;
import io.rdma4j.verbs.SgList;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;

/**
 * Native {@code struct ibv_recv_wr} and {@code struct ibv_sge} arrays, owned by a QP or SRQ and reused by
 * every post: a chain of {@link RecvWr}s is written into them as C would build it, linked by {@code next}.
 * The caller holds the owner's receive lock around {@link #write} and the post.
 */
final class RecvWrArray extends WrArray
{
    RecvWrArray(final Arena arena, final int maxWr, final int maxSge)
    {
        super(arena, IbvRecvWr.LAYOUT, maxWr, maxSge, "recv");
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
            final SgList sgList = wr.sgList();
            final int numSge = sgList.numSge();
            check(index, numSge, label);
            final long base = index * IbvRecvWr.SIZE;
            wrs.set(ValueLayout.JAVA_LONG, base + IbvRecvWr.SG_LIST, writeSges(index, sgList, numSge));
            wrs.set(ValueLayout.JAVA_LONG, base + IbvRecvWr.WR_ID, wr.wrId());
            wrs.set(ValueLayout.JAVA_INT, base + IbvRecvWr.NUM_SGE, numSge);
            wrs.set(ValueLayout.JAVA_LONG, base + IbvRecvWr.NEXT,
                wr.next() == null ? 0L : wrs.address() + base + IbvRecvWr.SIZE);
        }
    }
}
