package io.rdma4j.verbs;

/**
 * Work completion flags ({@code enum ibv_wc_flags}).
 */
public final class WcFlags
{
    /** The first 40 bytes of the receive buffer hold a GRH (UD). */
    public static final int GRH = 1;
    /** The completion carries immediate data. */
    public static final int WITH_IMM = 1 << 1;
    /** The IP checksum was checked. */
    public static final int IP_CSUM_OK = 1 << 2;
    /** The completion carries an invalidated rkey. */
    public static final int WITH_INV = 1 << 3;

    private WcFlags()
    {
    }
}
