package io.rdma4j.rmcast.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * What follows a HEARTBEAT's header: where the session's repair listener is, so that a subscriber that has
 * only ever seen the group can connect to it.
 * <pre>
 *  +---------------------------------------------------------------+
 *  |            Listener address (16 bytes, IPv4-mapped)  ...      |
 *  +---------------------------------------------------------------+
 *  |                       Listener port                           |
 *  +---------------------------------------------------------------+
 *  |                 Window slots (fragments it holds)             |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class HeartbeatBody
{
    public static final int ADDRESS_OFFSET = 0;
    public static final int ADDRESS_LENGTH = 16;
    public static final int PORT_OFFSET = ADDRESS_OFFSET + ADDRESS_LENGTH;
    public static final int WINDOW_SLOTS_OFFSET = PORT_OFFSET + Integer.BYTES;
    /** Bytes after the frame header. */
    public static final int LENGTH = WINDOW_SLOTS_OFFSET + Integer.BYTES;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private HeartbeatBody()
    {
    }

    /**
     * @param segment     where the body goes.
     * @param offset      the body's offset (the frame's plus {@link FrameHeader#LENGTH}).
     * @param listener    the repair listener's address.
     * @param windowSlots the window's size in fragments.
     */
    public static void write(final MemorySegment segment, final long offset, final InetSocketAddress listener,
        final int windowSlots)
    {
        final byte[] raw = listener.getAddress().getAddress();
        final byte[] mapped = new byte[ADDRESS_LENGTH];
        if (raw.length == 4)
        {
            mapped[10] = (byte)0xff;
            mapped[11] = (byte)0xff;
            System.arraycopy(raw, 0, mapped, 12, 4);
        }
        else
        {
            System.arraycopy(raw, 0, mapped, 0, ADDRESS_LENGTH);
        }
        MemorySegment.copy(mapped, 0, segment, ValueLayout.JAVA_BYTE, offset + ADDRESS_OFFSET, ADDRESS_LENGTH);
        segment.set(INT, offset + PORT_OFFSET, listener.getPort());
        segment.set(INT, offset + WINDOW_SLOTS_OFFSET, windowSlots);
    }

    /**
     * Read the listener's address: done once per session a subscriber discovers, so it may allocate.
     *
     * @param segment where the body is.
     * @param offset  the body's offset.
     * @return the address and port.
     */
    public static InetSocketAddress listener(final MemorySegment segment, final long offset)
    {
        final byte[] mapped = new byte[ADDRESS_LENGTH];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset + ADDRESS_OFFSET, mapped, 0, ADDRESS_LENGTH);
        try
        {
            InetAddress address = InetAddress.getByAddress(mapped);
            if (address instanceof Inet6Address && isIpv4Mapped(mapped))
            {
                address = Inet4Address.getByAddress(java.util.Arrays.copyOfRange(mapped, 12, 16));
            }
            return new InetSocketAddress(address, segment.get(INT, offset + PORT_OFFSET));
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException("16 bytes always make an address", ex);
        }
    }

    public static int windowSlots(final MemorySegment segment, final long offset)
    {
        return segment.get(INT, offset + WINDOW_SLOTS_OFFSET);
    }

    private static boolean isIpv4Mapped(final byte[] mapped)
    {
        for (int i = 0; i < 10; i++)
        {
            if (mapped[i] != 0)
            {
                return false;
            }
        }
        return mapped[10] == (byte)0xff && mapped[11] == (byte)0xff;
    }
}
