package io.rdma4j.soft.transport;

/**
 * One entry of the responder's resource ring (max_dest_rd_atomic entries, recycled oldest first):
 * what a READ or atomic request asked for, so a duplicate READ can be answered again from memory
 * and a duplicate atomic gets the saved original value instead of running twice.
 * <p>
 * An entry is also the responder's queue of responses owed: while {@link #pending}, its READ
 * response run (or its atomic ACK) waits to be sent, in the order {@link #seq} gives, a bounded slice
 * per turn of the progress loop. A duplicate restarts the entry's run; it never adds a second one.
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
    /** The MSN the responses carry: the responder's, once this request was counted. */
    int msn;

    /** True while responses of this entry are still to be sent. */
    boolean pending;
    /** When the entry was queued: the responder serves the lowest first. */
    long seq;
    /** The READ response run being sent: its first PSN, address, bytes and packets. */
    int runPsn;
    long runVa;
    long runLength;
    int runPackets;
    int runMtu;
    /** Packets of the run sent so far. */
    int sent;

    void read(final int firstPsn, final int lastPsn, final long va, final int rkey, final long length, final int msn)
    {
        this.type = READ;
        this.firstPsn = firstPsn;
        this.lastPsn = lastPsn;
        this.va = va;
        this.rkey = rkey;
        this.length = length;
        this.msn = msn;
    }

    void atomic(final int psn, final long va, final int rkey, final long orig, final int msn)
    {
        this.type = ATOMIC;
        this.firstPsn = psn;
        this.lastPsn = psn;
        this.va = va;
        this.rkey = rkey;
        this.length = Long.BYTES;
        this.orig = orig;
        this.msn = msn;
    }

    /**
     * (Re)start the READ response run: from {@code psn}, the bytes at {@code va}, as a request (or its
     * duplicate) asked.
     */
    void run(final int psn, final long va, final long length, final int mtu)
    {
        this.runPsn = psn;
        this.runVa = va;
        this.runLength = length;
        this.runMtu = mtu;
        this.runPackets = Psn.packets(length, mtu);
        this.sent = 0;
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
