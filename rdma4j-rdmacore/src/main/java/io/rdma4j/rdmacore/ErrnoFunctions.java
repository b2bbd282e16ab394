package io.rdma4j.rdmacore;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A C library's control-path functions, each bound once with {@code errno} captured, and the three ways
 * rdma-core's functions report failure turned into {@link RdmaException}s: 0 or an errno (or -1 with errno
 * set), a pointer that is NULL with errno set, or nothing. libibverbs ({@link Ibverbs}) and librdmacm
 * ({@code cm.Rdmacm}) each hold one.
 * <p>
 * Calls go through {@link MethodHandle#invokeWithArguments}, which boxes: the control path is not hot, and
 * one generic call keeps each binding to one line per function. The data path binds its own exact handles.
 */
public final class ErrnoFunctions
{
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private final NativeLibrary library;
    private final Supplier<String> unavailableReason;
    private final Map<String, MethodHandle> functions = new HashMap<>();

    /**
     * @param library           the library the functions are in.
     * @param unavailableReason why a function is not bound, for the exception's sentence.
     */
    public ErrnoFunctions(final NativeLibrary library, final Supplier<String> unavailableReason)
    {
        this.library = library;
        this.unavailableReason = unavailableReason;
    }

    /**
     * @param name      the function.
     * @param result    its result's layout.
     * @param arguments its parameters' layouts.
     * @throws UnsatisfiedLinkError if the library lacks it.
     */
    public void bind(final String name, final MemoryLayout result, final MemoryLayout... arguments)
    {
        functions.put(name, library.downcall(name, FunctionDescriptor.of(result, arguments), CAPTURE_ERRNO));
    }

    /**
     * @param name      a function returning void.
     * @param arguments its parameters' layouts.
     * @throws UnsatisfiedLinkError if the library lacks it.
     */
    public void bindVoid(final String name, final MemoryLayout... arguments)
    {
        functions.put(name, library.downcall(name, FunctionDescriptor.ofVoid(arguments), CAPTURE_ERRNO));
    }

    /**
     * Call a function that returns 0 on success and an errno (or -1 with errno set) on failure.
     *
     * @param what      the operation and its object, for the exception's sentence.
     * @param function  the function's name.
     * @param arguments its arguments.
     * @throws RdmaException with the errno on failure.
     */
    public void check(final String what, final String function, final Object... arguments)
    {
        final int errno = errno(function, arguments);
        if (errno != 0)
        {
            throw NativeErrors.exception(errno, what);
        }
    }

    /**
     * @param function  a function that returns 0 on success and an errno (or -1 with errno set) on failure.
     * @param arguments its arguments.
     * @return 0, or the errno value of the failure.
     */
    public int errno(final String function, final Object... arguments)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment capture = arena.allocate(CAPTURE);
            final int rc = (int)invoke(function, capture, arguments);
            return NativeErrors.errnoOf(rc, (int)ERRNO.get(capture, 0L));
        }
    }

    /**
     * Call a function that returns a pointer, NULL with errno set on failure.
     *
     * @param what      the operation, for the exception's sentence.
     * @param function  the function's name.
     * @param arguments its arguments.
     * @return the pointer, never NULL.
     * @throws RdmaException with the errno (EIO if none was set) when it returns NULL.
     */
    public MemorySegment pointer(final String what, final String function, final Object... arguments)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment capture = arena.allocate(CAPTURE);
            final MemorySegment result = (MemorySegment)invoke(function, capture, arguments);
            if (result.equals(MemorySegment.NULL))
            {
                final int errno = (int)ERRNO.get(capture, 0L);
                throw NativeErrors.exception(errno == 0 ? Errno.EIO.code() : errno, what);
            }
            return result;
        }
    }

    /**
     * Call a function whose result needs no errno.
     *
     * @param function  the function's name.
     * @param arguments its arguments.
     * @return its result (null for void).
     */
    public Object call(final String function, final Object... arguments)
    {
        try (Arena arena = Arena.ofConfined())
        {
            return invoke(function, arena.allocate(CAPTURE), arguments);
        }
    }

    private Object invoke(final String function, final MemorySegment capture, final Object... arguments)
    {
        final MethodHandle handle = functions.get(function);
        if (handle == null)
        {
            throw new IllegalStateException(function + " is not bound: " + unavailableReason.get());
        }
        final Object[] all = new Object[arguments.length + 1];
        all[0] = capture;
        System.arraycopy(arguments, 0, all, 1, arguments.length);
        try
        {
            return handle.invokeWithArguments(all);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(function + " threw " + ex, ex);
        }
    }
}
