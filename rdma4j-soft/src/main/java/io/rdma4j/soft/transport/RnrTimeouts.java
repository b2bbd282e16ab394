package io.rdma4j.soft.transport;

/**
 * The RNR NAK timer table of the IB spec (ib_rnr_timeout codes): the 5-bit code a responder puts
 * in an RNR NAK (its QP's min_rnr_timer) and the time the requester waits before retrying. Code 0
 * is the longest, 655.36 ms. rxe's table has 61410 µs for code 25, a typo; this table keeps the
 * spec's 61440 µs.
 */
final class RnrTimeouts
{
    private static final int[] MICROS =
    {
        655_360, 10, 20, 30, 40, 60, 80, 120,
        160, 240, 320, 480, 640, 960, 1_280, 1_920,
        2_560, 3_840, 5_120, 7_680, 10_240, 15_360, 20_480, 30_720,
        40_960, 61_440, 81_920, 122_880, 163_840, 245_760, 327_680, 491_520,
    };

    private RnrTimeouts()
    {
    }

    /**
     * @param code an RNR timer code, 0..31 (higher bits ignored).
     * @return the wait in nanoseconds.
     */
    static long nanos(final int code)
    {
        return MICROS[code & 0x1F] * 1_000L;
    }
}
