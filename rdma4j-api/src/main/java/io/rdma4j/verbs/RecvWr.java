package io.rdma4j.verbs;

/**
 * A receive work request ({@code struct ibv_recv_wr}). Mutable and reusable.
 */
public final class RecvWr
{
    private final SgList sgList;
    private long wrId;
    private RecvWr next;

    /**
     * A request with room for one SGE.
     */
    public RecvWr()
    {
        this(1);
    }

    /**
     * @param maxSge room for this many SGEs.
     */
    public RecvWr(final int maxSge)
    {
        sgList = new SgList(maxSge);
    }

    public long wrId()
    {
        return wrId;
    }

    public RecvWr wrId(final long value)
    {
        wrId = value;
        return this;
    }

    public SgList sgList()
    {
        return sgList;
    }

    /**
     * Use exactly one SGE within a memory region.
     *
     * @param mr     the memory region.
     * @param offset offset within it.
     * @param length bytes.
     * @return this.
     */
    public RecvWr sge(final MemoryRegion mr, final long offset, final int length)
    {
        sgList.get(0).set(mr, offset, length);
        sgList.numSge(1);
        return this;
    }

    /**
     * Use exactly one SGE.
     *
     * @param addr   start address.
     * @param length bytes.
     * @param lkey   local key.
     * @return this.
     */
    public RecvWr sge(final long addr, final int length, final int lkey)
    {
        sgList.get(0).set(addr, length, lkey);
        sgList.numSge(1);
        return this;
    }

    public RecvWr next()
    {
        return next;
    }

    public RecvWr next(final RecvWr value)
    {
        next = value;
        return this;
    }
}
