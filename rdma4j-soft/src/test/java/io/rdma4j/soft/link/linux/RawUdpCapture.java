package io.rdma4j.soft.link.linux;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A raw IPv4 socket that sees every UDP datagram the host receives, IP header included: what a UDP socket
 * hides (the identification field, the flags). Needs CAP_NET_RAW; {@link #open} returns null without it.
 * A classic BPF filter keeps only the datagrams to one UDP port, so other processes' UDP traffic on a busy
 * host cannot fill the socket's buffer and push ours out.
 */
final class RawUdpCapture implements AutoCloseable
{
    private static final int SOCK_RAW = 3;
    private static final int IPPROTO_UDP = 17;
    private static final int SO_ATTACH_FILTER = 26;
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Arena arena = Arena.ofConfined();
    private final int fd;
    private final MemorySegment pollFd = arena.allocate(LinuxLibc.POLLFD_BYTES, 8);
    /** The last packet {@link #next} returned, from its IP header on. */
    final MemorySegment packet = arena.allocate(65536, 8);
    int length;

    private RawUdpCapture(final int fd)
    {
        this.fd = fd;
        pollFd.set(ValueLayout.JAVA_INT, 0, fd);
        pollFd.set(ValueLayout.JAVA_SHORT, 4, LinuxLibc.POLLIN);
    }

    /**
     * @param port the UDP destination port to capture.
     * @return the capture, or null without CAP_NET_RAW.
     */
    static RawUdpCapture open(final int port)
    {
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment capture = LinuxLibc.newCapture(scratch);
            final int fd = LinuxLibc.socket(capture, LinuxLibc.AF_INET, SOCK_RAW | LinuxLibc.SOCK_NONBLOCK, IPPROTO_UDP);
            if (fd < 0)
            {
                return null;
            }
            // X = IP header length; A = the UDP destination port; keep the packet if it is ours
            final MemorySegment program = scratch.allocate(5 * 8, 8);
            instruction(program, 0, 0xB1, 0, 0, 0);
            instruction(program, 1, 0x48, 0, 0, 2);
            instruction(program, 2, 0x15, 0, 1, port);
            instruction(program, 3, 0x06, 0, 0, 0xFFFF);
            instruction(program, 4, 0x06, 0, 0, 0);
            final MemorySegment fprog = scratch.allocate(16, 8);
            fprog.set(ValueLayout.JAVA_SHORT, 0, (short)5);
            fprog.set(ValueLayout.JAVA_LONG, 8, program.address());
            if (LinuxLibc.setsockopt(capture, fd, LinuxLibc.SOL_SOCKET, SO_ATTACH_FILTER, fprog, 16) != 0)
            {
                LinuxLibc.close(capture, fd);
                throw new IllegalStateException("SO_ATTACH_FILTER failed: errno " + LinuxLibc.errno(capture));
            }
            final RawUdpCapture raw = new RawUdpCapture(fd);
            // what arrived before the filter was attached
            while (LinuxLibc.read(fd, raw.packet, raw.packet.byteSize()) > 0)
            {
                raw.length = 0;
            }
            return raw;
        }
    }

    private static void instruction(
        final MemorySegment program, final int index, final int code, final int jumpTrue, final int jumpFalse,
        final int k)
    {
        final long at = index * 8L;
        program.set(ValueLayout.JAVA_SHORT, at, (short)code);
        program.set(ValueLayout.JAVA_BYTE, at + 2, (byte)jumpTrue);
        program.set(ValueLayout.JAVA_BYTE, at + 3, (byte)jumpFalse);
        program.set(ValueLayout.JAVA_INT, at + 4, k);
    }

    /**
     * Wait for the next UDP datagram to {@code destination}:{@code port}.
     *
     * @return false if none came within the time.
     */
    boolean next(final int destination, final int port, final long timeoutMillis)
    {
        final long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (System.nanoTime() < deadline)
        {
            final long read = LinuxLibc.read(fd, packet, packet.byteSize());
            if (read > 0)
            {
                length = (int)read;
                if (destinationIp() == destination && destinationPort() == port)
                {
                    return true;
                }
                continue;
            }
            LinuxLibc.poll(pollFd, 1, 100);
        }
        return false;
    }

    int headerLength()
    {
        return (packet.get(ValueLayout.JAVA_BYTE, 0) & 0x0F) * 4;
    }

    int identification()
    {
        return packet.get(SHORT_BE, 4) & 0xFFFF;
    }

    boolean dontFragment()
    {
        return (packet.get(SHORT_BE, 6) & 0x4000) != 0;
    }

    int sourceIp()
    {
        return packet.get(INT_BE, 12);
    }

    int destinationIp()
    {
        return packet.get(INT_BE, 16);
    }

    int sourcePort()
    {
        return packet.get(SHORT_BE, headerLength()) & 0xFFFF;
    }

    int destinationPort()
    {
        return packet.get(SHORT_BE, headerLength() + 2) & 0xFFFF;
    }

    /** @return the UDP payload's offset in {@link #packet}. */
    int payloadOffset()
    {
        return headerLength() + 8;
    }

    int payloadLength()
    {
        return length - payloadOffset();
    }

    @Override
    public void close()
    {
        LinuxLibc.close(LinuxLibc.newCapture(arena), fd);
        arena.close();
    }
}
