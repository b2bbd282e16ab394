package io.rdma4j.netty;

import io.rdma4j.verbs.CompletionQueue;

/**
 * What an {@link RdmaIoHandler} drives: a connection's or a datagram channel's completion queue and the
 * resources that go with it, on the event loop's thread.
 */
interface CqConsumer
{
    /**
     * @return the CQ whose events the handler routes here.
     */
    CompletionQueue cq();

    /**
     * The CQ announced completions: re-arm it and take them all.
     *
     * @return true if there was one.
     */
    boolean onCompletions();

    /**
     * Take the completions there are without arming the CQ: a busy poll, which in the software device's polling
     * mode also receives on the calling thread.
     *
     * @return true if there was one.
     */
    boolean pollCompletions();

    /**
     * @return whether it waits for posted work to complete before it tears itself down.
     */
    boolean lingering();

    /**
     * @return when the wait ends regardless ({@link System#nanoTime()}), while {@link #lingering()}.
     */
    long lingerDeadline();

    /** Tear down now, whatever is still in flight. */
    void forceClose();

    /**
     * The last steps after teardown, retried until they succeed.
     *
     * @return true when done.
     */
    boolean finishRetiring();
}
