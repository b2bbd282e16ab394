package io.rdma4j.soft.transport;

/**
 * 24-bit packet sequence number arithmetic. PSNs wrap at 2^24; {@code a} is later than {@code b}
 * when it lies within 2^23 after it, as the IB spec (and rxe's psn_compare) reads them.
 */
final class Psn
{
    /** PSNs are 24 bits wide. */
    static final int MASK = 0xFF_FFFF;

    private Psn()
    {
    }

    /**
     * @param a a PSN.
     * @param b a PSN.
     * @return a − b as a signed distance in −2^23..2^23−1: negative when a is before b.
     */
    static int diff(final int a, final int b)
    {
        return ((a - b) << 8) >> 8;
    }

    /**
     * @param psn a PSN.
     * @param n   how far to move.
     * @return psn + n, wrapped to 24 bits.
     */
    static int add(final int psn, final int n)
    {
        return (psn + n) & MASK;
    }

    /**
     * @param length message bytes.
     * @param mtu    path MTU bytes.
     * @return packets a message of that length takes (at least 1).
     */
    static int packets(final long length, final int mtu)
    {
        return length <= mtu ? 1 : (int)((length + mtu - 1) / mtu);
    }
}
