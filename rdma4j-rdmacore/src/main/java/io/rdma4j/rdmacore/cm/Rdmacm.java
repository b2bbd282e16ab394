package io.rdma4j.rdmacore.cm;

import io.rdma4j.rdmacore.ErrnoFunctions;
import io.rdma4j.rdmacore.NativeLibrary;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

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
    static final NativeLibrary LIBRARY = NativeLibrary.load(NativeLibrary.RDMACM,
        NativeLibrary.DEFAULT_RDMACM);

    private static final ErrnoFunctions CALLS = new ErrnoFunctions(LIBRARY, Rdmacm::unavailableReason);
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
            bind("rdma_init_qp_attr", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
            bind("rdma_establish", JAVA_INT, ADDRESS);
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
        CALLS.bind(name, result, arguments);
    }

    private static void bindVoid(final String name, final MemoryLayout... arguments)
    {
        CALLS.bindVoid(name, arguments);
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
        CALLS.check(what, function, arguments);
    }

    /**
     * @param function the function's name.
     * @param arguments its arguments.
     * @return 0, or the errno value of the failure.
     */
    static int errno(final String function, final Object... arguments)
    {
        return CALLS.errno(function, arguments);
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
        return CALLS.pointer(what, function, arguments);
    }

    /**
     * Call a void function.
     *
     * @param function the function's name.
     * @param arguments its arguments.
     */
    static void call(final String function, final Object... arguments)
    {
        CALLS.call(function, arguments);
    }
}
