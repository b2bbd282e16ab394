package io.rdma4j.soft.transport;

/**
 * One entry of the responder's resource ring (max_dest_rd_atomic entries, recycled oldest first):
 * what a READ or atomic request asked for, so a duplicate READ can be answered again from memory
 * and a duplicate atomic gets the saved original value instead of running twice.
 */
final class ResponderResource
{
    /** Free slot. */
    static final int NONE = 0;
    /** An RDMA READ. */
    static final int READ = 1;
    /** An atomic. */
    static final int ATOMIC = 2;

    int type;
    int firstPsn;
    int lastPsn;
    long va;
    int rkey;
    long length;
    long orig;

    void read(final int firstPsn, final int lastPsn, final long va, final int rkey, final long length)
    {
        this.type = READ;
        this.firstPsn = firstPsn;
        this.lastPsn = lastPsn;
        this.va = va;
        this.rkey = rkey;
        this.length = length;
    }

    void atomic(final int psn, final long va, final int rkey, final long orig)
    {
        this.type = ATOMIC;
        this.firstPsn = psn;
        this.lastPsn = psn;
        this.va = va;
        this.rkey = rkey;
        this.length = Long.BYTES;
        this.orig = orig;
    }

    /**
     * @param psn a PSN.
     * @return true if this entry's request used it.
     */
    boolean covers(final int psn)
    {
        return type != NONE && Psn.diff(psn, firstPsn) >= 0 && Psn.diff(psn, lastPsn) <= 0;
    }
}
