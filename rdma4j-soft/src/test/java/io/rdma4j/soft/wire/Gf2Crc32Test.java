package io.rdma4j.soft.wire;

import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class Gf2Crc32Test
{
    @Test
    void shouldInvertX()
    {
        assertEquals(Gf2Crc32.ONE, Gf2Crc32.multiply(Gf2Crc32.X_INVERSE, Gf2Crc32.X));
        for (final long n : new long[] {0, 1, 7, 100, 1082, 65535, 1L << 40})
        {
            assertEquals(Gf2Crc32.ONE, Gf2Crc32.multiply(Gf2Crc32.xPow8n(n), Gf2Crc32.xPowMinus8n(n)), "n " + n);
        }
    }

    @Test
    void shouldCarryARegisterOverZeroBytesAsCrc32Does()
    {
        // The linear part of CRC32 is the difference of two messages' CRCs: one bit set, then n zero bytes.
        for (final int n : new int[] {0, 1, 5, 64, 1000})
        {
            final byte[] one = new byte[n + 1];
            one[0] = 0x10;
            final byte[] zero = new byte[n + 1];
            final int expected = crc(one) ^ crc(zero);

            assertEquals(expected, Gf2Crc32.multiply(Gf2Crc32.xPow8n(n), Gf2Crc32.byteContribution(0x10)), "n " + n);
        }
    }

    private static int crc(final byte[] bytes)
    {
        final CRC32 crc = new CRC32();
        crc.update(bytes);
        return (int)crc.getValue();
    }
}
