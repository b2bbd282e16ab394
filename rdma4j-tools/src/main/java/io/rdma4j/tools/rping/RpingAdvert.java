package io.rdma4j.tools.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 16 bytes an rping client SENDs to tell the server where a buffer is: virtual address
 * (big-endian 64 bits), rkey and length (big-endian 32 bits each). The server answers with a
 * SEND of the same size, whose contents nobody reads.
 *
 * @param address the buffer's virtual address in the sender's memory region.
 * @param rkey    the region's remote key.
 * @param length  the buffer's length in bytes.
 */
public record RpingAdvert(long address, int rkey, int length)
{
    /** Size of an advert on the wire, and of every SEND rping makes. */
    public static final int BYTES = 16;

    private static final ValueLayout.OfLong LONG_BE =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * @param into at least {@link #BYTES} bytes.
     */
    public void writeTo(final MemorySegment into)
    {
        into.set(LONG_BE, 0, address);
        into.set(INT_BE, 8, rkey);
        into.set(INT_BE, 12, length);
    }

    /**
     * @param from at least {@link #BYTES} bytes.
     * @return the advert they hold.
     */
    public static RpingAdvert readFrom(final MemorySegment from)
    {
        return new RpingAdvert(from.get(LONG_BE, 0), from.get(INT_BE, 8), from.get(INT_BE, 12));
    }
}
