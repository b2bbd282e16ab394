package io.rdma4j.soft.link.linux;

import io.rdma4j.verbs.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The few C library calls a UDP socket needs, bound once through the FFM API with {@code errno} captured:
 * socket, bind, setsockopt, recvmmsg, recvmsg, sendmmsg, sendmsg, poll, eventfd, read, write and close. The
 * constants and structure offsets are Linux's on its 64-bit ABIs (x86_64 and aarch64 share them), so the
 * binding loads only there, and only where native access is enabled for this module (so that the JDK prints
 * no restricted-method warning); {@link #unavailableReason()} says why not elsewhere.
 * <p>
 * The set-up calls capture {@code errno} ({@code Linker.Option.captureCallState}) into a segment the
 * caller allocated once. The data-path calls ({@code recvmmsg}, {@code recvmsg}, {@code sendmmsg}, a
 * {@code sendmsg}, {@code poll} and the eventfd's {@code read}/{@code write}) do not: measured on JDK 25, a
 * downcall with a capture segment allocates 40 bytes per call until C2 compiles its caller (always, with C1
 * only), one without none. They need no errno anyway: a non-blocking receive that fails has nothing to give
 * (EAGAIN, all but always), a send that fails is a counted drop whatever the cause, and the one failure whose
 * cause matters, a {@code UDP_SEGMENT} message refused, is sent again through
 * {@link #sendmsg(MemorySegment, int, MemorySegment, int)}, which captures it.
 * <p>
 * A receive that fails is told apart afterwards by {@link #lastErrno}, which reads the thread's {@code errno}
 * through {@code __errno_location} (a critical downcall: no thread state change, no allocation): with
 * {@code IP_RECVERR} on, the kernel reports an ICMP error that answered any of our datagrams by failing the
 * socket's next receive once, a datagram waiting or not, and that receive must be tried again.
 */
final class LinuxLibc
{
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;

    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    /** A control message on each datagram with the socket's count of datagrams dropped for want of room. */
    static final int SO_RXQ_OVFL = 40;

    static final int IPPROTO_IP = 0;
    static final int IPPROTO_IPV6 = 41;
    static final int SOL_UDP = 17;

    static final int IP_MTU_DISCOVER = 10;
    static final int IP_PMTUDISC_DO = 2;
    static final int IP_MULTICAST_IF = 32;
    static final int IP_MULTICAST_TTL = 33;
    static final int IP_MULTICAST_LOOP = 34;
    static final int IP_ADD_MEMBERSHIP = 35;
    static final int IP_DROP_MEMBERSHIP = 36;
    static final int IP_MULTICAST_ALL = 49;

    static final int IPV6_MULTICAST_IF = 17;
    static final int IPV6_MULTICAST_HOPS = 18;
    static final int IPV6_MULTICAST_LOOP = 19;
    static final int IPV6_ADD_MEMBERSHIP = 20;
    static final int IPV6_DROP_MEMBERSHIP = 21;
    static final int IPV6_MTU_DISCOVER = 23;
    static final int IPV6_V6ONLY = 26;
    static final int IPV6_MULTICAST_ALL = 29;
    static final int IPV6_PMTUDISC_DO = 2;

    /** Accept IPv6 UDP datagrams with a zero checksum (RoCEv2 over IPv6, as rxe sends: linux/udp.h). */
    static final int UDP_NO_CHECK6_RX = 102;
    static final int UDP_SEGMENT = 103;
    static final int UDP_GRO = 104;

    static final int MSG_TRUNC = 0x20;
    static final int MSG_DONTWAIT = 0x40;

    static final short POLLIN = 1;
    static final int EFD_NONBLOCK = 0x800;
    static final int EFD_CLOEXEC = 0x80000;

    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EINVAL = 22;
    static final int EOPNOTSUPP = 95;
    static final int EAGAIN = 11;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int ECONNREFUSED = 111;
    static final int ENETUNREACH = 101;
    static final int EHOSTDOWN = 112;
    static final int EHOSTUNREACH = 113;
    /** Queue ICMP errors on the socket's error queue, IPv4 and IPv6. */
    static final int IP_RECVERR = 11;
    static final int IPV6_RECVERR = 25;
    /** Read the error queue instead of the data. */
    static final int MSG_ERRQUEUE = 0x2000;
    static final short POLLERR = 8;

    /** {@code struct sockaddr_in6}, the larger of the two socket addresses we use. */
    static final int SOCKADDR_BYTES = 28;
    /** {@code struct iovec}: base pointer and length. */
    static final int IOVEC_BYTES = 16;
    /** {@code struct msghdr} on LP64. */
    static final int MSGHDR_BYTES = 56;
    /** {@code struct mmsghdr}: a msghdr, the length the kernel reports, padding. */
    static final int MMSGHDR_BYTES = 64;
    static final int MSG_NAME = 0;
    static final int MSG_NAMELEN = 8;
    static final int MSG_IOV = 16;
    static final int MSG_IOVLEN = 24;
    static final int MSG_CONTROL = 32;
    static final int MSG_CONTROLLEN = 40;
    static final int MSG_FLAGS = 48;
    static final int MSG_LEN = 56;
    /** {@code struct cmsghdr}: length (size_t), level, type; the data follows at 16. */
    static final int CMSG_HEADER_BYTES = 16;
    /** {@code CMSG_SPACE} of an int or a u16: the header and the data padded to 8. */
    static final int CMSG_SPACE_INT = 24;
    /** {@code struct pollfd}: fd, events, revents. */
    static final int POLLFD_BYTES = 8;

    /**
     * Calls that link and customize a downcall's handle: one more than the JDK's highest customization threshold
     * ({@code java.lang.invoke.MethodHandle.CUSTOMIZE_THRESHOLD}, a byte count, 127 by default and at most).
     */
    private static final int PRIME_CALLS = 128;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final String UNAVAILABLE;
    /** EPERM when the JVM denies native access, EOPNOTSUPP for any other reason; null when available. */
    private static final Errno UNAVAILABLE_ERRNO;
    private static final MethodHandle SOCKET;
    private static final MethodHandle BIND;
    private static final MethodHandle SETSOCKOPT;
    private static final MethodHandle RECVMMSG_NO_ERRNO;
    private static final MethodHandle SENDMMSG_NO_ERRNO;
    private static final MethodHandle SENDMSG;
    private static final MethodHandle RECVMSG_NO_ERRNO;
    private static final MethodHandle SENDMSG_NO_ERRNO;
    private static final MethodHandle POLL_NO_ERRNO;
    private static final MethodHandle EVENTFD;
    private static final MethodHandle READ_NO_ERRNO;
    private static final MethodHandle WRITE_NO_ERRNO;
    private static final MethodHandle CLOSE;
    private static final MethodHandle ERRNO_LOCATION;
    /** The address space, to read the int that {@code __errno_location} points at. */
    private static final MemorySegment ANYWHERE;

    static
    {
        String reason = null;
        Errno reasonErrno = Errno.EOPNOTSUPP;
        MethodHandle socket = null;
        MethodHandle bind = null;
        MethodHandle setsockopt = null;
        MethodHandle recvmmsg = null;
        MethodHandle sendmmsg = null;
        MethodHandle sendmsg = null;
        MethodHandle recvmsgNoErrno = null;
        MethodHandle sendmsgNoErrno = null;
        MethodHandle poll = null;
        MethodHandle eventfd = null;
        MethodHandle read = null;
        MethodHandle write = null;
        MethodHandle close = null;
        MethodHandle errnoLocation = null;
        MemorySegment anywhere = null;
        final String os = System.getProperty("os.name", "");
        final String arch = System.getProperty("os.arch", "");
        if (!os.startsWith("Linux"))
        {
            reason = "the Linux socket needs Linux, this is " + os;
        }
        else if (!arch.equals("amd64") && !arch.equals("x86_64") && !arch.equals("aarch64"))
        {
            reason = "the Linux socket's structure layouts are those of x86_64 and aarch64, this is " + arch;
        }
        else if (!LinuxLibc.class.getModule().isNativeAccessEnabled())
        {
            // binding anyway would work but print the JDK's restricted-method warning on every run
            reasonErrno = Errno.EPERM;
            reason = "native access is not enabled for rdma4j-soft (java --enable-native-access=ALL-UNNAMED, " +
                "or the module's name)";
        }
        else
        {
            try
            {
                final Linker linker = Linker.nativeLinker();
                final SymbolLookup libc = linker.defaultLookup();
                final Linker.Option errno = Linker.Option.captureCallState("errno");
                socket = linker.downcallHandle(libc.find("socket").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), errno);
                bind = linker.downcallHandle(libc.find("bind").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno);
                setsockopt = linker.downcallHandle(libc.find("setsockopt").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno);
                recvmmsg = linker.downcallHandle(libc.find("recvmmsg").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
                sendmmsg = linker.downcallHandle(libc.find("sendmmsg").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
                sendmsg = linker.downcallHandle(libc.find("sendmsg").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), errno);
                recvmsgNoErrno = linker.downcallHandle(libc.find("recvmsg").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
                sendmsgNoErrno = linker.downcallHandle(libc.find("sendmsg").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
                poll = linker.downcallHandle(libc.find("poll").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
                eventfd = linker.downcallHandle(libc.find("eventfd").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), errno);
                read = linker.downcallHandle(libc.find("read").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
                write = linker.downcallHandle(libc.find("write").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
                close = linker.downcallHandle(libc.find("close").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT), errno);
                // the address as a long: an ADDRESS return would be a new segment object a call
                errnoLocation = linker.downcallHandle(libc.find("__errno_location").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG), Linker.Option.critical(false));
                anywhere = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
            }
            catch (final RuntimeException | LinkageError ex)
            {
                // IllegalCallerException when native access is refused, NoSuchElementException for a
                // missing symbol: either way the portable socket is used, and the reason says why
                reason = "the C library cannot be bound: " + ex;
            }
        }
        UNAVAILABLE = reason;
        UNAVAILABLE_ERRNO = reason == null ? null : reasonErrno;
        SOCKET = socket;
        BIND = bind;
        SETSOCKOPT = setsockopt;
        RECVMMSG_NO_ERRNO = recvmmsg;
        SENDMMSG_NO_ERRNO = sendmmsg;
        SENDMSG = sendmsg;
        RECVMSG_NO_ERRNO = recvmsgNoErrno;
        SENDMSG_NO_ERRNO = sendmsgNoErrno;
        POLL_NO_ERRNO = poll;
        EVENTFD = eventfd;
        READ_NO_ERRNO = read;
        WRITE_NO_ERRNO = write;
        CLOSE = close;
        ERRNO_LOCATION = errnoLocation;
        ANYWHERE = anywhere;
        if (reason == null)
        {
            primeDataPath();
        }
    }

    private LinuxLibc()
    {
    }

    /**
     * Make each data-path call {@link #PRIME_CALLS} times, through the methods the data path calls, on a
     * descriptor that fails it at once (EBADF; a poll of no descriptors without a wait returns 0). The JDK links
     * an {@code invokeExact} call site on its first run and customizes a method handle (a class of its own) on
     * its 128th call from code that does not fold the handle to a constant, the interpreter's and C1's: 65 to
     * 135 KB and a class definition each. Without this they fall on the polling thread the first time a rare
     * path runs (a flush of two datagrams or more, a drain of the error queue, a receive that fails), long after
     * any warm-up, and on that thread the data path must allocate nothing.
     */
    private static void primeDataPath()
    {
        for (int i = 0; i < PRIME_CALLS; i++)
        {
            recvmmsg(-1, MemorySegment.NULL, 0, MSG_DONTWAIT);
            sendmmsg(-1, MemorySegment.NULL, 0, 0);
            recvmsg(-1, MemorySegment.NULL, MSG_DONTWAIT);
            sendmsg(-1, MemorySegment.NULL, 0);
            poll(MemorySegment.NULL, 0, 0);
            read(-1, MemorySegment.NULL, 0);
            write(-1, MemorySegment.NULL, 0);
            lastErrno();
        }
    }

    /**
     * @return null if the binding loaded, else a sentence saying why not.
     */
    static String unavailableReason()
    {
        return UNAVAILABLE;
    }

    /**
     * @return null if the binding loaded, else the errno that says why not: EPERM without native access,
     *     EOPNOTSUPP off Linux, on another architecture, or without the C library's symbols.
     */
    static Errno unavailableErrno()
    {
        return UNAVAILABLE_ERRNO;
    }

    /**
     * @param arena where the segment lives.
     * @return a segment for the calls' {@code errno}, one per calling thread.
     */
    static MemorySegment newCapture(final Arena arena)
    {
        return arena.allocate(CAPTURE);
    }

    /**
     * @param capture a capture segment a call wrote.
     * @return the errno it captured.
     */
    static int errno(final MemorySegment capture)
    {
        return (int)ERRNO.get(capture, 0L);
    }

    static int socket(final MemorySegment capture, final int domain, final int type)
    {
        return socket(capture, domain, type, 0);
    }

    static int socket(final MemorySegment capture, final int domain, final int type, final int protocol)
    {
        try
        {
            return (int)SOCKET.invokeExact(capture, domain, type, protocol);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static int bind(final MemorySegment capture, final int fd, final MemorySegment sockaddr, final int length)
    {
        try
        {
            return (int)BIND.invokeExact(capture, fd, sockaddr, length);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static int setsockopt(
        final MemorySegment capture, final int fd, final int level, final int name, final MemorySegment value,
        final int length)
    {
        try
        {
            return (int)SETSOCKOPT.invokeExact(capture, fd, level, name, value, length);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    /**
     * @return datagrams received, or -1 (errno not captured: see the class comment).
     */
    static int recvmmsg(final int fd, final MemorySegment messages, final int count, final int flags)
    {
        try
        {
            return (int)RECVMMSG_NO_ERRNO.invokeExact(fd, messages, count, flags, MemorySegment.NULL);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    /**
     * @return messages sent, or -1 (errno not captured: see the class comment).
     */
    static int sendmmsg(final int fd, final MemorySegment messages, final int count, final int flags)
    {
        try
        {
            return (int)SENDMMSG_NO_ERRNO.invokeExact(fd, messages, count, flags);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    /**
     * One datagram: a {@code recvmmsg} for one without the kernel's array handling around it (see
     * {@code ReceiveBatch}'s look for one).
     *
     * @param message a {@code msghdr}: the first member of an {@code mmsghdr}, whose length field this leaves alone.
     * @return bytes received, or -1 (errno not captured: see the class comment).
     */
    static long recvmsg(final int fd, final MemorySegment message, final int flags)
    {
        try
        {
            return (long)RECVMSG_NO_ERRNO.invokeExact(fd, message, flags);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    /**
     * One message (a datagram, or a {@code UDP_SEGMENT} run): {@code sendmmsg} for one, for less (see
     * {@link #recvmsg}).
     *
     * @param message a {@code msghdr}, as for {@link #recvmsg}.
     * @return bytes sent, or -1 (errno not captured: see the class comment).
     */
    static long sendmsg(final int fd, final MemorySegment message, final int flags)
    {
        try
        {
            return (long)SENDMSG_NO_ERRNO.invokeExact(fd, message, flags);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static long sendmsg(final MemorySegment capture, final int fd, final MemorySegment message, final int flags)
    {
        try
        {
            return (long)SENDMSG.invokeExact(capture, fd, message, flags);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    /**
     * @return descriptors ready, 0 on timeout, -1 on failure (EINTR; errno not captured).
     */
    static int poll(final MemorySegment pollfds, final long count, final int millis)
    {
        try
        {
            return (int)POLL_NO_ERRNO.invokeExact(pollfds, count, millis);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static int eventfd(final MemorySegment capture, final int flags)
    {
        try
        {
            return (int)EVENTFD.invokeExact(capture, 0, flags);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static long read(final int fd, final MemorySegment buffer, final long length)
    {
        try
        {
            return (long)READ_NO_ERRNO.invokeExact(fd, buffer, length);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static long write(final int fd, final MemorySegment buffer, final long length)
    {
        try
        {
            return (long)WRITE_NO_ERRNO.invokeExact(fd, buffer, length);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    static int close(final MemorySegment capture, final int fd)
    {
        try
        {
            return (int)CLOSE.invokeExact(capture, fd);
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    /**
     * The calling thread's {@code errno} now, read right after a data-path call that failed: what that call set,
     * unless the JVM's return from it to Java (a safepoint it stopped at) set another. A caller uses it where a
     * wrong value costs one system call more or one fewer, never a datagram: {@code ReceiveBatch} tries a failed
     * receive again when it says the failure was a socket error.
     *
     * @return the thread's errno.
     */
    static int lastErrno()
    {
        try
        {
            return ANYWHERE.get(JAVA_INT, (long)ERRNO_LOCATION.invokeExact());
        }
        catch (final Throwable ex)
        {
            throw rethrow(ex);
        }
    }

    private static RuntimeException rethrow(final Throwable ex)
    {
        if (ex instanceof RuntimeException runtime)
        {
            throw runtime;
        }
        if (ex instanceof Error error)
        {
            throw error;
        }
        // a downcall declares Throwable but throws nothing checked
        throw new IllegalStateException(ex);
    }
}
