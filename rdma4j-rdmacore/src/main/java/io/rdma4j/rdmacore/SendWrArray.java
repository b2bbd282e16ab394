package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvSendWr;
import io.rdma4j.rdmacore.abi.IbvSge;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.SgList;
import io.rdma4j.verbs.Sge;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Native {@code struct ibv_send_wr} and {@code struct ibv_sge} arrays, owned by a QP and reused by every
 * post: a chain of {@link SendWr}s is written into them as C would build it, linked by {@code next}, with the
 * opcode's union member filled. The QP holds its send lock around {@link #write} and the post.
 */
final class SendWrArray
{
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment wrs;
    private final MemorySegment sges;
    private final MemorySegment badWr;
    private final int maxWr;
    private final int maxSge;
    private final boolean ud;

    /**
     * @param arena the owner's arena.
     * @param maxWr the longest chain, the QP's max_send_wr.
     * @param maxSge SGEs per request, the QP's max_send_sge.
     * @param ud true for a UD QP: every request names an address handle, and the {@code wr.ud} member is
     *     written; otherwise the address handle a reused {@link SendWr} may still hold is ignored, because
     *     {@code wr.ud} shares its place with {@code wr.rdma} and {@code wr.atomic}.
     */
    SendWrArray(final Arena arena, final int maxWr, final int maxSge, final boolean ud)
    {
        this.ud = ud;
        this.maxWr = Math.max(1, maxWr);
        this.maxSge = Math.max(1, maxSge);
        this.wrs = arena.allocate(IbvSendWr.LAYOUT, this.maxWr);
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
     * @param label the QP's name for the sentence.
     * @throws PostException ENOMEM if the chain is longer than the send queue; EINVAL for more SGEs than the
     *     QP was made for, unknown send flags, or a UD request without a native address handle.
     */
    void write(final SendWr first, final String label)
    {
        int index = 0;
        for (SendWr wr = first; wr != null; wr = wr.next(), index++)
        {
            if (index == maxWr)
            {
                throw new PostException(Errno.ENOMEM, label + ": the chain is longer than max_send_wr " + maxWr, index);
            }
            final SgList sgList = wr.sgList();
            final int numSge = sgList.numSge();
            if (numSge > maxSge)
            {
                throw new PostException(Errno.EINVAL, label + ": num_sge " + numSge + " exceeds max_send_sge " +
                    maxSge, index);
            }
            if (!SendFlags.valid(wr.sendFlags()))
            {
                throw new PostException(Errno.EINVAL, label + ": unknown send flags 0x" +
                    Integer.toHexString(wr.sendFlags()), index);
            }
            final long base = index * IbvSendWr.SIZE;
            final long sgeBase = (long)index * maxSge * IbvSge.SIZE;
            for (int i = 0; i < numSge; i++)
            {
                final Sge sge = sgList.get(i);
                final long at = sgeBase + i * IbvSge.SIZE;
                sges.set(ValueLayout.JAVA_LONG, at + IbvSge.ADDR, sge.addr());
                sges.set(ValueLayout.JAVA_INT, at + IbvSge.LENGTH, sge.length());
                sges.set(ValueLayout.JAVA_INT, at + IbvSge.LKEY, sge.lkey());
            }
            clearUnions(base);
            wrs.set(ValueLayout.JAVA_LONG, base + IbvSendWr.WR_ID, wr.wrId());
            wrs.set(ValueLayout.JAVA_LONG, base + IbvSendWr.SG_LIST, sges.address() + sgeBase);
            wrs.set(ValueLayout.JAVA_INT, base + IbvSendWr.NUM_SGE, numSge);
            final WrOpcode opcode = wr.opcode();
            wrs.set(ValueLayout.JAVA_INT, base + IbvSendWr.OPCODE, opcode.value());
            wrs.set(ValueLayout.JAVA_INT, base + IbvSendWr.SEND_FLAGS, wr.sendFlags());
            if (opcode.hasImmediate())
            {
                // C holds the immediate in network order; the API holds the number that is sent
                wrs.set(INT_BE, base + IbvSendWr.IMM_DATA, wr.immData());
            }
            else if (opcode == WrOpcode.SEND_WITH_INV || opcode == WrOpcode.LOCAL_INV)
            {
                wrs.set(ValueLayout.JAVA_INT, base + IbvSendWr.INVALIDATE_RKEY, wr.invalidateRkey());
            }
            writeUnion(wr, opcode, base, label, index);
            wrs.set(ValueLayout.JAVA_LONG, base + IbvSendWr.NEXT,
                wr.next() == null ? 0L : wrs.address() + base + IbvSendWr.SIZE);
        }
    }

    /**
     * A reused slot's unions still hold the last request's values: zero everything from the immediate on,
     * without making a slice for it.
     */
    private void clearUnions(final long base)
    {
        wrs.set(ValueLayout.JAVA_INT, base + IbvSendWr.IMM_DATA, 0);
        for (long at = IbvSendWr.IMM_DATA + Integer.BYTES; at < IbvSendWr.SIZE; at += Long.BYTES)
        {
            wrs.set(ValueLayout.JAVA_LONG, base + at, 0L);
        }
    }

    private void writeUnion(final SendWr wr, final WrOpcode opcode, final long base, final String label,
        final int index)
    {
        if (ud)
        {
            final AddressHandle ah = wr.ah();
            if (ah == null)
            {
                throw new PostException(Errno.EINVAL, label + ": a UD send needs an address handle", index);
            }
            if (!(ah instanceof final NativeAh nativeAh))
            {
                throw new PostException(Errno.EINVAL, label + ": the address handle is not the native provider's",
                    index);
            }
            wrs.set(ValueLayout.ADDRESS, base + IbvSendWr.WR_UD_AH, nativeAh.address());
            wrs.set(ValueLayout.JAVA_INT, base + IbvSendWr.WR_UD_REMOTE_QPN, wr.remoteQpn());
            wrs.set(ValueLayout.JAVA_INT, base + IbvSendWr.WR_UD_REMOTE_QKEY, wr.remoteQkey());
            return;
        }
        switch (opcode)
        {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ ->
            {
                wrs.set(ValueLayout.JAVA_LONG, base + IbvSendWr.WR_RDMA_REMOTE_ADDR, wr.remoteAddr());
                wrs.set(ValueLayout.JAVA_INT, base + IbvSendWr.WR_RDMA_RKEY, wr.rkey());
            }
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD ->
            {
                wrs.set(ValueLayout.JAVA_LONG, base + IbvSendWr.WR_ATOMIC_REMOTE_ADDR, wr.remoteAddr());
                wrs.set(ValueLayout.JAVA_LONG, base + IbvSendWr.WR_ATOMIC_COMPARE_ADD, wr.compareAdd());
                wrs.set(ValueLayout.JAVA_LONG, base + IbvSendWr.WR_ATOMIC_SWAP, wr.swap());
                wrs.set(ValueLayout.JAVA_INT, base + IbvSendWr.WR_ATOMIC_RKEY, wr.rkey());
            }
            default ->
            {
                // SEND, SEND_WITH_IMM and the rest carry nothing in the union
            }
        }
    }

    /**
     * @return the index in the chain of the request {@code bad_wr} points at after a failed post.
     */
    int badIndex()
    {
        final long bad = badWr.get(ValueLayout.JAVA_LONG, 0);
        return bad == 0 ? 0 : (int)((bad - wrs.address()) / IbvSendWr.SIZE);
    }
}
