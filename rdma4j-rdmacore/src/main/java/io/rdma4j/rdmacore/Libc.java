package io.rdma4j.rdmacore;

import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The C library calls the event paths need: {@code fcntl} to make rdma-core's event file descriptors
 * non-blocking, {@code poll} to wait on one with a timeout, and an {@code eventfd} (made, written, drained,
 * closed) that another thread writes to end such a wait early. A completion channel or a context's async
 * events are waited for on their descriptor, in short slices so that an interrupt is seen, and never by a
 * thread parked inside {@code ibv_get_cq_event}.
 */
public final class Libc
{
    /** The longest single {@code poll}, so that a waiting thread notices an interrupt soon. */
    static final long SLICE_MILLIS = 50;

    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 0x800;
    private static final short POLLIN = 1;
    /** {@code POLLIN}, for reading {@link #revents}. */
    static final short POLL_IN = POLLIN;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;

    /** {@link #awaitReadable(int, int, long)}: the deadline passed. */
    public static final int TIMED_OUT = 0;
    /** {@link #awaitReadable(int, int, long)}: the descriptor is readable. */
    public static final int READABLE = 1;
    /** {@link #awaitReadable(int, int, long)}: the wake-up descriptor was written (and is now drained). */
    public static final int WOKEN = 2;

