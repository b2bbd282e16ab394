package io.rdma4j.cm;

/**
 * rdma_cm port spaces ({@code enum rdma_port_space}): which QP type an id serves.
 */
public enum PortSpace
{
    /** IPoIB port space (IB only). */
    IPOIB(0x0002),
    /**
     * Reliable connected (RC) QPs, named after TCP as librdmacm names it: a connection set up with
     * REQ/REP/RTU. UC QPs also connect in this space.
     */
    TCP(0x0106),
    /** Unreliable datagram (UD) QPs, named after UDP: multicast joins and SIDR address resolution. */
    UDP(0x0111),
    /** Native IB addressing, any QP type. */
    IB(0x013F);

    private final int value;

    PortSpace(final int value)
    {
        this.value = value;
    }

    /**
     * @return the value librdmacm uses; the service ID is {@code (value << 16) + port}.
     */
    public int value()
    {
        return value;
    }

    /**
     * @param port a port number.
     * @return the IB service ID for that port in this space.
     */
    public long serviceId(final int port)
    {
        return ((long)value << 16) + (port & 0xFFFF);
    }

    /**
     * @param value the librdmacm value.
     * @return the port space.
     */
    public static PortSpace fromValue(final int value)
    {
        for (final PortSpace ps : values())
        {
            if (ps.value == value)
            {
                return ps;
            }
        }
        throw new IllegalArgumentException("unknown port space 0x" + Integer.toHexString(value));
    }
}
