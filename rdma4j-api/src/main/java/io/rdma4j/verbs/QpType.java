package io.rdma4j.verbs;

/**
 * Queue pair transport types ({@code enum ibv_qp_type}).
 */
public enum QpType
{
    /** Reliable connected. */
    RC(2),
    /** Unreliable connected. */
    UC(3),
    /** Unreliable datagram: the only type that can attach to multicast groups. */
    UD(4);

    private final int value;

    QpType(final int value)
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
}
