package io.rdma4j.rdmacore;

import io.rdma4j.verbs.RdmaException;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The exported functions of libibverbs that the control path calls (open, query, create, modify, destroy),
 * each bound once with {@code errno} captured. The data path does not come through here: it calls the
 * provider's functions from the context's ops table ({@link OpsTable}), as verbs.h's inline functions do.
 * <p>
 * The calls themselves, and their errno, go through {@link ErrnoFunctions}, as librdmacm's do.
 * <p>
 * The functions are bound on first use ({@link Bound}), not when the library is loaded: each downcall handle costs
 * the JDK milliseconds to make, and a process on a host without an RDMA device, which {@link NativeDevices} finds
 * out from sysfs, should not pay that at its first connection.
 */
public final class Ibverbs
{
    /** libibverbs, loaded or not. */
    public static final NativeLibrary LIBRARY = NativeLibrary.load(NativeLibrary.IBVERBS,
        NativeLibrary.DEFAULT_IBVERBS);

    /** The bound functions, made at the first call or {@link #unavailableReason()}. */
    private static final class Bound
    {
        static final ErrnoFunctions CALLS = new ErrnoFunctions(LIBRARY, Ibverbs::unavailableReason);
        static final String FAILURE = bindAll();

        private Bound()
        {
        }
    }

    private Ibverbs()
    {
    }

    /**
     * @return why libibverbs cannot be used (not loaded, or lacking a function this module calls), or null.
     */
    public static String unavailableReason()
    {
        return LIBRARY.isLoaded() ? Bound.FAILURE : LIBRARY.unavailableReason();
    }

    private static String bindAll()
    {
        if (!LIBRARY.isLoaded())
        {
            return LIBRARY.unavailableReason();
        }
        try
        {
            bind("ibv_get_device_list", ADDRESS, ADDRESS);
            bind("ibv_get_device_name", ADDRESS, ADDRESS);
            bind("ibv_get_device_guid", JAVA_LONG, ADDRESS);
            bind("ibv_open_device", ADDRESS, ADDRESS);
            bind("ibv_close_device", JAVA_INT, ADDRESS);
            bind("ibv_query_device", JAVA_INT, ADDRESS, ADDRESS);
            bind("ibv_query_port", JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS);
            bind("ibv_query_gid", JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS);
            bind("ibv_alloc_pd", ADDRESS, ADDRESS);
            bind("ibv_dealloc_pd", JAVA_INT, ADDRESS);
            bind("ibv_reg_mr", ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT);
            bind("ibv_dereg_mr", JAVA_INT, ADDRESS);
            bind("ibv_create_comp_channel", ADDRESS, ADDRESS);
            bind("ibv_destroy_comp_channel", JAVA_INT, ADDRESS);
            bind("ibv_create_cq", ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
            bind("ibv_destroy_cq", JAVA_INT, ADDRESS);
            bind("ibv_get_cq_event", JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
            bindVoid("ibv_ack_cq_events", ADDRESS, JAVA_INT);
            bind("ibv_create_qp", ADDRESS, ADDRESS, ADDRESS);
            bind("ibv_modify_qp", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
            bind("ibv_query_qp", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS);
            bind("ibv_destroy_qp", JAVA_INT, ADDRESS);
            bind("ibv_create_ah", ADDRESS, ADDRESS, ADDRESS);
            bind("ibv_destroy_ah", JAVA_INT, ADDRESS);
            bind("ibv_attach_mcast", JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT);
            bind("ibv_detach_mcast", JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT);
            bind("ibv_create_srq", ADDRESS, ADDRESS, ADDRESS);
            bind("ibv_modify_srq", JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);
            bind("ibv_query_srq", JAVA_INT, ADDRESS, ADDRESS);
            bind("ibv_destroy_srq", JAVA_INT, ADDRESS);
            bind("ibv_get_async_event", JAVA_INT, ADDRESS, ADDRESS);
            bindVoid("ibv_ack_async_event", ADDRESS);
            return null;
        }
        catch (final UnsatisfiedLinkError ex)
        {
            return ex.getMessage() + ": this module needs rdma-core 28 or newer";
        }
    }

    private static void bind(final String name, final MemoryLayout result, final MemoryLayout... arguments)
    {
        Bound.CALLS.bind(name, result, arguments);
    }

    private static void bindVoid(final String name, final MemoryLayout... arguments)
    {
        Bound.CALLS.bindVoid(name, arguments);
    }

    /**
     * Call a function that returns a pointer, NULL with errno set on failure.
     *
     * @param what the operation for the exception's sentence.
     * @param function the function's name.
     * @param arguments its arguments.
     * @return the pointer, never NULL.
     * @throws RdmaException with the errno when it returns NULL.
     */
    public static MemorySegment pointer(final String what, final String function, final Object... arguments)
    {
        return Bound.CALLS.pointer(what, function, arguments);
    }

    /**
     * Call a function that returns 0 on success and an errno (or -1 with errno set) on failure.
     *
     * @param what the operation for the exception's sentence.
     * @param function the function's name.
     * @param arguments its arguments.
     * @throws RdmaException with the errno on failure.
     */
    public static void check(final String what, final String function, final Object... arguments)
    {
        Bound.CALLS.check(what, function, arguments);
    }

    /**
     * Call a function that returns 0 on success and an errno (or -1 with errno set) on failure.
     *
     * @param function the function's name.
     * @param arguments its arguments.
     * @return 0, or the errno value of the failure.
     */
    public static int errno(final String function, final Object... arguments)
    {
        return Bound.CALLS.errno(function, arguments);
    }

    /**
     * Call a function for its plain result (a name, a GUID, nothing).
     *
     * @param function the function's name.
     * @param arguments its arguments.
     * @return what it returned, null for void.
     */
    public static Object call(final String function, final Object... arguments)
    {
        return Bound.CALLS.call(function, arguments);
    }
}
