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
        numSge = other.numSge;
        System.arraycopy(other.addr, 0, addr, 0, other.numSge);
        System.arraycopy(other.length, 0, length, 0, other.numSge);
        System.arraycopy(other.lkey, 0, lkey, 0, other.numSge);
        totalLength = other.totalLength;
    }
}
