package io.rdma4j.verbs;

/**
 * A send work request ({@code struct ibv_send_wr}). Mutable and reusable, so posting allocates
 * nothing: fill it, post it, fill it again. {@link #next(SendWr)} chains requests posted in one
 * call.
 */
public final class SendWr
{
    private final SgList sgList;
    private long wrId;
    private WrOpcode opcode = WrOpcode.SEND;
    private int sendFlags;
    private int immData;
    private int invalidateRkey;
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private SendWr next;

    /**
     * A request with room for one SGE.
     */
    public SendWr()
    {
        this(1);
    }

    /**
     * @param maxSge room for this many SGEs.
     */
    public SendWr(final int maxSge)
    {
        sgList = new SgList(maxSge);
    }

    public long wrId()
    {
        return wrId;
    }

    public SendWr wrId(final long value)
    {
        wrId = value;
        return this;
    }

    public WrOpcode opcode()
    {
        return opcode;
    }

    public SendWr opcode(final WrOpcode value)
    {
        opcode = value;
        return this;
    }

    /**
     * @return {@link SendFlags} bits.
     */
    public int sendFlags()
    {
        return sendFlags;
    }

    public SendWr sendFlags(final int value)
    {
        sendFlags = value;
        return this;
    }

    /**
     * @return the scatter/gather list.
     */
    public SgList sgList()
    {
        return sgList;
    }

    /**
     * Use exactly one SGE.
     *
     * @param addr   start address.
     * @param length bytes.
     * @param lkey   local key.
     * @return this.
     */
    public SendWr sge(final long addr, final int length, final int lkey)
    {
        sgList.get(0).set(addr, length, lkey);
        sgList.numSge(1);
        return this;
    }

    /**
     * Use exactly one SGE within a memory region.
     *
     * @param mr     the memory region.
     * @param offset offset within it.
     * @param length bytes.
     * @return this.
     */
    public SendWr sge(final MemoryRegion mr, final long offset, final int length)
    {
        sgList.get(0).set(mr, offset, length);
        sgList.numSge(1);
        return this;
    }

    /**
     * @return immediate data, as a 32-bit value in host order; it travels big-endian.
     */
    public int immData()
    {
        return immData;
    }

    public SendWr immData(final int value)
    {
        immData = value;
        return this;
    }

    public int invalidateRkey()
    {
        return invalidateRkey;
    }

    public SendWr invalidateRkey(final int value)
    {
        invalidateRkey = value;
        return this;
    }

    public long remoteAddr()
    {
        return remoteAddr;
    }

    public int rkey()
    {
        return rkey;
    }

    /**
     * The remote memory of an RDMA or atomic operation.
     *
     * @param address remote virtual address.
     * @param remoteKey rkey of the remote memory region.
     * @return this.
     */
    public SendWr rdma(final long address, final int remoteKey)
    {
        remoteAddr = address;
        rkey = remoteKey;
        return this;
    }

    public long compareAdd()
    {
        return compareAdd;
    }

    public long swap()
    {
        return swap;
    }

    /**
     * The operands of an atomic operation.
     *
     * @param compareOrAdd compare value (CMP_AND_SWP) or addend (FETCH_AND_ADD).
     * @param swapValue    swap value (CMP_AND_SWP).
     * @return this.
     */
    public SendWr atomic(final long compareOrAdd, final long swapValue)
    {
        compareAdd = compareOrAdd;
        swap = swapValue;
        return this;
    }

    public AddressHandle ah()
    {
        return ah;
    }

    public int remoteQpn()
    {
        return remoteQpn;
    }

    public int remoteQkey()
    {
        return remoteQkey;
    }

    /**
     * The destination of a UD send.
     *
     * @param addressHandle the address handle.
     * @param qpn           remote QPN, 0xFFFFFF for a multicast group.
     * @param qkey          remote Q_Key.
     * @return this.
     */
    public SendWr ud(final AddressHandle addressHandle, final int qpn, final int qkey)
    {
        ah = addressHandle;
        remoteQpn = qpn;
        remoteQkey = qkey;
        return this;
    }

    public SendWr next()
    {
        return next;
    }

    public SendWr next(final SendWr value)
    {
        next = value;
        return this;
    }
}
