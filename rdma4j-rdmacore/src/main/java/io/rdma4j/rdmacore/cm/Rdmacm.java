package io.rdma4j.rdmacore.cm;

import io.rdma4j.rdmacore.NativeErrors;
import io.rdma4j.rdmacore.NativeLibrary;
import io.rdma4j.verbs.Errno;

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

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The functions of librdmacm the connection manager calls, each bound once with {@code errno} captured.
 * librdmacm reports failure as -1 (or NULL) with errno set; {@link #errno} turns that into the errno value.
 * None of these is on a data path: the calls box their arguments through one generic invoke.
 */
final class Rdmacm
{
    /** librdmacm, loaded or not. */
    static final NativeLibrary LIBRARY = NativeLibrary.load(NativeLibrary.RDMACM_PROPERTY,
        NativeLibrary.DEFAULT_RDMACM);

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final Map<String, MethodHandle> FUNCTIONS = new HashMap<>();
    private static final String BIND_FAILURE = bindAll();

    private Rdmacm()
    {
    }

    /**
     * @return why librdmacm cannot be used, or null.
     */
    static String unavailableReason()
    {
        return LIBRARY.isLoaded() ? BIND_FAILURE : LIBRARY.unavailableReason();
    }

    private static String bindAll()
    {
        if (!LIBRARY.isLoaded())
        {
            return LIBRARY.unavailableReason();
        }
        try
        {
            bind("rdma_create_event_channel", ADDRESS);
            bindVoid("rdma_destroy_event_channel", ADDRESS);
            bind("rdma_create_id", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
            bind("rdma_destroy_id", JAVA_INT, ADDRESS);
            bind("rdma_bind_addr", JAVA_INT, ADDRESS, ADDRESS);
            bind("rdma_resolve_addr", JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
            bind("rdma_resolve_route", JAVA_INT, ADDRESS, JAVA_INT);
            bind("rdma_listen", JAVA_INT, ADDRESS, JAVA_INT);
            bind("rdma_connect", JAVA_INT, ADDRESS, ADDRESS);
            bind("rdma_accept", JAVA_INT, ADDRESS, ADDRESS);
            bind("rdma_reject", JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE);
            bind("rdma_disconnect", JAVA_INT, ADDRESS);
            bind("rdma_create_qp", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
            bindVoid("rdma_destroy_qp", ADDRESS);
            bind("rdma_get_cm_event", JAVA_INT, ADDRESS, ADDRESS);
            bind("rdma_ack_cm_event", JAVA_INT, ADDRESS);
            bind("rdma_join_multicast_ex", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
            bind("rdma_leave_multicast", JAVA_INT, ADDRESS, ADDRESS);
            return null;
        }
        catch (final UnsatisfiedLinkError ex)
        {
            return ex.getMessage() + ": the connection manager needs librdmacm from rdma-core 14 or newer";
        }
    }

    private static void bind(final String name, final MemoryLayout result, final MemoryLayout... arguments)
    {
        FUNCTIONS.put(name, LIBRARY.downcall(name, FunctionDescriptor.of(result, arguments), CAPTURE_ERRNO));
    }

    private static void bindVoid(final String name, final MemoryLayout... arguments)
    {
        FUNCTIONS.put(name, LIBRARY.downcall(name, FunctionDescriptor.ofVoid(arguments), CAPTURE_ERRNO));
    }

    /**
     * Call a function that returns 0, or -1 with errno set.
     *
     * @param what the operation and its object, for the exception's sentence.
     * @param function the function's name.
     * @param arguments its arguments.
     * @throws io.rdma4j.verbs.RdmaException with the errno on failure.
     */
    static void check(final String what, final String function, final Object... arguments)
    {
        final int errno = errno(function, arguments);
        if (errno != 0)
        {
            throw NativeErrors.exception(errno, what);
        }
    }

    /**
     * @param function the function's name.
     * @param arguments its arguments.
     * @return 0, or the errno value of the failure.
     */
    static int errno(final String function, final Object... arguments)
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
     * @param what the operation, for the exception's sentence.
     * @param function the function's name.
     * @param arguments its arguments.
     * @return the pointer, never NULL.
     */
    static MemorySegment pointer(final String what, final String function, final Object... arguments)
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
     * Call a void function.
     *
     * @param function the function's name.
     * @param arguments its arguments.
     */
    static void call(final String function, final Object... arguments)
    {
        try (Arena arena = Arena.ofConfined())
        {
            invoke(function, arena.allocate(CAPTURE), arguments);
        }
    }

    private static Object invoke(final String function, final MemorySegment capture, final Object... arguments)
    {
        final MethodHandle handle = FUNCTIONS.get(function);
        if (handle == null)
        {
            throw new IllegalStateException(function + " is not bound: " + unavailableReason());
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
