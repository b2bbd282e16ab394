package io.rdma4j.soft.transport;

/**
 * A shared receive queue as its QPs' responders see it: a pool of receive WQEs, and the limit event
 * that taking one may fire.
 */
public interface SharedRecvPool
{
    /**
     * @return the pool.
     */
    RecvQueue queue();

    /**
     * Called after a receive was taken: fire the SRQ's limit event if it is armed and the pool is now below it.
     */
    void afterTake();
}
