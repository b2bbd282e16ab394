package io.rdma4j.soft.transport;

import io.rdma4j.soft.resource.SoftAh;
import io.rdma4j.verbs.SendFlags;
import io.rdma4j.verbs.SendWr;
import io.rdma4j.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;

/**
 * A posted send work request as the send queue keeps it: the user's {@link SendWr} copied at
 * post time (so the user may reuse it at once) plus the requester's and completer's progress
 * through it. Slots are preallocated and reused.
 */
public final class SendWqe
{
    /** Not yet started by the requester. */
    public static final int STATE_POSTED = 0;
    /** Some packets sent, more to send. */
    public static final int STATE_PROCESSING = 1;
    /** Every packet sent; waiting for the ACK or response (RC). */
    public static final int STATE_PENDING = 2;
    /** Done: completed or to be completed. */
    public static final int STATE_DONE = 3;
    /** Completed with an error. */
    public static final int STATE_ERROR = 4;

    public long wrId;
    public WrOpcode opcode;
    public int sendFlags;
    public int numSge;
    public final long[] addr;
    public final int[] length;
    public final int[] lkey;
    public long totalLength;
    public int immData;
    public int invalidateRkey;
    public long remoteAddr;
    public int rkey;
    public long compareAdd;
    public long swap;
    public SoftAh ah;
    public int remoteQpn;
    public int remoteQkey;
    /** Inline data copied at post time, when {@link SendFlags#INLINE} was given. */
    public final MemorySegment inline;
    public boolean isInline;

    /** Requester progress: one of the STATE_ constants. */
    public int state;
    /** PSN of the first packet of this request. */
    public int firstPsn;
    /** PSN of the last packet (for READ: of the last response expected). */
    public int lastPsn;
    /** Bytes of the message already sent (or for READ, received). */
    public long offset;
    /** Packets sent for this request so far. */
    public int packetsSent;
    /** Set when the request must be signaled (SIGNALED flag, or sq_sig_all). */
    public boolean signaled;
    /** RC/UC: PSNs are assigned (the requester started it once); a go-back-N retry keeps them. */
    public boolean started;
    /** The status a WQE in {@link #STATE_ERROR} completes with when the queue is flushed. */
    public io.rdma4j.verbs.WcStatus errorStatus;

    /**
     * @param maxSge    SGE slots.
     * @param inlineRoom a segment of max_inline_data bytes, or an empty segment.
     */
    public SendWqe(final int maxSge, final MemorySegment inlineRoom)
    {
        addr = new long[maxSge];
        length = new int[maxSge];
        lkey = new int[maxSge];
        inline = inlineRoom;
    }

    /**
     * Copy a work request into this slot.
     *
     * @param wr        the user's request.
     * @param signalAll the QP's sq_sig_all.
     */
    public void copyFrom(final SendWr wr, final boolean signalAll)
    {
        wrId = wr.wrId();
        opcode = wr.opcode();
        sendFlags = wr.sendFlags();
        numSge = wr.sgList().numSge();
        totalLength = SgeArrays.copy(wr.sgList(), addr, length, lkey);
        immData = wr.immData();
        invalidateRkey = wr.invalidateRkey();
        remoteAddr = wr.remoteAddr();
        rkey = wr.rkey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        ah = (SoftAh)wr.ah();
        remoteQpn = wr.remoteQpn();
        remoteQkey = wr.remoteQkey();
        isInline = (sendFlags & SendFlags.INLINE) != 0;
        signaled = signalAll || (sendFlags & SendFlags.SIGNALED) != 0;
        state = STATE_POSTED;
        firstPsn = 0;
        lastPsn = 0;
        offset = 0;
        packetsSent = 0;
        started = false;
        errorStatus = null;
    }
}
