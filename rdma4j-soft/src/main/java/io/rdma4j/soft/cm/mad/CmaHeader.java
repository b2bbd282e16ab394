package io.rdma4j.soft.cm.mad;

/**
 * Flyweight over the 36-byte header rdma_cm puts at the start of the private data of a REQ and a SIDR_REQ. The
 * CM knows only service IDs; this header carries the IP addresses and source port, so the passive side can match
 * the request to a listener bound to an address and report the peer's address in its CONNECT_REQUEST event.
 * <pre>
 *   0 version(8) | IP version[7:4] reserved[3:0] | source port(16)
 *   4 source address (16 bytes)
 *  20 destination address (16 bytes)
 *  36 the user's private data
 * </pre>
 * An IPv4 address sits in the last 4 bytes of its 16-byte field, after 12 zero bytes; that is not the
 * {@code ::ffff:a.b.c.d} mapped form GIDs use. All fields are big-endian, the port included.
 */
public final class CmaHeader extends MadFlyweight<CmaHeader>
{
    /** Offset of the version byte. */
    public static final int VERSION_OFFSET = 0;
    /** Offset of the byte whose high nibble is the IP version. */
    public static final int IP_VERSION_OFFSET = 1;
    /** Offset of the 16-bit source port. */
    public static final int SOURCE_PORT_OFFSET = 2;
    /** Offset of the 16-byte source address. */
    public static final int SOURCE_ADDRESS_OFFSET = 4;
    /** Offset of the 16-byte destination address. */
    public static final int DESTINATION_ADDRESS_OFFSET = 20;
    /** Where an IPv4 address starts inside its 16-byte field. */
    public static final int IPV4_IN_FIELD_OFFSET = 12;
    /** Length of the header. */
    public static final int LENGTH = 36;
    /** Where the user's private data starts, from the start of the CM private data. */
    public static final int USER_DATA_OFFSET = LENGTH;

    /** The only version rdma_cm sends; Linux rejects a request with any other. */
    public static final int CMA_VERSION = 0x00;
    /** IP version of an IPv4 header. */
    public static final int IPV4 = 4;
    /** IP version of an IPv6 header. */
    public static final int IPV6 = 6;

    private static final int IP_VERSION_SHIFT = 4;
    private static final int IP_VERSION_MASK = 0xF;

    /** Create an unwrapped flyweight; {@link #wrap} it before use. */
    public CmaHeader()
    {
        super(0);
    }

    /** @return where the user's private data starts in {@link #segment()}. */
    public long userDataOffset()
    {
        return offset() + USER_DATA_OFFSET;
    }

    /** @return the version byte, {@link #CMA_VERSION} from every sender so far. */
    public int version()
    {
        return u8(VERSION_OFFSET);
    }

    /**
     * @param version the version byte.
     * @return this.
     */
    public CmaHeader version(final int version)
    {
        return u8(VERSION_OFFSET, version);
    }

    /** @return the IP version, {@link #IPV4} or {@link #IPV6}: how to read the addresses. */
    public int ipVersion()
    {
        return bits(IP_VERSION_OFFSET, IP_VERSION_SHIFT, IP_VERSION_MASK);
    }

    /**
     * Write the IP version, keeping the reserved low nibble.
     *
     * @param ipVersion the IP version, 4 bits.
     * @return this.
     */
    public CmaHeader ipVersion(final int ipVersion)
    {
        return bits(IP_VERSION_OFFSET, IP_VERSION_SHIFT, IP_VERSION_MASK, ipVersion);
    }

    /** @return the active side's source port, which the passive side reports as the peer's port. */
    public int sourcePort()
    {
        return u16(SOURCE_PORT_OFFSET);
    }

    /**
     * @param port the source port, 16 bits.
     * @return this.
     */
    public CmaHeader sourcePort(final int port)
    {
        return u16(SOURCE_PORT_OFFSET, port);
    }

    /** @return the source IPv4 address, first octet in the high byte. */
    public int sourceIpv4()
    {
        return u32(SOURCE_ADDRESS_OFFSET + IPV4_IN_FIELD_OFFSET);
    }

    /**
     * Write an IPv4 source address and zero the 12 bytes before it.
     *
     * @param address the address, first octet in the high byte.
     * @return this.
     */
    public CmaHeader sourceIpv4(final int address)
    {
        return writeIpv4(SOURCE_ADDRESS_OFFSET, address);
    }

    /** @return the destination IPv4 address, first octet in the high byte. */
    public int destinationIpv4()
    {
        return u32(DESTINATION_ADDRESS_OFFSET + IPV4_IN_FIELD_OFFSET);
    }

    /**
     * Write an IPv4 destination address and zero the 12 bytes before it.
     *
     * @param address the address, first octet in the high byte.
     * @return this.
     */
    public CmaHeader destinationIpv4(final int address)
    {
        return writeIpv4(DESTINATION_ADDRESS_OFFSET, address);
    }

    /** @return the first 8 bytes of the source address field; 0 for IPv4. */
    public long sourceAddressHigh()
    {
        return u64(SOURCE_ADDRESS_OFFSET);
    }

    /**
     * @param high the first 8 bytes of the source address field.
     * @return this.
     */
    public CmaHeader sourceAddressHigh(final long high)
    {
        return u64(SOURCE_ADDRESS_OFFSET, high);
    }

    /** @return the last 8 bytes of the source address field; the IPv4 address in the low 4 for IPv4. */
    public long sourceAddressLow()
    {
        return u64(SOURCE_ADDRESS_OFFSET + 8);
    }

    /**
     * @param low the last 8 bytes of the source address field.
     * @return this.
     */
    public CmaHeader sourceAddressLow(final long low)
    {
        return u64(SOURCE_ADDRESS_OFFSET + 8, low);
    }

    /** @return the first 8 bytes of the destination address field; 0 for IPv4. */
    public long destinationAddressHigh()
    {
        return u64(DESTINATION_ADDRESS_OFFSET);
    }

    /**
     * @param high the first 8 bytes of the destination address field.
     * @return this.
     */
    public CmaHeader destinationAddressHigh(final long high)
    {
        return u64(DESTINATION_ADDRESS_OFFSET, high);
    }

    /** @return the last 8 bytes of the destination address field; the IPv4 address in the low 4 for IPv4. */
    public long destinationAddressLow()
    {
        return u64(DESTINATION_ADDRESS_OFFSET + 8);
    }

    /**
     * @param low the last 8 bytes of the destination address field.
     * @return this.
     */
    public CmaHeader destinationAddressLow(final long low)
    {
        return u64(DESTINATION_ADDRESS_OFFSET + 8, low);
    }

    private CmaHeader writeIpv4(final int field, final int address)
    {
        u64(field, 0L);
        u32(field + 8, 0);
        return u32(field + IPV4_IN_FIELD_OFFSET, address);
    }
}
