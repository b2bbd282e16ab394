package io.rdma4j.netty;

import io.netty.channel.IoOps;
import io.rdma4j.verbs.CompletionQueue;

import java.util.Objects;

/**
 * What a registration submits: the completions of its CQ (made on the loop's completion channel of its device)
 * are to reach its handle as {@link CqReady} events. Submitting is outstanding work, as an io_uring submission
 * is: the registration stays with its handler, cancelled or not, until the CQ is released
 * ({@link RdmaIoRegistration#release}), so a lingering endpoint still gets its completions after its channel
 * deregistered.
 *
 * @param cq the completion queue.
 */
record RdmaIoOps(CompletionQueue cq) implements IoOps
{
    /**
     * @param cq the completion queue.
     */
    RdmaIoOps
    {
        Objects.requireNonNull(cq, "cq");
    }

    /**
     * @param cq a completion queue on the loop's completion channel.
     * @return the interest in its completions.
     */
    static RdmaIoOps completions(final CompletionQueue cq)
    {
        return new RdmaIoOps(cq);
    }
}
