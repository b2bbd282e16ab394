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
 * The two C library calls the event paths need: {@code fcntl} to make rdma-core's event file descriptors
 * non-blocking, and {@code poll} to wait on one with a timeout. A completion channel or a context's async
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
    private static final int EINTR = 4;

    private static final StructLayout POLLFD = MemoryLayout.structLayout(
        JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents"));
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle POLL;
    private static final MethodHandle FCNTL;

    static
    {
        final Linker linker = Linker.nativeLinker();
        POLL = linker.downcallHandle(linker.defaultLookup().find("poll").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Linker.Option.captureCallState("errno"));
        FCNTL = linker.downcallHandle(linker.defaultLookup().find("fcntl").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2),
            Linker.Option.captureCallState("errno"));
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
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment pollfd = arena.allocate(POLLFD);
            final MemorySegment capture = arena.allocate(CAPTURE);
            while (true)
            {
                if (Thread.interrupted())
                {
                    throw new InterruptedException();
                }
                final long left = deadline - System.nanoTime();
                final int millis = (int)Math.min(SLICE_MILLIS, Math.max(0, TimeUnit.NANOSECONDS.toMillis(left)));
                pollfd.set(JAVA_INT, 0, fd);
                pollfd.set(JAVA_SHORT, 4, POLLIN);
                pollfd.set(JAVA_SHORT, 6, (short)0);
                final int rc = (int)POLL.invokeExact(capture, pollfd, 1L, millis);
                if (rc > 0)
                {
                    return true;
                }
                if (rc < 0 && (int)ERRNO.get(capture, 0L) != EINTR)
                {
                    throw NativeErrors.exception((int)ERRNO.get(capture, 0L), "poll on fd " + fd);
                }
                if (left <= 0)
                {
                    return false;
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
