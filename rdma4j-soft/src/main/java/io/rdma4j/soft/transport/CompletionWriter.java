package io.rdma4j.soft.transport;

import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;

/**
 * One work completion being written, field by field, before {@link #writeTo} copies it into a
 * completion queue's ring. A transport role keeps one and reuses it for every completion it writes, so
 * writing a completion allocates nothing and every field is named where it is set.
 * <p>
 * Not thread-safe: a writer belongs to one producer at a time (a role on the progress thread, or a
 * role under the QP's send lock); the CQ's own lock covers only the copy.
 */
public final class CompletionWriter
{
    long wrId;
    WcStatus status = WcStatus.SUCCESS;
    WcOpcode opcode = WcOpcode.RECV;
    int byteLen;
    int immData;
    int qpNum;
    int srcQp;
    int wcFlags;
    boolean solicited;

    /**
     * Start the completion of a work request: status SUCCESS and every other field 0 until set.
     *
     * @param wrId   the work request's id.
     * @param opcode the completion opcode.
     * @return this.
     */
    public CompletionWriter begin(final long wrId, final WcOpcode opcode)
    {
        this.wrId = wrId;
        this.opcode = opcode;
        this.status = WcStatus.SUCCESS;
        this.byteLen = 0;
        this.immData = 0;
        this.qpNum = 0;
        this.srcQp = 0;
        this.wcFlags = 0;
        this.solicited = false;
        return this;
    }

    /**
     * @param status the completion's status.
     * @return this.
     */
    public CompletionWriter status(final WcStatus status)
    {
        this.status = status;
        return this;
    }

    /**
     * @param byteLen bytes transferred (received, for a receive).
     * @return this.
     */
    public CompletionWriter byteLen(final int byteLen)
    {
        this.byteLen = byteLen;
        return this;
    }

    /**
     * @param immData the immediate data, or the invalidated rkey, as the flags say.
     * @return this.
     */
    public CompletionWriter immData(final int immData)
    {
        this.immData = immData;
        return this;
    }

    /**
     * @param qpNum the local QP number.
     * @return this.
     */
    public CompletionWriter qpNum(final int qpNum)
    {
        this.qpNum = qpNum;
        return this;
    }

    /**
     * @param srcQp the sending QP's number (the peer's, for a receive).
     * @return this.
     */
    public CompletionWriter srcQp(final int srcQp)
    {
        this.srcQp = srcQp;
        return this;
    }

    /**
     * @param wcFlags {@link io.rdma4j.verbs.WcFlags} bits.
     * @return this.
     */
    public CompletionWriter wcFlags(final int wcFlags)
    {
        this.wcFlags = wcFlags;
        return this;
    }

    /**
     * @param solicited true if the message carried the solicited-event bit: it wakes a CQ armed for
     *                  solicited completions only.
     * @return this.
     */
    public CompletionWriter solicited(final boolean solicited)
    {
        this.solicited = solicited;
        return this;
    }

    /**
     * Add the completion to a CQ. The writer keeps its fields and may be written again.
     *
     * @param cq the CQ.
     * @return false if the CQ was full (an overrun) or destroyed and the completion was lost.
     */
    public boolean writeTo(final CompletionSink cq)
    {
        return cq.add(wrId, status, opcode, byteLen, immData, qpNum, srcQp, wcFlags, solicited);
    }
}
