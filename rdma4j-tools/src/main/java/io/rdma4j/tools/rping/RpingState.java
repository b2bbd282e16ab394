package io.rdma4j.tools.rping;

/**
 * Where one rping connection stands. The CM and CQ threads set it and wake the main thread, which
 * checks it against the step it waits for. The codes are rping's, because its messages print them
 * ("wait for RDMA_READ_ADV state 10" is what a server says when the client has gone).
 */
public enum RpingState
{
    IDLE(1), CONNECT_REQUEST(2), ADDR_RESOLVED(3), ROUTE_RESOLVED(4), CONNECTED(5), RDMA_READ_ADV(6),
    RDMA_READ_COMPLETE(7), RDMA_WRITE_ADV(8), RDMA_WRITE_COMPLETE(9), DISCONNECTED(10), ERROR(11);

    private final int code;

    RpingState(final int code)
    {
        this.code = code;
    }

    /**
     * @return the number rping prints for this state.
     */
    public int code()
    {
        return code;
    }

    /**
     * @return true for the states up to and including CONNECTED, before any ping.
     */
    boolean beforePings()
    {
        return code <= CONNECTED.code;
    }
}
