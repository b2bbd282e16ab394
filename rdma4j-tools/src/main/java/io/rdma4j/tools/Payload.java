package io.rdma4j.tools;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Clock;
import java.time.Instant;

/**
 * What rdma4j's mckey puts at the start of each message so receivers can find lost and duplicated
 * messages and one-way latency: a marker, a sequence number, the sender's wall clock in
 * microseconds at posting time (nanoTime means nothing in another process), and how many messages
 * the sender sends. Big-endian, as on the wire.
 * <p>
 * rdma-core's mckey sends whatever its buffer holds (it never writes it), so a receiver takes a
 * message for one of ours only when the marker is there and the numbers agree with each other;
 * anything else is a plain message, counted as rdma-core's receiver counts it.
 */
public final class Payload
{
    /** Bytes the header needs; smaller messages carry no statistics. */
    public static final int HEADER_BYTES = 24;

    /** "r4jm": the first four bytes of a message an rdma4j mckey sent. */
    public static final int MAGIC = 0x72346A6D;

    private static final long MAGIC_OFFSET = 0;
    private static final long SEQUENCE_OFFSET = 4;
    private static final long MICROS_OFFSET = 12;
    private static final long TOTAL_OFFSET = 20;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final Clock CLOCK = Clock.systemUTC();

    private Payload()
    {
    }

    /**
     * @return the wall clock in microseconds since the epoch, to the precision the OS gives.
     */
    public static long nowMicros()
    {
        final Instant now = CLOCK.instant();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /**
     * @param buffer   where the message starts.
     * @param sequence the message's number, from 0.
     * @param micros   the send time.
     * @param total    how many messages the sender sends.
     */
    public static void write(final MemorySegment buffer, final long sequence, final long micros, final int total)
    {
        buffer.set(INT, MAGIC_OFFSET, MAGIC);
        buffer.set(LONG, SEQUENCE_OFFSET, sequence);
        buffer.set(LONG, MICROS_OFFSET, micros);
        buffer.set(INT, TOTAL_OFFSET, total);
    }

    /**
     * @param buffer where the message starts.
     * @param length the message's length in bytes.
     * @return true if the message carries this header: long enough, the marker in place, and a
     *         sequence number within the total the sender announced.
     */
    public static boolean isPresent(final MemorySegment buffer, final int length)
    {
        if (length < HEADER_BYTES || buffer.byteSize() < HEADER_BYTES || buffer.get(INT, MAGIC_OFFSET) != MAGIC)
        {
            return false;
        }
        final long sequence = sequence(buffer);
        return sequence >= 0 && sequence < total(buffer);
    }

    /**
     * @param buffer where the message starts.
     * @return its sequence number.
     */
    public static long sequence(final MemorySegment buffer)
    {
        return buffer.get(LONG, SEQUENCE_OFFSET);
    }

    /**
     * @param buffer where the message starts.
     * @return its send time in wall-clock microseconds.
     */
    public static long sentMicros(final MemorySegment buffer)
    {
        return buffer.get(LONG, MICROS_OFFSET);
    }

    /**
     * @param buffer where the message starts.
     * @return how many messages its sender sends.
     */
    public static int total(final MemorySegment buffer)
    {
        return buffer.get(INT, TOTAL_OFFSET);
    }
}
