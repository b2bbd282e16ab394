package io.rdma4j.tools;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Clock;
import java.time.Instant;

/**
 * What mckey puts at the start of each message so receivers can find lost and duplicated
 * messages and one-way latency: a sequence number, the sender's wall clock in microseconds at
 * posting time (nanoTime means nothing in another process), and how many messages the sender
 * sends. Big-endian, as on the wire.
 */
public final class Payload
{
    /** Bytes the header needs; smaller messages carry no statistics. */
    public static final int HEADER_BYTES = 20;

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
        buffer.set(LONG, 0, sequence);
        buffer.set(LONG, 8, micros);
        buffer.set(INT, 16, total);
    }

    /**
     * @param buffer where the message starts.
     * @return its sequence number.
     */
    public static long sequence(final MemorySegment buffer)
    {
        return buffer.get(LONG, 0);
    }

    /**
     * @param buffer where the message starts.
     * @return its send time in wall-clock microseconds.
     */
    public static long sentMicros(final MemorySegment buffer)
    {
        return buffer.get(LONG, 8);
    }

    /**
     * @param buffer where the message starts.
     * @return how many messages its sender sends.
     */
    public static int total(final MemorySegment buffer)
    {
        return buffer.get(INT, 16);
    }
}
