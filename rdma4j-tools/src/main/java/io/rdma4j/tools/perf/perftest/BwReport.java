package io.rdma4j.tools.perf.perftest;

import java.nio.ByteBuffer;

/**
 * The bandwidth figures the client of {@code ib_write_bw} and {@code ib_read_bw} hands the server, which prints
 * them as its own result: message size, iterations, peak and average bandwidth (MB/s, 2^20 bytes) and the
 * message rate (millions a second). Each goes as its own 8-byte big-endian message (the doubles as IEEE 754 bits).
 *
 * @param size    the message size in bytes.
 * @param iters   the iterations measured.
 * @param bwPeak  the peak bandwidth, MB/s.
 * @param bwAvg   the average bandwidth, MB/s.
 * @param msgRate the message rate, Mpps.
 */
public record BwReport(long size, long iters, double bwPeak, double bwAvg, double msgRate)
{
    /** Bytes of each of the five messages. */
    public static final int FIELD_BYTES = 8;
    /** The messages, in the order they go. */
    public static final int FIELDS = 5;

    /**
     * @return the five 8-byte messages, in order.
     */
    public byte[][] encode()
    {
        return new byte[][] {bytes(size), bytes(iters), bytes(Double.doubleToRawLongBits(bwPeak)),
            bytes(Double.doubleToRawLongBits(bwAvg)), bytes(Double.doubleToRawLongBits(msgRate))};
    }

    /**
     * @param fields the five 8-byte messages as read.
     * @return the report.
     */
    public static BwReport decode(final byte[][] fields)
    {
        return new BwReport(value(fields[0]), value(fields[1]), Double.longBitsToDouble(value(fields[2])),
            Double.longBitsToDouble(value(fields[3])), Double.longBitsToDouble(value(fields[4])));
    }

    private static byte[] bytes(final long value)
    {
        return ByteBuffer.allocate(FIELD_BYTES).putLong(value).array();
    }

    private static long value(final byte[] field)
    {
        return ByteBuffer.wrap(field).getLong();
    }
}
