package io.rdma4j.verbs;

/**
 * A work completion ({@code struct ibv_wc}). The caller owns an array of these and
 * {@link CompletionQueue#poll} fills them, so polling allocates nothing.
 */
public final class WorkCompletion
{
    private long wrId;
    private WcStatus status = WcStatus.SUCCESS;
    private WcOpcode opcode = WcOpcode.SEND;
    private int vendorErr;
    private int byteLen;
    private int immData;
    private int qpNum;
    private int srcQp;
    private int wcFlags;
    private int pkeyIndex;
    private int slid;
    private int sl;
    private int dlidPathBits;

    /**
     * Make an array of completions to poll into.
     *
     * @param count how many.
     * @return the array, each slot filled.
     */
    public static WorkCompletion[] array(final int count)
    {
        final WorkCompletion[] wcs = new WorkCompletion[count];
        for (int i = 0; i < count; i++)
        {
            wcs[i] = new WorkCompletion();
        }
        return wcs;
    }

    public long wrId()
    {
        return wrId;
    }

    public WcStatus status()
    {
        return status;
    }

    public WcOpcode opcode()
    {
        return opcode;
    }

    public int vendorErr()
    {
        return vendorErr;
    }

    /**
     * @return bytes received (receives, including the 40-byte GRH slot on UD) or transferred.
     */
    public int byteLen()
    {
        return byteLen;
    }

    /**
     * @return the immediate data when {@link WcFlags#WITH_IMM} is set, or the invalidated rkey
     * when {@link WcFlags#WITH_INV} is.
     */
    public int immData()
    {
        return immData;
    }

    public int qpNum()
    {
        return qpNum;
    }

    /**
     * @return the sender's QPN (UD receives).
     */
    public int srcQp()
    {
        return srcQp;
    }

    /**
     * @return {@link WcFlags} bits.
     */
    public int wcFlags()
    {
        return wcFlags;
    }

    public int pkeyIndex()
    {
        return pkeyIndex;
    }

    public int slid()
    {
        return slid;
    }

    public int sl()
    {
        return sl;
    }

    public int dlidPathBits()
    {
        return dlidPathBits;
    }

    /**
     * @return true if the status is {@link WcStatus#SUCCESS}.
     */
    public boolean isSuccess()
    {
        return status == WcStatus.SUCCESS;
    }

    /**
     * Fill this completion; providers call it.
     *
     * @param id      wr_id.
     * @param st      status.
     * @param op      opcode.
     * @param length  byte_len.
     * @param imm     immediate data or invalidated rkey.
     * @param qp      local QPN.
     * @param source  source QPN.
     * @param flags   wc_flags.
     * @param vendor  vendor error.
     * @return this.
     */
    public WorkCompletion set(
        final long id, final WcStatus st, final WcOpcode op, final int length, final int imm, final int qp,
        final int source, final int flags, final int vendor)
    {
        wrId = id;
        status = st;
        opcode = op;
        byteLen = length;
        immData = imm;
        qpNum = qp;
        srcQp = source;
        wcFlags = flags;
        vendorErr = vendor;
        pkeyIndex = 0;
        slid = 0;
        sl = 0;
        dlidPathBits = 0;
        return this;
    }

    /**
     * Copy another completion into this one.
     *
     * @param other the source.
     * @return this.
     */
    public WorkCompletion copyFrom(final WorkCompletion other)
    {
        set(other.wrId, other.status, other.opcode, other.byteLen, other.immData, other.qpNum, other.srcQp,
            other.wcFlags, other.vendorErr);
        pkeyIndex = other.pkeyIndex;
        slid = other.slid;
        sl = other.sl;
        dlidPathBits = other.dlidPathBits;
        return this;
    }

    @Override
    public String toString()
    {
        return "WorkCompletion{wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLen=" + byteLen +
            ", immData=0x" + Integer.toHexString(immData) + ", qpNum=" + qpNum + ", srcQp=" + srcQp + ", wcFlags=" +
            wcFlags + ", vendorErr=" + vendorErr + '}';
    }
}