    private static final StructLayout POLLFD = MemoryLayout.structLayout(
        JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents"));
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle POLL;
    private static final MethodHandle FCNTL;
    private static final MethodHandle EVENTFD;
    private static final MethodHandle WRITE;
    private static final MethodHandle READ;
    private static final MethodHandle CLOSE;
    /*
     * Without the errno capture, for the set's wait and its eventfd: a capturing downcall allocates its state per
     * call where the JIT does no escape analysis, and these calls only fail in ways that the capturing call, made
     * again, then names.
     */
    private static final MethodHandle POLL_PLAIN;
    private static final MethodHandle WRITE_PLAIN;
    private static final MethodHandle READ_PLAIN;

    static
    {
        final Linker linker = Linker.nativeLinker();
        POLL = linker.downcallHandle(linker.defaultLookup().find("poll").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Linker.Option.captureCallState("errno"));
        FCNTL = linker.downcallHandle(linker.defaultLookup().find("fcntl").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2),
            Linker.Option.captureCallState("errno"));
        EVENTFD = linker.downcallHandle(linker.defaultLookup().find("eventfd").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.captureCallState("errno"));
        WRITE = linker.downcallHandle(linker.defaultLookup().find("write").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), Linker.Option.captureCallState("errno"));
        READ = linker.downcallHandle(linker.defaultLookup().find("read").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), Linker.Option.captureCallState("errno"));
        CLOSE = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        POLL_PLAIN = linker.downcallHandle(linker.defaultLookup().find("poll").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        WRITE_PLAIN = linker.downcallHandle(linker.defaultLookup().find("write").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
        READ_PLAIN = linker.downcallHandle(linker.defaultLookup().find("read").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    }

    private Libc()
    {
    }

    /**
     * @param fd a file descriptor.
     * @throws RdmaException if fcntl fails.
     */
    public static void setNonBlocking(final int fd)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment capture = arena.allocate(CAPTURE);
            final int flags = (int)FCNTL.invokeExact(capture, fd, F_GETFL, 0);
            if (flags < 0 || (int)FCNTL.invokeExact(capture, fd, F_SETFL, flags | O_NONBLOCK) < 0)
            {
                throw NativeErrors.exception((int)ERRNO.get(capture, 0L), "fcntl O_NONBLOCK on fd " + fd);
            }
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Wait until a descriptor is readable.
     *
     * @param fd the descriptor.
     * @param deadline {@link System#nanoTime()} after which to give up.
     * @return true if readable, false if the deadline passed.
     * @throws InterruptedException if the thread is interrupted while waiting.
     */
    public static boolean awaitReadable(final int fd, final long deadline) throws InterruptedException
    {
        return awaitReadable(fd, -1, deadline) == READABLE;
    }

    /**
     * Wait until a descriptor is readable or a wake-up descriptor is written.
     *
     * @param fd the descriptor.
     * @param wakeFd an {@link #eventfd()} whose write ends the wait early, which this drains; -1 for none.
     * @param deadline {@link System#nanoTime()} after which to give up.
     * @return {@link #READABLE}, {@link #WOKEN} or {@link #TIMED_OUT}; readable wins over woken, and the wake-up
     *     is then left for the next wait.
     * @throws InterruptedException if the thread is interrupted while waiting.
     */
    public static int awaitReadable(final int fd, final int wakeFd, final long deadline) throws InterruptedException
    {
        final long count = wakeFd < 0 ? 1L : 2L;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment pollfds = arena.allocate(POLLFD, 2);
            final MemorySegment capture = arena.allocate(CAPTURE);
            while (true)
            {
                if (Thread.interrupted())
                {
                    throw new InterruptedException();
                }
                final long left = deadline - System.nanoTime();
                final int millis = (int)Math.min(SLICE_MILLIS, Math.max(0, TimeUnit.NANOSECONDS.toMillis(left)));
                setPollFd(pollfds, 0, fd);
                setPollFd(pollfds, 1, wakeFd);
                final int rc = (int)POLL.invokeExact(capture, pollfds, count, millis);
                if (rc > 0)
                {
                    if (pollfds.get(JAVA_SHORT, 6) != 0)
                    {
                        return READABLE;
                    }
                    drain(wakeFd);
                    return WOKEN;
                }
                if (rc < 0 && (int)ERRNO.get(capture, 0L) != EINTR)
                {
                    throw NativeErrors.exception((int)ERRNO.get(capture, 0L), "poll on fd " + fd);
                }
                if (left <= 0)
                {
                    return TIMED_OUT;
                }
            }
        }
        catch (final RuntimeException | Error | InterruptedException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    static void setPollFd(final MemorySegment pollfds, final int index, final int fd)
    {
        final long base = index * POLLFD.byteSize();
        pollfds.set(JAVA_INT, base, fd);
        pollfds.set(JAVA_SHORT, base + 4, POLLIN);
        pollfds.set(JAVA_SHORT, base + 6, (short)0);
    }

    /**
     * @param arena where to allocate.
     * @param count how many {@code struct pollfd}.
     * @return room for them.
     */
    static MemorySegment pollFds(final Arena arena, final int count)
    {
        return arena.allocate(POLLFD, count);
    }

    /**
     * @param arena where to allocate.
     * @return room for a downcall's errno, as {@link #poll} and {@link #drain(int, MemorySegment, MemorySegment)}
     *     take it.
     */
    static MemorySegment captureState(final Arena arena)
    {
        return arena.allocate(CAPTURE);
    }

    /**
     * @param pollfds {@code struct pollfd}s after a {@link #poll}.
     * @param index which.
     * @return its {@code revents}.
     */
    static short revents(final MemorySegment pollfds, final int index)
    {
        return pollfds.get(JAVA_SHORT, index * POLLFD.byteSize() + 6);
    }

    /**
     * {@code poll(2)}, allocating nothing.
     *
     * @param capture  from {@link #captureState}.
     * @param pollfds  from {@link #pollFds}, filled with {@link #setPollFd}.
     * @param count    how many of them.
     * @param millis   the longest wait; negative waits for ever.
     * @return how many descriptors have events; 0 after the timeout or a signal (EINTR).
     * @throws RdmaException for any other failure of poll.
     */
    static int poll(final MemorySegment capture, final MemorySegment pollfds, final int count, final int millis)
    {
        try
        {
            final int rc = (int)POLL_PLAIN.invokeExact(pollfds, (long)count, millis);
            if (rc >= 0)
            {
                return rc;
            }
            // a signal (EINTR) is no failure, and a look with no wait says whether it was one
            final int again = (int)POLL.invokeExact(capture, pollfds, (long)count, 0);
            if (again < 0 && (int)ERRNO.get(capture, 0L) != EINTR)
            {
                throw NativeErrors.exception((int)ERRNO.get(capture, 0L), "poll on " + count + " descriptors");
            }
            return Math.max(0, again);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Reset an eventfd's count to 0, allocating nothing; nothing happens if it was 0 already.
     *
     * @param fd      the eventfd.
     * @param count   8 bytes to read the count into.
     * @param capture from {@link #captureState}.
     */
    static void drain(final int fd, final MemorySegment count, final MemorySegment capture)
    {
        try
        {
            // non-blocking: EAGAIN when it was drained already, which is as good
            final long rc = (long)READ_PLAIN.invokeExact(fd, count, 8L);
            assert rc == 8 || rc < 0;
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @return a new non-blocking, close-on-exec {@code eventfd} with count 0.
     * @throws RdmaException if eventfd fails.
     */
    public static int eventfd()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment capture = arena.allocate(CAPTURE);
            final int fd = (int)EVENTFD.invokeExact(capture, 0, EFD_NONBLOCK | EFD_CLOEXEC);
            if (fd < 0)
            {
                throw NativeErrors.exception((int)ERRNO.get(capture, 0L), "eventfd");
            }
            return fd;
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Add one to an eventfd's count, so that a wait polling it returns.
     *
     * @param fd the eventfd.
     * @throws RdmaException if write fails other than by a full count (EAGAIN, which still leaves it readable).
     */
    public static void signal(final int fd)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment one = arena.allocate(JAVA_LONG);
            one.set(JAVA_LONG, 0, 1L);
            final MemorySegment capture = arena.allocate(CAPTURE);
            if ((long)WRITE.invokeExact(capture, fd, one, 8L) < 0 && (int)ERRNO.get(capture, 0L) != EAGAIN)
            {
                throw NativeErrors.exception((int)ERRNO.get(capture, 0L), "write to eventfd " + fd);
            }
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * As {@link #signal(int)}, allocating nothing.
     *
     * @param fd      the eventfd.
     * @param one     8 bytes holding the long 1.
     * @param capture from {@link #captureState}; the caller's alone for the call.
     */
    static void signal(final int fd, final MemorySegment one, final MemorySegment capture)
    {
        try
        {
            // EAGAIN (a full count) still leaves it readable; anything else is named by the capturing call
            if ((long)WRITE_PLAIN.invokeExact(fd, one, 8L) < 0 &&
                (long)WRITE.invokeExact(capture, fd, one, 8L) < 0 && (int)ERRNO.get(capture, 0L) != EAGAIN)
            {
                throw NativeErrors.exception((int)ERRNO.get(capture, 0L), "write to eventfd " + fd);
            }
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Reset an eventfd's count to 0; nothing happens if it was 0 already.
     *
     * @param fd the eventfd.
     */
    private static void drain(final int fd) throws Throwable
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment count = arena.allocate(JAVA_LONG);
            final MemorySegment capture = arena.allocate(CAPTURE);
            // non-blocking: EAGAIN when another waiter drained it first, which is as good
            final long rc = (long)READ.invokeExact(capture, fd, count, 8L);
            assert rc == 8 || rc < 0;
        }
    }

    /**
     * @param fd a descriptor this class made; closed, whatever fails.
     */
    public static void close(final int fd)
    {
        try
        {
            final int rc = (int)CLOSE.invokeExact(fd);
            assert rc == 0 || rc < 0;
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @param timeout a timeout; negative waits for ever.
     * @param unit its unit.
     * @return the {@link System#nanoTime()} deadline; a very long (or negative) timeout is capped at about 70
     *     years, so that differences of nanoTime values never overflow.
     */
    public static long deadline(final long timeout, final TimeUnit unit)
    {
        // a negative timeout waits for ever, as the soft device's channels do: a deadline decades away
        final long nanos = timeout < 0 ? Long.MAX_VALUE / 4 : Math.min(unit.toNanos(timeout), Long.MAX_VALUE / 4);
        return System.nanoTime() + nanos;
    }
}
