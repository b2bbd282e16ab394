package io.rdma4j.soft;

/**
 * What the progress thread does after a duty cycle, given the work that cycle did (Agrona's idle
 * strategy): nothing when there was work, a wait when there was none.
 */
@FunctionalInterface
interface IdleStrategy
{
    /**
     * @param workCount what the last {@link SoftEngine#doWork} returned.
     */
    void idle(int workCount);
}
