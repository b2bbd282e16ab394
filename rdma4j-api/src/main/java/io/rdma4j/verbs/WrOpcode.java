package io.rdma4j.verbs;

/**
 * Send work request opcodes ({@code enum ibv_wr_opcode}).
 */
public enum WrOpcode
{
    RDMA_WRITE(0), RDMA_WRITE_WITH_IMM(1), SEND(2), SEND_WITH_IMM(3), RDMA_READ(4), ATOMIC_CMP_AND_SWP(5),
    ATOMIC_FETCH_AND_ADD(6), LOCAL_INV(7), BIND_MW(8), SEND_WITH_INV(9);

    private final int value;

    WrOpcode(final int value)
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
     * @param type a QP type.
     * @return true if a QP of that type can post this opcode (UD: sends only; UC: no reads or
     * atomics).
     */
    public boolean allowedOn(final QpType type)
    {
        return switch (type)
        {
            case UD -> this == SEND || this == SEND_WITH_IMM;
            case UC -> this == SEND || this == SEND_WITH_IMM || this == RDMA_WRITE || this == RDMA_WRITE_WITH_IMM ||
                this == LOCAL_INV;
            case RC -> this != BIND_MW;
        };
    }

    /**
     * @return true for opcodes whose work request carries immediate data.
     */
    public boolean hasImmediate()
    {
        return this == SEND_WITH_IMM || this == RDMA_WRITE_WITH_IMM;
    }
}
