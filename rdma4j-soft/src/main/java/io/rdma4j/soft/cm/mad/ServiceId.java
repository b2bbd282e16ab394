package io.rdma4j.soft.cm.mad;

/**
 * The service IDs rdma_cm puts in REQ and SIDR_REQ: the port space in bits 31:16 and the port in bits 15:0, so a
 * listener is found by port space and port alone and the IP addresses travel in the {@link CmaHeader}. The port
 * space values already hold the 0x01 that IBTA's "IP CM" service ID prefix asks for in byte 5 of the ID.
 */
public final class ServiceId
{
    /** Port space of RC ids ({@code RDMA_PS_TCP}). */
    public static final int PS_TCP = 0x0106;
    /** Port space of UD ids ({@code RDMA_PS_UDP}): SIDR and multicast. */
    public static final int PS_UDP = 0x0111;
    /** Port space of native IB addressing, any QP type ({@code RDMA_PS_IB}). */
    public static final int PS_IB = 0x013F;
    /** Port space of IPoIB ({@code RDMA_PS_IPOIB}); IB only. */
    public static final int PS_IPOIB = 0x0002;

    private static final int PORT_MASK = 0xFFFF;
    private static final int PORT_SPACE_SHIFT = 16;

    private ServiceId()
    {
    }

    /**
     * @param portSpace one of the {@code PS_} values, 16 bits.
     * @param port      the port, 16 bits.
     * @return the service ID, {@code (portSpace << 16) + port}.
     */
    public static long of(final int portSpace, final int port)
    {
        return ((long)(portSpace & PORT_MASK) << PORT_SPACE_SHIFT) + (port & PORT_MASK);
    }

    /**
     * @param serviceId a service ID.
     * @return its port space, bits 31:16; whatever lies above is ignored, as Linux does.
     */
    public static int portSpace(final long serviceId)
    {
        return (int)(serviceId >>> PORT_SPACE_SHIFT) & PORT_MASK;
    }

    /**
     * @param serviceId a service ID.
     * @return its port, bits 15:0.
     */
    public static int port(final long serviceId)
    {
        return (int)serviceId & PORT_MASK;
    }
}
