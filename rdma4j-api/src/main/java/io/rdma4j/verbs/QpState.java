package io.rdma4j.verbs;

/**
 * Queue pair states ({@code enum ibv_qp_state}).
 */
public enum QpState
{
    RESET, INIT, RTR, RTS, SQD, SQE, ERR;

    /**
     * @return the value libibverbs uses (the ordinal).
     */
    public int value()
    {
        return ordinal();
    }
}
