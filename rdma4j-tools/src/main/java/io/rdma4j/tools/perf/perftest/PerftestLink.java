package io.rdma4j.tools.perf.perftest;

import java.io.IOException;

/**
 * What carries perftest's exchange: its TCP connection, or with {@code -R} an RC QP that rdma_cm connected, where
 * each message is one SEND into the receive the peer keeps posted.
 */
public interface PerftestLink
{
    /**
     * @param message one whole message, which goes out as one write (TCP) or one SEND.
     * @throws IOException if the connection broke.
     */
    void send(byte[] message) throws IOException;

    /**
     * @param size the message's size, which both sides know from the step they are at.
     * @return the peer's next message, {@code size} bytes.
     * @throws IOException if the connection broke or the message is shorter.
     */
    byte[] receive(int size) throws IOException;
}
