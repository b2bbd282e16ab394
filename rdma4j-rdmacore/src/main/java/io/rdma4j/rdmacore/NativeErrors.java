package io.rdma4j.rdmacore;

import io.rdma4j.verbs.Errno;
import io.rdma4j.verbs.RdmaException;

/**
 * How rdma-core's failures become {@link RdmaException}s: the errno a call returned or left behind, carried
 * as the soft device carries its own, with a sentence naming the operation.
 */
public final class NativeErrors
{
    private NativeErrors()
    {
    }

    /**
     * @param code a positive errno value.
     * @param what the operation and its object, e.g. {@code "ibv_modify_qp on QP 17 to RTR"}.
     * @return the exception to throw.
     */
    public static RdmaException exception(final int code, final String what)
    {
        final Errno errno = Errno.fromCode(code);
        if (errno == null)
        {
            return new RdmaException(Errno.EIO, what + " failed with errno " + code + " (no Errno constant for it)");
        }
        return new RdmaException(errno, what + " failed (errno " + code + ", " + errno.name() + ")");
    }

    /**
     * rdma-core's int-returning calls report failure in one of two ways: the errno value itself (most verbs,
     * such as {@code ibv_modify_qp}), or -1 with errno set (such as {@code ibv_get_cq_event}).
     *
     * @param rc what the call returned.
     * @param errno the errno captured right after it.
     * @return the errno value the failure means, or 0 if {@code rc} is success.
     */
    public static int errnoOf(final int rc, final int errno)
    {
        if (rc == 0)
        {
            return 0;
        }
        if (rc == -1)
        {
            return errno != 0 ? errno : Errno.EIO.code();
        }
        return Math.abs(rc);
    }
}
