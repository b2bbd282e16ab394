package io.rdma4j.cm;

import io.rdma4j.verbs.Errno;

/**
 * The status of a connection-manager event in words. librdmacm gives a bare number whose meaning
 * depends on the event: a REJECTED event carries the REJ's reason ({@link RejectReason}), the others
 * a negative errno (UNREACHABLE with -ETIMEDOUT when no peer answered, ADDR_ERROR with
 * -EADDRNOTAVAIL ...), and 0 means success.
 */
public final class CmStatus
{
    private CmStatus()
    {
    }

    /**
     * @param type   the event.
     * @param status its status.
     * @return e.g. {@code "ok"}, {@code "-ETIMEDOUT (-110)"} or
     *         {@code "INVALID_SERVICE_ID (8): invalid service ID: nobody listens on that port"}.
     */
    public static String describe(final CmEventType type, final int status)
    {
        if (status == 0)
        {
            return "ok";
        }
        if (type == CmEventType.REJECTED && status > 0)
        {
            return RejectReason.describe(status);
        }
        final Errno errno = Errno.fromCode(Math.abs(status));
        return (errno == null ? "errno " + Math.abs(status) : (status < 0 ? "-" : "") + errno.name()) +
            " (" + status + ")";
    }

    /**
     * @param type   the event.
     * @param status its status.
     * @return the errno a failed call would have reported for it: the status's own errno, or for a
     *         REJECTED event ECONNREFUSED (what {@code rdma_connect}'s callers see in errno).
     */
    public static Errno errno(final CmEventType type, final int status)
    {
        if (type == CmEventType.REJECTED)
        {
            return Errno.ECONNREFUSED;
        }
        return status == 0 ? Errno.EPROTO : Errno.fromCode(Math.abs(status), Errno.EPROTO);
    }
}
