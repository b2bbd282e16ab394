package io.rdma4j.tools.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * What an rping client puts in its source buffer for each ping: the text {@code rdma-ping-N: },
 * then letters counting up from a start character through the ASCII range 'A'..'z' and wrapping
 * back to 'A', and a terminating NUL in the last byte. The start character moves on by one each
 * ping, wrapping the same way, so consecutive pings differ everywhere.
 */
public final class PingPattern
{
    /** First character of the rotating run. */
    static final int FIRST = 'A';
    /** Last character of the rotating run. */
    static final int LAST = 'z';

    private int start = FIRST;

    /**
     * Fill the buffer for one ping and move the start character on.
     *
     * @param buffer at least {@code size} bytes.
     * @param size   bytes to fill, the last being NUL.
     * @param ping   the ping's number, from 0.
     */
    public void fill(final MemorySegment buffer, final int size, final int ping)
    {
        MemorySegment.copy(message(ping, start, size), 0, buffer, ValueLayout.JAVA_BYTE, 0, size);
        start = next(start);
    }

    /**
     * @param ping  the ping's number.
     * @param first the start character for that ping.
     * @param size  bytes in the buffer.
     * @return the buffer's contents, NUL included.
     */
    public static byte[] message(final int ping, final int first, final int size)
    {
        final byte[] bytes = new byte[size];
        final byte[] head = header(ping);
        final int headLength = Math.min(head.length, size);
        System.arraycopy(head, 0, bytes, 0, headLength);
        int c = first;
        for (int i = headLength; i < size; i++)
        {
            bytes[i] = (byte)c;
            c = next(c);
        }
        if (size > 0)
        {
            bytes[size - 1] = 0;
        }
        return bytes;
    }

    /**
     * @param ping the ping's number.
     * @param size bytes in the buffer.
     * @return what {@code -v} prints after "ping data: " for that ping when every ping so far had
     *         its own start character (the client's sequence).
     */
    public static String text(final int ping, final int size)
    {
        return cString(message(ping, startFor(ping), size));
    }

    /**
     * @param ping the ping's number.
     * @return the start character the client uses for it.
     */
    public static int startFor(final int ping)
    {
        return FIRST + Math.floorMod(ping, LAST - FIRST + 1);
    }

    /**
     * @param ping the ping's number.
     * @return the header {@code rdma-ping-N: } in ASCII.
     */
    static byte[] header(final int ping)
    {
        return ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
    }

    private static int next(final int c)
    {
        return c >= LAST ? FIRST : c + 1;
    }

    /**
     * @param bytes a NUL-terminated string, or one that fills the array.
     * @return the text before the first NUL.
     */
    static String cString(final byte[] bytes)
    {
        int end = 0;
        while (end < bytes.length && bytes[end] != 0)
        {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
    }

    /**
     * @param buffer a buffer holding a C string.
     * @param limit  bytes to look at, at most.
     * @return the bytes before the first NUL (or all {@code limit} of them).
     */
    static int cStringLength(final MemorySegment buffer, final int limit)
    {
        int end = 0;
        while (end < limit && buffer.get(ValueLayout.JAVA_BYTE, end) != 0)
        {
            end++;
        }
        return end;
    }

    /**
     * @param buffer a buffer holding a C string.
     * @param limit  bytes to look at, at most.
     * @return the text before the first NUL.
     */
    static String cString(final MemorySegment buffer, final int limit)
    {
        final int length = cStringLength(buffer, limit);
        return new String(buffer.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
    }
}
