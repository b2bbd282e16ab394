package io.rdma4j.verbs;

/**
 * Shared receive queue attributes ({@code struct ibv_srq_attr}).
 *
 * @param maxWr    outstanding receive work requests.
 * @param maxSge   scatter/gather elements per request.
 * @param srqLimit arm the limit event: when fewer than this many receives remain, an
 *                 {@link AsyncEventType#SRQ_LIMIT_REACHED} event fires once; 0 disarms.
 */
public record SrqAttr(int maxWr, int maxSge, int srqLimit)
{
}
