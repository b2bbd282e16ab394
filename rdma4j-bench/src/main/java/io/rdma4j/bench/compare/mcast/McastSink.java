package io.rdma4j.bench.compare.mcast;

/**
 * A system's receiving end: a poll hands what arrived to the {@link McastStats} it was made with.
 */
interface McastSink extends AutoCloseable
{
    /**
     * @return work done (messages, datagrams, the system's own duty), 0 if idle.
     */
    int poll();

    /**
     * @return the receiver's repair counters, {@code key=value} words: {@code repair-requests=} (what the
     *         receiver asked to be sent again: rmcast's RDMA READs, Aeron's NAKs), {@code loss-events=}.
     */
    String counters();

    @Override
    void close() throws Exception;
}
