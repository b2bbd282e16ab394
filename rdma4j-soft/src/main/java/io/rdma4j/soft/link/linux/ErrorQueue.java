package io.rdma4j.soft.link.linux;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.function.Consumer;

import static io.rdma4j.soft.link.linux.LinuxLibc.AF_INET;
import static io.rdma4j.soft.link.linux.LinuxLibc.AF_INET6;
import static io.rdma4j.soft.link.linux.LinuxLibc.IOVEC_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.MMSGHDR_BYTES;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_CONTROL;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_CONTROLLEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_IOV;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_IOVLEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_NAME;
import static io.rdma4j.soft.link.linux.LinuxLibc.MSG_NAMELEN;
import static io.rdma4j.soft.link.linux.LinuxLibc.SOCKADDR_BYTES;

/**
 * The socket's error queue ({@code IP_RECVERR}): where the kernel puts the ICMP errors that answer our
 * datagrams. A "port unreachable" for a datagram to UDP 4791 says that no RoCEv2 device listens on that
 * address, which the connection manager would otherwise learn only when its REQ's retries run out (a minute).
 * Read with {@code recvmmsg(MSG_ERRQUEUE)}: the message's name is the original datagram's destination, and a
 * control message carries the {@code sock_extended_err}. Once the option is on, the queue must be drained:
 * while it holds an entry, {@code poll} reports {@code POLLERR} at once, and a waiting thread would spin.
 */
final class ErrorQueue
{
    /** Entries read per drain at most: a flood of ICMP costs a bounded amount of work per wake-up. */
    static final int MAX_PER_DRAIN = 64;
    private static final int PAYLOAD_BYTES = 64;
    private static final int CONTROL_BYTES = 256;
    private static final int SO_EE_ORIGIN_ICMP = 2;
    private static final int SO_EE_ORIGIN_ICMP6 = 3;
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment message;
    private final MemorySegment name;
    private final MemorySegment iov;
    private final MemorySegment payload;
    private final MemorySegment control;
    private final int errorLevel;
    private final int errorType;

    /**
     * @param arena  where the buffers live.
     * @param family the socket's, {@code AF_INET} or {@code AF_INET6}: which control message carries the error.
     */
    ErrorQueue(final Arena arena, final int family)
    {
        errorLevel = family == AF_INET ? LinuxLibc.IPPROTO_IP : LinuxLibc.IPPROTO_IPV6;
        errorType = family == AF_INET ? LinuxLibc.IP_RECVERR : LinuxLibc.IPV6_RECVERR;
        message = arena.allocate(MMSGHDR_BYTES, 8);
        name = arena.allocate(SOCKADDR_BYTES, 8);
        iov = arena.allocate(IOVEC_BYTES, 8);
        payload = arena.allocate(PAYLOAD_BYTES, 8);
        control = arena.allocate(CONTROL_BYTES, 8);
        iov.set(ValueLayout.ADDRESS, 0, payload);
        iov.set(ValueLayout.JAVA_LONG, 8, PAYLOAD_BYTES);
        message.set(ValueLayout.ADDRESS, MSG_NAME, name);
        message.set(ValueLayout.ADDRESS, MSG_IOV, iov);
        message.set(ValueLayout.JAVA_LONG, MSG_IOVLEN, 1);
        message.set(ValueLayout.ADDRESS, MSG_CONTROL, control);
    }

    /**
     * Read what the queue holds, up to {@link #MAX_PER_DRAIN} entries.
     *
     * @param fd      the socket.
     * @param refused told each destination that answered "port unreachable" (ECONNREFUSED).
     * @return entries read, of any kind.
     */
    int drain(final int fd, final Consumer<InetSocketAddress> refused)
    {
        int read = 0;
        while (read < MAX_PER_DRAIN)
        {
            message.set(ValueLayout.JAVA_INT, MSG_NAMELEN, SOCKADDR_BYTES);
            message.set(ValueLayout.JAVA_LONG, MSG_CONTROLLEN, CONTROL_BYTES);
            if (LinuxLibc.recvmmsg(fd, message, 1, LinuxLibc.MSG_ERRQUEUE | LinuxLibc.MSG_DONTWAIT) < 1)
            {
                return read;
            }
            read++;
            if (refusedByIcmp())
            {
                final InetSocketAddress destination = destination();
                if (destination != null)
                {
                    refused.accept(destination);
                }
            }
        }
        return read;
    }

    /** Whether the entry's extended error is an ICMP (or ICMPv6) error meaning ECONNREFUSED. */
    private boolean refusedByIcmp()
    {
        final long length = Math.min(message.get(ValueLayout.JAVA_LONG, MSG_CONTROLLEN), CONTROL_BYTES);
        // sock_extended_err: ee_errno (u32), ee_origin (u8), then type, code and the rest
        final long error = ControlMessages.find(control, 0, length, errorLevel, errorType, 8);
        if (error < 0)
        {
            return false;
        }
        final int origin = control.get(ValueLayout.JAVA_BYTE, error + 4) & 0xFF;
        return control.get(ValueLayout.JAVA_INT, error) == LinuxLibc.ECONNREFUSED &&
            (origin == SO_EE_ORIGIN_ICMP || origin == SO_EE_ORIGIN_ICMP6);
    }

    private InetSocketAddress destination()
    {
        final int length = message.get(ValueLayout.JAVA_INT, MSG_NAMELEN);
        final int family = name.get(ValueLayout.JAVA_SHORT, 0);
        final int port = name.get(SHORT_BE, 2) & 0xFFFF;
        try
        {
            if (family == AF_INET && length >= 16)
            {
                return new InetSocketAddress(InetAddress.getByAddress(name.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE)),
                    port);
            }
            if (family == AF_INET6 && length >= SOCKADDR_BYTES)
            {
                return new InetSocketAddress(
                    InetAddress.getByAddress(name.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE)), port);
            }
        }
        catch (final UnknownHostException ex)
        {
            // four or sixteen bytes always make an address
        }
        return null;
    }
}
