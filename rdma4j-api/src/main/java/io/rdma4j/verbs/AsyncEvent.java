package io.rdma4j.verbs;

/**
 * An asynchronous event ({@code struct ibv_async_event}): the element it concerns is set, the
 * others are null (or 0 for the port).
 *
 * @param type what happened.
 * @param qp   the queue pair, for QP events.
 * @param cq   the completion queue, for CQ events.
 * @param srq  the shared receive queue, for SRQ events.
 * @param port the port number, for port events.
 */
public record AsyncEvent(AsyncEventType type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq, int port)
{
}
