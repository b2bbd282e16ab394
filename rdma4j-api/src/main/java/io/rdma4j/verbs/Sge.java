package io.rdma4j.verbs;

/**
 * A scatter/gather element ({@code struct ibv_sge}): a range of registered memory given by its
 * virtual address, length and the lkey of the memory region that covers it. Mutable and meant to
 * be reused.
 */
public final class Sge
{
    private long addr;
    private int length;
    private int lkey;

    /**
     * @return the start address.
     */
    public long addr()
    {
        return addr;
    }

    /**
     * @return the length in bytes.
     */
    public int length()
    {
        return length;
    }

    /**
     * @return the local key of the memory region.
     */
    public int lkey()
    {
        return lkey;
    }

    /**
     * @param address start address.
     * @param bytes   length.
     * @param localKey lkey of the memory region holding the range.
     * @return this.
     */
    public Sge set(final long address, final int bytes, final int localKey)
    {
        addr = address;
        length = bytes;
        lkey = localKey;
        return this;
    }

    /**
     * @param mr     the memory region.
     * @param offset offset from the region's start.
     * @param bytes  length.
     * @return this.
     */
    public Sge set(final MemoryRegion mr, final long offset, final int bytes)
    {
        return set(mr.address() + offset, bytes, mr.lkey());
    }

    @Override
    public String toString()
    {
        return "Sge{addr=0x" + Long.toHexString(addr) + ", length=" + length + ", lkey=0x" + Integer.toHexString(lkey) + '}';
    }
}
