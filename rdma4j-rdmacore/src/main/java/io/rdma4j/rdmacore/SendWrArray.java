package io.rdma4j.rdmacore;

import io.rdma4j.rdmacore.abi.IbvSendWr;
import io.rdma4j.verbs.AddressHandle;
import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.PostException;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.SgList;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Native {@code struct ibv_send_wr} and {@code struct ibv_sge} arrays, owned by a QP and reused by every
 * post: a chain of {@link SendWr}s is written into them as C would build it, linked by {@code next}, with the
 * opcode's union member filled. The QP holds its send lock around {@link #write} and the post.
 */
final class SendWrArray extends WrArray
{
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

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
        super(arena, IbvSendWr.LAYOUT, maxWr, maxSge, "send");
        this.ud = ud;
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
            final SgList sgList = wr.sgList();
            final int numSge = sgList.numSge();
            check(index, numSge, label);
            if (!SendFlags.valid(wr.sendFlags()))
            {
                throw new PostException(Errno.EINVAL, label + ": unknown send flags 0x" +
                    Integer.toHexString(wr.sendFlags()), index);
            }
            final long base = index * IbvSendWr.SIZE;
            final long sgListAddress = writeSges(index, sgList, numSge);
            clearUnions(base);
            wrs.set(ValueLayout.JAVA_LONG, base + IbvSendWr.WR_ID, wr.wrId());
            wrs.set(ValueLayout.JAVA_LONG, base + IbvSendWr.SG_LIST, sgListAddress);
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
}
