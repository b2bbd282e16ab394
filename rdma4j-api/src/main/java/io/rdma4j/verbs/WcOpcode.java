package io.rdma4j.verbs;

/**
 * Work completion opcodes ({@code enum ibv_wc_opcode}).
 */
public enum WcOpcode
{
    SEND(0), RDMA_WRITE(1), RDMA_READ(2), COMP_SWAP(3), FETCH_ADD(4), BIND_MW(5), LOCAL_INV(6), RECV(128),
    RECV_RDMA_WITH_IMM(129);

    private final int value;

    WcOpcode(final int value)
    {
        this.value = value;
    }

    /**
     * @return the value libibverbs uses.
     */
    public int value()
    {
        return value;
    }

    /**
     * @param opcode a send work request opcode.
     * @return the completion opcode of a send of that kind.
     */
    public static WcOpcode forSend(final WrOpcode opcode)
    {
        return switch (opcode)
        {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> RDMA_WRITE;
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> SEND;
            case RDMA_READ -> RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> FETCH_ADD;
            case LOCAL_INV -> LOCAL_INV;
            case BIND_MW -> BIND_MW;
        };
    }
}
