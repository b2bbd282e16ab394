package io.rdma4j.soft.link.linux;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.rdma4j.soft.link.linux.LinuxLibc.CMSG_HEADER_BYTES;

/**
 * The walk over a message's control messages ({@code struct cmsghdr}: length, level, type, then the data,
 * each padded to 8 bytes) that {@code CMSG_FIRSTHDR}/{@code CMSG_NXTHDR} do in C: GRO's segment size and the
 * kernel's drop count on received datagrams, the extended error on the error queue.
 */
final class ControlMessages
{
    private ControlMessages()
    {
    }

    /**
     * @param control   the control buffer.
     * @param base      where the message's control messages start in it.
     * @param length    the control length the kernel reported, capped at the room the message had.
     * @param level     the level wanted ({@code SOL_SOCKET}, {@code SOL_UDP}, {@code IPPROTO_IP} ...).
     * @param type      the type wanted.
     * @param dataBytes how many bytes of data it must hold to count.
     * @return the offset of its data in {@code control}, or -1 if there is no such control message.
     */
    static long find(final MemorySegment control, final long base, final long length, final int level,
        final int type, final int dataBytes)
    {
        long at = 0;
        while (at + CMSG_HEADER_BYTES + dataBytes <= length)
        {
            final long cmsgLength = control.get(ValueLayout.JAVA_LONG, base + at);
            if (cmsgLength < CMSG_HEADER_BYTES)
            {
                return -1;
            }
            if (control.get(ValueLayout.JAVA_INT, base + at + 8) == level &&
                control.get(ValueLayout.JAVA_INT, base + at + 12) == type)
            {
                return base + at + CMSG_HEADER_BYTES;
            }
            at += (cmsgLength + 7) & ~7L;
        }
        return -1;
    }
}
