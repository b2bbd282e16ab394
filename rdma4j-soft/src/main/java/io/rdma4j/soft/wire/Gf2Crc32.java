package io.rdma4j.soft.wire;

/**
 * GF(2) arithmetic on CRC-32 register values, in the bit-reflected form {@link java.util.zip.CRC32} uses: bit 31
 * is the coefficient of x^0. Used to find how a bit of the CRC's input changes the CRC without hashing again.
 */
final class Gf2Crc32
{
    /** The reflected CRC-32 polynomial. */
    static final int POLY = 0xEDB8_8320;
    /** x^0, the polynomial 1. */
    static final int ONE = 1 << 31;

    /** x, the polynomial of degree 1. */
    static final int X = ONE >>> 1;
    /**
     * x^-1 mod P. P = x * Q + 1 as P has a constant term, so x * Q = 1 mod P and Q = (P - 1) / x: in the normal
     * (unreflected) form, x^31 plus the low 32 coefficients of P shifted down one place.
     */
    static final int X_INVERSE = Integer.reverse(0x8000_0000 | 0x04C1_1DB7 >>> 1);

    /**
     * FOLD_4[j] = what a register's four x^28..x^31 coefficients (its low four bits, j) become when the register is
     * multiplied by x^4: the part of x^32..x^35 that P reduces back into 32 bits.
     */
    private static final int[] FOLD_4 = new int[16];
    /** X_POW_2K[k] = x^(2^k) mod P, so any power of x is a product of table entries. */
    private static final int[] X_POW_2K;
    /** X_INVERSE_POW_2K[k] = x^-(2^k) mod P. */
    private static final int[] X_INVERSE_POW_2K;
    /**
     * x^(8n) and x^-(8n) for n = 0..255, then for n = 256 * (0..255): any packet length in at most two table reads
     * and one product.
     */
    private static final int[] X_8N_LOW = new int[256];
    private static final int[] X_8N_HIGH = new int[256];
    private static final int[] X_INVERSE_8N_LOW = new int[256];
    private static final int[] X_INVERSE_8N_HIGH = new int[256];

    static
    {
        for (int j = 0; j < FOLD_4.length; j++)
        {
            FOLD_4[j] = timesX(timesX(timesX(timesX(j))));
        }
        X_POW_2K = squares(X);
        X_INVERSE_POW_2K = squares(X_INVERSE);
        for (int i = 0; i < 256; i++)
        {
            X_8N_LOW[i] = power(X_POW_2K, i);
            X_8N_HIGH[i] = power(X_POW_2K, 256L * i);
            X_INVERSE_8N_LOW[i] = power(X_INVERSE_POW_2K, i);
            X_INVERSE_8N_HIGH[i] = power(X_INVERSE_POW_2K, 256L * i);
        }
    }

    private static int[] squares(final int base)
    {
        final int[] table = new int[32];
        table[0] = base;
        for (int k = 1; k < table.length; k++)
        {
            table[k] = multiply(table[k - 1], table[k - 1]);
        }
        return table;
    }

    private Gf2Crc32()
    {
    }

    /**
     * @param a a reflected polynomial.
     * @param b a reflected polynomial.
     * @return a * b mod P.
     */
    static int multiply(final int a, final int b)
    {
        // Horner's rule over a's eight nibbles, highest degree first (a's low four bits hold x^28..x^31): multiply
        // by x^4 with one table read, add the nibble times b. Masks pick the nibble's terms: a branch on each bit
        // of a, whose pattern no predictor learns, made the bit-at-a-time product 130-150 ns on 2026-11-27's
        // EPYC (Zen 3) against 25-37 ns for this.
        final int b1 = timesX(b);
        final int b2 = timesX(b1);
        final int b3 = timesX(b2);
        int product = 0;
        for (int shift = 0; shift < Integer.SIZE; shift += 4)
        {
            final int nibble = a >>> shift;
            final int terms = (b & -((nibble >>> 3) & 1)) ^ (b1 & -((nibble >>> 2) & 1)) ^
                (b2 & -((nibble >>> 1) & 1)) ^ (b3 & -(nibble & 1));
            product = (product >>> 4) ^ FOLD_4[product & 0xF] ^ terms;
        }
        return product;
    }

    /**
     * @param a a reflected polynomial.
     * @return a * x mod P: one place towards x^31, and P folded in for what passes it.
     */
    private static int timesX(final int a)
    {
        return (a >>> 1) ^ (POLY & -(a & 1));
    }

    /**
     * @param bytes a count of bytes, at least 0.
     * @return x^(8 * bytes) mod P: the operator that carries a register value over {@code bytes} zero bytes.
     */
    static int xPow8n(final long bytes)
    {
        if (bytes >= 0 && bytes < 0x1_0000)
        {
            final int low = X_8N_LOW[(int)bytes & 0xFF];
            return bytes < 0x100 ? low : multiply(X_8N_HIGH[(int)bytes >>> 8], low);
        }
        return power(X_POW_2K, bytes);
    }

    /**
     * @param bytes a count of bytes, at least 0.
     * @return x^-(8 * bytes) mod P: the operator that takes a register value back over {@code bytes} zero bytes.
     */
    static int xPowMinus8n(final long bytes)
    {
        if (bytes >= 0 && bytes < 0x1_0000)
        {
            final int low = X_INVERSE_8N_LOW[(int)bytes & 0xFF];
            return bytes < 0x100 ? low : multiply(X_INVERSE_8N_HIGH[(int)bytes >>> 8], low);
        }
        return power(X_INVERSE_POW_2K, bytes);
    }

    private static int power(final int[] squares, final long bytes)
    {
        int power = ONE;
        long n = bytes;
        // Exponent 8n: start at the table entry for 2^3. k passes 31 only beyond 2^28 bytes, where the wrap relies
        // on the order of x dividing 2^32 - 1, as zlib's crc32_combine does.
        for (int k = 3; n != 0; k++, n >>>= 1)
        {
            if ((n & 1) != 0)
            {
                power = multiply(squares[k & 31], power);
            }
        }
        return power;
    }

    /**
     * @param value one input byte.
     * @return the register, started at zero, after hashing {@code value}: the byte's own linear contribution.
     */
    static int byteContribution(final int value)
    {
        int register = value & 0xFF;
        for (int i = 0; i < 8; i++)
        {
            register = (register & 1) != 0 ? (register >>> 1) ^ POLY : register >>> 1;
        }
        return register;
    }
}
