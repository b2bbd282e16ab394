package io.rdma4j.soft.transport;

import io.rdma4j.soft.MrTable;
import io.rdma4j.soft.SoftMr;
import io.rdma4j.soft.SoftPd;
import io.rdma4j.verbs.AccessFlag;

import java.lang.foreign.MemorySegment;

/**
 * Copies between packets and registered memory through scatter/gather lists, checking each
 * SGE's lkey, PD, range and access as the hardware would. Returns false instead of throwing, so
 * the transport turns a bad SGE into the completion status it deserves.
 */
public final class MemoryAccess
{
    private MemoryAccess()
    {
    }

    /**
     * Gather {@code length} bytes starting {@code messageOffset} bytes into a send WQE's message.
     *
     * @param wqe           the send WQE (inline data or SGEs).
     * @param mrs           the device's memory regions.
     * @param pd            the QP's PD.
     * @param messageOffset where in the message to start.
     * @param destination   where to write.
     * @param destOffset    where in the destination.
     * @param length        how many bytes.
     * @return false on a bad lkey, PD, range (LOC_PROT_ERR).
     */
    public static boolean gather(
        final SendWqe wqe, final MrTable mrs, final SoftPd pd, final long messageOffset,
        final MemorySegment destination, final long destOffset, final int length)
    {
        if (length == 0)
        {
            return true;
        }
        if (wqe.isInline)
        {
            MemorySegment.copy(wqe.inline, messageOffset, destination, destOffset, length);
            return true;
        }
        long skip = messageOffset;
        long written = 0;
        for (int i = 0; i < wqe.numSge && written < length; i++)
        {
            final int sgeLength = wqe.length[i];
            if (skip >= sgeLength)
            {
                skip -= sgeLength;
                continue;
            }
            final int chunk = (int)Math.min(sgeLength - skip, length - written);
            final SoftMr mr = mrs.lookup(wqe.lkey[i]);
            final long address = wqe.addr[i] + skip;
            if (mr == null || mr.softPd() != pd || !mr.covers(address, chunk))
            {
                return false;
            }
            MemorySegment.copy(mr.segment(), address - mr.address(), destination, destOffset + written, chunk);
            written += chunk;
            skip = 0;
        }
        return written == length;
    }

    /**
     * Scatter {@code length} bytes into a receive WQE's buffers starting {@code offset} bytes in.
     *
     * @param wqe          the receive WQE.
     * @param mrs          the device's memory regions.
     * @param pd           the QP's PD.
     * @param offset       where in the WQE's buffers to start.
     * @param source       the bytes.
     * @param sourceOffset where in the source.
     * @param length       how many bytes.
     * @return false on a bad lkey, PD, range or a region without LOCAL_WRITE.
     */
    public static boolean scatter(
        final RecvWqe wqe, final MrTable mrs, final SoftPd pd, final long offset, final MemorySegment source,
        final long sourceOffset, final int length)
    {
        if (length == 0)
        {
            return true;
        }
        long skip = offset;
        long written = 0;
        for (int i = 0; i < wqe.numSge && written < length; i++)
        {
            final int sgeLength = wqe.length[i];
            if (skip >= sgeLength)
            {
                skip -= sgeLength;
                continue;
            }
            final int chunk = (int)Math.min(sgeLength - skip, length - written);
            final SoftMr mr = mrs.lookup(wqe.lkey[i]);
            final long address = wqe.addr[i] + skip;
            if (mr == null || mr.softPd() != pd || !mr.covers(address, chunk) ||
                (mr.accessBits() & AccessFlag.LOCAL_WRITE.bit()) == 0)
            {
                return false;
            }
            MemorySegment.copy(source, sourceOffset + written, mr.segment(), address - mr.address(), chunk);
            written += chunk;
            skip = 0;
        }
        return written == length;
    }

    /**
     * Scatter {@code length} bytes of an RDMA READ response or atomic result into a send WQE's
     * local buffers, {@code offset} bytes into the message; the regions need LOCAL_WRITE.
     *
     * @param wqe          the send WQE (READ or atomic).
     * @param mrs          the device's memory regions.
     * @param pd           the QP's PD.
     * @param offset       where in the WQE's buffers to start.
     * @param source       the bytes.
     * @param sourceOffset where in the source.
     * @param length       how many bytes.
     * @return false on a bad lkey, PD, range or a region without LOCAL_WRITE (LOC_PROT_ERR).
     */
    public static boolean scatterToSend(
        final SendWqe wqe, final MrTable mrs, final SoftPd pd, final long offset, final MemorySegment source,
        final long sourceOffset, final int length)
    {
        if (length == 0)
        {
            return true;
        }
        long skip = offset;
        long written = 0;
        for (int i = 0; i < wqe.numSge && written < length; i++)
        {
            final int sgeLength = wqe.length[i];
            if (skip >= sgeLength)
            {
                skip -= sgeLength;
                continue;
            }
            final int chunk = (int)Math.min(sgeLength - skip, length - written);
            final SoftMr mr = mrs.lookup(wqe.lkey[i]);
            final long address = wqe.addr[i] + skip;
            if (mr == null || mr.softPd() != pd || !mr.covers(address, chunk) ||
                (mr.accessBits() & AccessFlag.LOCAL_WRITE.bit()) == 0)
            {
                return false;
            }
            MemorySegment.copy(source, sourceOffset + written, mr.segment(), address - mr.address(), chunk);
            written += chunk;
            skip = 0;
        }
        return written == length;
    }
}
