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
     * {@link #change} for identifications {@code first .. first + count - 1} of one length at once. The change is
     * linear in the identification's bits, so each bit the identifications use is multiplied by the length's
     * factor once, and each identification's change is the sum of its bits' (a run of 16 segments numbered 1..15
     * takes four products, not fifteen).
     *
     * @param first      the first identification.
     * @param count      how many, at most {@code out.length}.
     * @param bytesAfter how many CRC input bytes follow the identification's low byte.
     * @param out        where the changes go, the first identification's at 0.
     */
    static void changes(final int first, final int count, final long bytesAfter, final int[] out)
    {
        if (count <= 0)
        {
            return;
        }
        final int factor = Gf2Crc32.xPow8n(bytesAfter);
        int used = 0;
        for (int i = 0; i < count; i++)
        {
            used |= (first + i) & 0xFFFF;
        }
        if ((used & ~0x3F) != 0)
        {
            // identifications past 63, which no UDP_SEGMENT run reaches (64 segments at most): one product each
            for (int i = 0; i < count; i++)
            {
                final int vector = contribution((first + i) & 0xFFFF);
                out[i] = 0 == vector ? 0 : Gf2Crc32.multiply(vector, factor);
            }
            return;
        }
        final int bit0 = scaledBit(used, 0, factor);
        final int bit1 = scaledBit(used, 1, factor);
        final int bit2 = scaledBit(used, 2, factor);
        final int bit3 = scaledBit(used, 3, factor);
        final int bit4 = scaledBit(used, 4, factor);
        final int bit5 = scaledBit(used, 5, factor);
        for (int i = 0; i < count; i++)
        {
            final int id = first + i;
            out[i] = (bit0 & -(id & 1)) ^ (bit1 & -((id >>> 1) & 1)) ^ (bit2 & -((id >>> 2) & 1)) ^
                (bit3 & -((id >>> 3) & 1)) ^ (bit4 & -((id >>> 4) & 1)) ^ (bit5 & -((id >>> 5) & 1));
        }
    }

    /** Identification bit {@code bit}'s change at the length of {@code factor}, or 0 if {@code used} lacks the bit. */
    private static int scaledBit(final int used, final int bit, final int factor)
    {
        return (used & (1 << bit)) == 0 ? 0 : Gf2Crc32.multiply(BIT_CONTRIBUTION[bit], factor);
    }

    private static int contribution(final int ipId)
    {
        int vector = 0;
        for (int bit = 0; bit < ID_BITS; bit++)
        {
            // a mask, not a branch on the bit: identifications differ from packet to packet
            vector ^= BIT_CONTRIBUTION[bit] & -((ipId >>> bit) & 1);
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
