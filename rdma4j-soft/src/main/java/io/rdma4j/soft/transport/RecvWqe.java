package io.rdma4j.soft.transport;

import io.rdma4j.verbs.RecvWr;

/**
 * A posted receive work request: the user's {@link RecvWr} copied at post time into a reused
 * slot.
 */
public final class RecvWqe
{
    public long wrId;
    public int numSge;
    public final long[] addr;
    public final int[] length;
    public final int[] lkey;
    public long totalLength;

    /**
     * @param maxSge SGE slots.
     */
    public RecvWqe(final int maxSge)
    {
        addr = new long[maxSge];
        length = new int[maxSge];
        lkey = new int[maxSge];
    }

    /**
     * @param wr the user's request.
     */
    public void copyFrom(final RecvWr wr)
    {
        wrId = wr.wrId();
        numSge = wr.sgList().numSge();
        totalLength = SgeArrays.copy(wr.sgList(), addr, length, lkey);
    }

    /**
     * @param other the WQE to copy.
     */
    public void copyFrom(final RecvWqe other)
    {
        wrId = other.wrId;
        final int sges = other.numSge;
        numSge = sges;
        if (sges == 1)
        {
            // the common receive: three arraycopy calls for one element each were a percent of a small receive
            addr[0] = other.addr[0];
            length[0] = other.length[0];
            lkey[0] = other.lkey[0];
        }
        else
        {
            System.arraycopy(other.addr, 0, addr, 0, sges);
            System.arraycopy(other.length, 0, length, 0, sges);
            System.arraycopy(other.lkey, 0, lkey, 0, sges);
        }
        totalLength = other.totalLength;
    }
}
