package io.rdma4j.verbs;

/**
 * The InfiniBand path MTU values ({@code enum ibv_mtu}).
 */
public enum Mtu
{
    MTU_256(1, 256), MTU_512(2, 512), MTU_1024(3, 1024), MTU_2048(4, 2048), MTU_4096(5, 4096);

    private final int value;
    private final int bytes;

    Mtu(final int value, final int bytes)
    {
        this.value = value;
        this.bytes = bytes;
    }

    /**
     * @return the enum value libibverbs uses (1..5).
     */
    public int value()
    {
        return value;
    }

    /**
     * @return the MTU in bytes.
     */
    public int bytes()
    {
        return bytes;
    }

    /**
     * @param value 1..5, as in {@code enum ibv_mtu}.
     * @return the MTU.
     */
    public static Mtu fromValue(final int value)
    {
        for (final Mtu mtu : values())
        {
            if (mtu.value == value)
            {
                return mtu;
            }
        }
        throw new RdmaException(Errno.EINVAL, "path MTU enum value " + value + " is not 1 (256) .. 5 (4096)");
    }

    /**
     * @param bytes 256, 512, 1024, 2048 or 4096.
     * @return the MTU.
     */
    public static Mtu fromBytes(final int bytes)
    {
        for (final Mtu mtu : values())
        {
            if (mtu.bytes == bytes)
            {
                return mtu;
            }
        }
        throw new RdmaException(Errno.EINVAL, "MTU " + bytes + " is not one of 256, 512, 1024, 2048, 4096");
    }

    /**
     * The largest IB MTU that fits an Ethernet MTU once the RoCEv2 headers are taken off, as rxe
     * chooses the active MTU: 1500 gives 1024, 9000 gives 4096.
     *
     * @param ethernetMtu the network interface's MTU.
     * @return the IB MTU, at least 256.
     */
    public static Mtu forEthernet(final int ethernetMtu)
    {
        final int room = ethernetMtu - 80;
        Mtu best = MTU_256;
        for (final Mtu mtu : values())
        {
            if (mtu.bytes <= room)
            {
                best = mtu;
            }
        }
        return best;
    }
}
