package io.rdma4j.verbs;

/**
 * Queue pair capabilities ({@code struct ibv_qp_cap}): the sizes of its queues.
 *
 * @param maxSendWr     outstanding send work requests.
 * @param maxRecvWr     outstanding receive work requests (ignored with an SRQ).
 * @param maxSendSge    scatter/gather elements per send work request.
 * @param maxRecvSge    scatter/gather elements per receive work request.
 * @param maxInlineData bytes a send may carry inline.
 */
public record QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData)
{
    /**
     * @param maxSendWr outstanding sends.
     * @param maxRecvWr outstanding receives.
     * @return capabilities with one SGE each way and no inline data.
     */
    public static QpCap of(final int maxSendWr, final int maxRecvWr)
    {
        return new QpCap(maxSendWr, maxRecvWr, 1, 1, 0);
    }
}
