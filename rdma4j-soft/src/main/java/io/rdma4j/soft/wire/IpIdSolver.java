package io.rdma4j.soft.wire;

/**
 * Recovers the IPv4 identification a RoCEv2 sender used from the ICRC it sent. The CRC input holds the
 * identification in two bytes followed by {@code n} more bytes; flipping identification bit j changes the CRC by
 * that bit's own contribution times x^(8n) mod P. Multiplying the observed change by x^-(8n) therefore brings every
 * packet length back to n = 0, where a fixed basis of 16 independent contributions, reduced once to echelon form,
 * answers by elimination. Stateless and thread-safe.
 */
final class IpIdSolver
{
    private static final int ID_BITS = 16;
    private static final int[] PIVOT_VECTOR = new int[Integer.SIZE];
    private static final int[] PIVOT_BITS = new int[Integer.SIZE];
    /** Each identification bit's own contribution to the CRC when nothing follows the identification. */
    private static final int[] BIT_CONTRIBUTION = new int[ID_BITS];

    static
    {
        // Bits 0..7 are in the identification's low byte, the last one; bits 8..15 are one byte earlier.
        final int carryHigh = Gf2Crc32.xPow8n(1);
        for (int bit = 0; bit < ID_BITS; bit++)
        {
            final int own = Gf2Crc32.byteContribution(1 << (bit & 7));
            int vector = bit < 8 ? own : Gf2Crc32.multiply(carryHigh, own);
            BIT_CONTRIBUTION[bit] = vector;
            int bits = 1 << bit;
            while (vector != 0)
            {
                final int pivot = 31 - Integer.numberOfLeadingZeros(vector);
                if (PIVOT_VECTOR[pivot] == 0)
                {
                    PIVOT_VECTOR[pivot] = vector;
                    PIVOT_BITS[pivot] = bits;
                    break;
                }
                vector ^= PIVOT_VECTOR[pivot];
                bits ^= PIVOT_BITS[pivot];
            }
            if (vector == 0)
            {
                throw new IllegalStateException("identification bit contributions are not independent");
            }
        }
    }

    private IpIdSolver()
    {
    }

    /**
     * The inverse of {@link #solve}: how the CRC changes when the identification goes from 0 to {@code ipId}.
     *
     * @param ipId       the identification, 0..65535.
     * @param bytesAfter how many CRC input bytes follow the identification's low byte.
     * @return the value to XOR into a CRC computed with identification 0.
     */
    static int change(final int ipId, final long bytesAfter)
    {
        final int vector = contribution(ipId);
        return 0 == vector ? 0 : Gf2Crc32.multiply(vector, Gf2Crc32.xPow8n(bytesAfter));
    }

    /**
     * {@link #change} for identifications {@code first .. first + count - 1} of one length at once: the
     * length's factor is computed once.
     */
    static void changes(final int first, final int count, final long bytesAfter, final int[] out)
    {
        final int factor = Gf2Crc32.xPow8n(bytesAfter);
        for (int i = 0; i < count; i++)
        {
            final int vector = contribution((first + i) & 0xFFFF);
            out[i] = 0 == vector ? 0 : Gf2Crc32.multiply(vector, factor);
        }
    }

    private static int contribution(final int ipId)
    {
        int vector = 0;
        for (int bit = 0; bit < ID_BITS; bit++)
        {
            if ((ipId & (1 << bit)) != 0)
            {
                vector ^= BIT_CONTRIBUTION[bit];
            }
        }
        return vector;
    }

    /**
     * @param difference the received CRC XOR the CRC computed with identification 0.
     * @param bytesAfter how many CRC input bytes follow the identification's low byte.
     * @return the identification that explains the difference, or -1 if none does.
     */
    static int solve(final int difference, final long bytesAfter)
    {
        int residue = Gf2Crc32.multiply(difference, Gf2Crc32.xPowMinus8n(bytesAfter));
        int ipId = 0;
        while (residue != 0)
        {
            final int pivot = 31 - Integer.numberOfLeadingZeros(residue);
            if (PIVOT_VECTOR[pivot] == 0)
            {
                return -1;
            }
            residue ^= PIVOT_VECTOR[pivot];
            ipId ^= PIVOT_BITS[pivot];
        }
        return ipId;
    }
}
