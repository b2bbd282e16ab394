package io.rdma4j.rmcast;

import java.lang.foreign.MemorySegment;

/**
 * Receives whole messages from {@link Subscription#poll}.
 */
@FunctionalInterface
public interface MessageHandler
{
    /**
     * @param buffer    holds the message; valid only during the call (a receive slot, a repair slot or the
     *                  reassembly buffer, reused afterwards).
     * @param offset    where the message starts in the buffer.
     * @param length    its length in bytes.
     * @param sessionId the publisher session it came from.
     * @param position  the sequence one past the message's last fragment: what the publisher's
     *                  {@link Publication#offer} returned for it.
     */
    void onMessage(MemorySegment buffer, long offset, int length, int sessionId, long position);
}
