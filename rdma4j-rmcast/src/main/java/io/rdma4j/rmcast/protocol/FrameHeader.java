package io.rdma4j.rmcast.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The header that starts every frame, little-endian, at a frame's offset in any segment (a receive slot, a
 * window slot, a repair ring slot):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     Payload Length (bytes)                    |
 *  +---------------+---------------+-------------------------------+
 *  |     Type      |B|E|  Flags    |           Version             |
 *  +---------------+---------------+-------------------------------+
 *  |                          Session Id                           |
 *  +---------------------------------------------------------------+
 *  |                 Message Length (whole message)                |
 *  +---------------------------------------------------------------+
 *  |                  Sequence (fragment number) ...               |
 *  |                              ... 64 bits                      |
 *  +---------------------------------------------------------------+
 * </pre>
 * For DATA the sequence is the number of the window slot (one datagram) the frame travels in: the one fragment
 * of a long message, or one of the small messages packed into it, each frame with this header, chained by
 * {@link #MORE_FLAG}; for HEARTBEAT it is the session's head,
 * the number the next fragment will get, so a subscriber sees a lost tail. The sequence sits in the header,
 * not in immediate data, because the window slot a repair READ fetches must name its own fragment: a READ
 * brings no immediate data, and a slot overwritten by a newer fragment is told apart by this field.
 */
public final class FrameHeader
{
    /** A fragment of a message. */
    public static final byte TYPE_DATA = 1;
    /** The session's head and the address of its repair listener. */
    public static final byte TYPE_HEARTBEAT = 2;

    /** The fragment is the first of its message. */
    public static final byte BEGIN_FLAG = (byte)0x80;
    /** The fragment is the last of its message. */
    public static final byte END_FLAG = 0x40;
    /** Both: a message in one fragment. */
    public static final byte UNFRAGMENTED = (byte)(BEGIN_FLAG | END_FLAG);
    /**
     * Another frame of the same slot follows this one in the datagram, at this frame's end rounded up to
     * {@link #FRAME_ALIGNMENT}: small messages are packed several to a datagram, each with its header.
     */
    public static final byte MORE_FLAG = 0x20;
    /** Where a packed frame starts after the one before it. */
    public static final int FRAME_ALIGNMENT = 8;

    /** The layout this class reads and writes. */
    public static final short CURRENT_VERSION = 1;

    public static final int PAYLOAD_LENGTH_OFFSET = 0;
    public static final int TYPE_OFFSET = PAYLOAD_LENGTH_OFFSET + Integer.BYTES;
    public static final int FLAGS_OFFSET = TYPE_OFFSET + 1;
    public static final int VERSION_OFFSET = FLAGS_OFFSET + 1;
    public static final int SESSION_ID_OFFSET = VERSION_OFFSET + Short.BYTES;
    public static final int MESSAGE_LENGTH_OFFSET = SESSION_ID_OFFSET + Integer.BYTES;
    public static final int SEQUENCE_OFFSET = MESSAGE_LENGTH_OFFSET + Integer.BYTES;
    /** Bytes before the payload. */
    public static final int LENGTH = SEQUENCE_OFFSET + Long.BYTES;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private FrameHeader()
    {
    }

    /**
     * Write a whole header.
     *
     * @param segment       where the frame is.
     * @param offset        the frame's offset.
     * @param type          {@link #TYPE_DATA} or {@link #TYPE_HEARTBEAT}.
     * @param flags         {@link #BEGIN_FLAG}, {@link #END_FLAG}, both or neither.
     * @param sessionId     the publisher's session.
     * @param payloadLength bytes after the header.
     * @param messageLength bytes of the whole message.
     * @param sequence      the fragment's number, or a heartbeat's head.
     */
    public static void write(
        final MemorySegment segment, final long offset, final byte type, final byte flags, final int sessionId,
        final int payloadLength, final int messageLength, final long sequence)
    {
        segment.set(INT, offset + PAYLOAD_LENGTH_OFFSET, payloadLength);
        segment.set(ValueLayout.JAVA_BYTE, offset + TYPE_OFFSET, type);
        segment.set(ValueLayout.JAVA_BYTE, offset + FLAGS_OFFSET, flags);
        segment.set(SHORT, offset + VERSION_OFFSET, CURRENT_VERSION);
        segment.set(INT, offset + SESSION_ID_OFFSET, sessionId);
        segment.set(INT, offset + MESSAGE_LENGTH_OFFSET, messageLength);
        segment.set(LONG, offset + SEQUENCE_OFFSET, sequence);
    }

    /**
     * Say that another frame follows this one in its datagram.
     *
     * @param segment where the frame is.
     * @param offset  the frame's offset.
     */
    public static void markMore(final MemorySegment segment, final long offset)
    {
        segment.set(ValueLayout.JAVA_BYTE, offset + FLAGS_OFFSET, (byte)(flags(segment, offset) | MORE_FLAG));
    }

    /**
     * @param offset        a frame's offset.
     * @param payloadLength its payload's length.
     * @return where the next frame of its datagram starts, if {@link #MORE_FLAG} says one does.
     */
    public static long next(final long offset, final int payloadLength)
    {
        return (offset + LENGTH + payloadLength + FRAME_ALIGNMENT - 1) & -FRAME_ALIGNMENT;
    }

    public static int payloadLength(final MemorySegment segment, final long offset)
    {
        return segment.get(INT, offset + PAYLOAD_LENGTH_OFFSET);
    }

    public static byte type(final MemorySegment segment, final long offset)
    {
        return segment.get(ValueLayout.JAVA_BYTE, offset + TYPE_OFFSET);
    }

    public static byte flags(final MemorySegment segment, final long offset)
    {
        return segment.get(ValueLayout.JAVA_BYTE, offset + FLAGS_OFFSET);
    }

    public static short version(final MemorySegment segment, final long offset)
    {
        return segment.get(SHORT, offset + VERSION_OFFSET);
    }

    public static int sessionId(final MemorySegment segment, final long offset)
    {
        return segment.get(INT, offset + SESSION_ID_OFFSET);
    }

    public static int messageLength(final MemorySegment segment, final long offset)
    {
        return segment.get(INT, offset + MESSAGE_LENGTH_OFFSET);
    }

    public static long sequence(final MemorySegment segment, final long offset)
    {
        return segment.get(LONG, offset + SEQUENCE_OFFSET);
    }
}
