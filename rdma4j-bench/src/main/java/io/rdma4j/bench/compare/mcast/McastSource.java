package io.rdma4j.bench.compare.mcast;

/**
 * A system's sending end: it sends the message the peer wrote into the buffer it was given.
 */
interface McastSource extends AutoCloseable
{
    /**
     * @param length the message's length, from the start of the buffer.
     * @return true if taken, false if the system holds it back (no members yet, flow control): try again.
     */
    boolean offer(int length);

    /**
     * The system's own work when the application has none: members, heartbeats, what waits to be sent.
     *
     * @return the work done, 0 if none.
     */
    int doWork();

    /**
     * Send what an offer left waiting (a datagram being packed), as a paced sender does after each message.
     */
    void flush();

    /**
     * @return the sender's counters, {@code key=value} words.
     */
    String counters();

    @Override
    void close() throws Exception;
}
