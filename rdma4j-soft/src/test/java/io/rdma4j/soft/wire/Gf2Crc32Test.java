package io.rdma4j.soft.wire;

import java.util.SplittableRandom;
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

    @Test
    void shouldMultiplyAsTheBitAtATimeProductDoes()
    {
        final SplittableRandom random = new SplittableRandom(0x1CC0);
        final int[] edges = {0, 1, Gf2Crc32.ONE, Gf2Crc32.X, Gf2Crc32.POLY, -1, 0x8000_0001, 0x0F0F_0F0F};
        for (final int a : edges)
        {
            for (final int b : edges)
            {
                assertEquals(bitAtATime(a, b), Gf2Crc32.multiply(a, b), "a " + a + ", b " + b);
            }
        }
        for (int i = 0; i < 100_000; i++)
        {
            final int a = random.nextInt();
            final int b = random.nextInt();
            assertEquals(bitAtATime(a, b), Gf2Crc32.multiply(a, b), "a " + a + ", b " + b);
        }
    }

    @Test
    void shouldRaiseXToEveryByteCountAsRepeatedMultiplicationDoes()
    {
        // x^(8n) from the tables (n under 65536) and from the squares beyond, against n products by x^8
        final int xPow8 = Gf2Crc32.xPow8n(1);
        assertEquals(bitAtATime(Gf2Crc32.X, bitAtATime(Gf2Crc32.X, bitAtATime(Gf2Crc32.X, bitAtATime(Gf2Crc32.X,
            bitAtATime(Gf2Crc32.X, bitAtATime(Gf2Crc32.X, bitAtATime(Gf2Crc32.X, Gf2Crc32.X))))))), xPow8);
        int expected = Gf2Crc32.ONE;
        for (int n = 0; n <= 70_000; n++)
        {
            if (n < 1100 || n % 997 == 0 || (n > 65_530 && n < 65_540))
            {
                assertEquals(expected, Gf2Crc32.xPow8n(n), "n " + n);
                assertEquals(Gf2Crc32.ONE, bitAtATime(expected, Gf2Crc32.xPowMinus8n(n)), "n " + n);
            }
            expected = bitAtATime(expected, xPow8);
        }
    }

    /** The product as the definition gives it: for each coefficient of a, b times that power of x. */
    private static int bitAtATime(final int a, final int b)
    {
        int product = 0;
        int multiplicand = b;
        for (int bit = 31; bit >= 0; bit--)
        {
            if ((a & (1 << bit)) != 0)
            {
                product ^= multiplicand;
            }
            multiplicand = (multiplicand & 1) != 0 ? (multiplicand >>> 1) ^ Gf2Crc32.POLY : multiplicand >>> 1;
        }
        return product;
    }

    private static int crc(final byte[] bytes)
    {
        final CRC32 crc = new CRC32();
        crc.update(bytes);
        return (int)crc.getValue();
    }
}
