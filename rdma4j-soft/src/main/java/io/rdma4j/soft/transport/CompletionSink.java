package io.rdma4j.soft.transport;

import io.rdma4j.verbs.WcOpcode;
import io.rdma4j.verbs.WcStatus;

/**
 * Where a transport writes work completions: a completion queue's ring, as the transport sees it. The
 * CQ above implements it; the transport never learns how completions are polled or waited for.
 */
public interface CompletionSink
{
    /**
     * Add a completion.
     *
     * @return false if the completion was lost: the CQ was full (an overrun) or destroyed.
     */
    boolean add(
        long wrId, WcStatus status, WcOpcode opcode, int byteLen, int imm, int qpNum, int srcQp, int flags,
        boolean solicited);

    /**
     * Complete a send WQE the QP's flush found outstanding, with WR_FLUSH_ERR.
     *
     * @return false if the completion was lost.
     */
    default boolean flushSend(final long wrId, final WcOpcode opcode, final int qpNum)
    {
        return add(wrId, WcStatus.WR_FLUSH_ERR, opcode, 0, 0, qpNum, 0, 0, false);
    }

    /**
     * Complete a receive WQE with WR_FLUSH_ERR: its QP is in ERR.
     *
     * @return false if the completion was lost.
     */
    default boolean flushRecv(final long wrId, final int qpNum)
    {
        return add(wrId, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, qpNum, 0, 0, false);
    }
}
