package io.rdma4j.soft.transport;

import io.rdma4j.soft.resource.MrTable;
import io.rdma4j.soft.resource.SoftMr;
import io.rdma4j.verbs.ProtectionDomain;
import io.rdma4j.verbs.AccessFlag;

import java.lang.foreign.MemorySegment;

/**
 * Copies between packets and registered memory through scatter/gather lists, checking each
 * SGE's lkey, PD, range and access as the hardware would. Returns false instead of throwing, so
 * the transport turns a bad SGE, or memory whose arena has closed, into the completion status it
 * deserves.
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
        final SendWqe wqe, final MrTable mrs, final ProtectionDomain pd, final long messageOffset,
        final MemorySegment destination, final long destOffset, final int length)
    {
        if (length != 0 && wqe.isInline)
        {
            MemorySegment.copy(wqe.inline, messageOffset, destination, destOffset, length);
            return true;
        }
        return copy(wqe.numSge, wqe.addr, wqe.length, wqe.lkey, mrs, pd, messageOffset, destination, destOffset,
            length, false);
    }

    /**
     * Find {@code length} bytes of a send WQE's message, {@code messageOffset} bytes in, as one range of one
     * registered region, so a packet can carry them without a copy. Checks the SGE as {@link #gather} does.
     *
     * @param wqe           the send WQE.
     * @param mrs           the device's memory regions.
     * @param pd            the QP's PD.
     * @param messageOffset where in the message to start.
     * @param length        how many bytes, more than 0.
     * @param found         set to the region and the offset in its segment when found.
     * @return true if found; false if the bytes are inline, span SGEs, or fail a check (then {@link #gather}
     *         copies them or reports the protection error).
     */
    public static boolean inPlace(
        final SendWqe wqe, final MrTable mrs, final ProtectionDomain pd, final long messageOffset, final int length,
        final InPlace found)
    {
        if (wqe.isInline || length <= 0)
        {
            return false;
        }
        long skip = messageOffset;
        for (int i = 0; i < wqe.numSge; i++)
        {
            final int sgeLength = wqe.length[i];
            if (skip >= sgeLength)
            {
                skip -= sgeLength;
                continue;
            }
            if (sgeLength - skip < length)
            {
                return false;
            }
            final SoftMr mr = mrs.lookup(wqe.lkey[i]);
            final long address = wqe.addr[i] + skip;
            if (mr == null || mr.pd() != pd || !mr.covers(address, length) || !mr.segment().isNative() ||
                !mr.segment().scope().isAlive())
            {
                return false;
            }
            found.segment = mr.segment();
            found.offset = address - mr.address();
            return true;
        }
        return false;
    }

    /**
     * Where {@link #inPlace} found a message's bytes: a registered region's segment and an offset in it.
     */
    public static final class InPlace
    {
        /** The region's memory. */
        public MemorySegment segment;
        /** Where the bytes start in it. */
        public long offset;
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
        final RecvWqe wqe, final MrTable mrs, final ProtectionDomain pd, final long offset, final MemorySegment source,
        final long sourceOffset, final int length)
    {
        return copy(wqe.numSge, wqe.addr, wqe.length, wqe.lkey, mrs, pd, offset, source, sourceOffset, length, true);
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
        final SendWqe wqe, final MrTable mrs, final ProtectionDomain pd, final long offset, final MemorySegment source,
        final long sourceOffset, final int length)
    {
        return copy(wqe.numSge, wqe.addr, wqe.length, wqe.lkey, mrs, pd, offset, source, sourceOffset, length, true);
    }

    /**
     * Walk a scatter/gather list from {@code skip} bytes in and copy {@code length} bytes between
     * it and {@code other}: into the list's memory (which then needs LOCAL_WRITE) or out of it.
     */
    private static boolean copy(
        final int numSge, final long[] addr, final int[] sgeLengths, final int[] lkey, final MrTable mrs,
        final ProtectionDomain pd, final long skipBytes, final MemorySegment other, final long otherOffset, final int length,
        final boolean intoMemory)
    {
        if (length == 0)
        {
            return true;
        }
        long skip = skipBytes;
        long written = 0;
        for (int i = 0; i < numSge && written < length; i++)
        {
            final int sgeLength = sgeLengths[i];
            if (skip >= sgeLength)
            {
                skip -= sgeLength;
                continue;
            }
            final int chunk = (int)Math.min(sgeLength - skip, length - written);
            final SoftMr mr = mrs.lookup(lkey[i]);
            final long address = addr[i] + skip;
            if (mr == null || mr.pd() != pd || !mr.covers(address, chunk) ||
                intoMemory && (mr.accessBits() & AccessFlag.LOCAL_WRITE.bit()) == 0)
            {
                return false;
            }
            try
            {
                if (intoMemory)
                {
                    MemorySegment.copy(other, otherOffset + written, mr.segment(), address - mr.address(), chunk);
                }
                else
                {
                    MemorySegment.copy(mr.segment(), address - mr.address(), other, otherOffset + written, chunk);
                }
            }
            catch (final IllegalStateException | WrongThreadException ex)
            {
                // the region's arena closed after the lookup: a protection error for the WR, not a lost one
                return false;
            }
            written += chunk;
            skip = 0;
        }
        return written == length;
    }
}
