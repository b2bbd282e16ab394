package io.rdma4j.verbs;

/**
 * The errno values the libibverbs and librdmacm man pages name, with their Linux numbers, so a
 * failure reads the same in Java as in C.
 */
public enum Errno
{
    EPERM(1), ENOENT(2), EINTR(4), EIO(5), EAGAIN(11), ENOMEM(12), EACCES(13), EFAULT(14), EBUSY(16),
    EEXIST(17), ENODEV(19), EINVAL(22), ENOSPC(28), ENOSYS(38), EPROTO(71), EOPNOTSUPP(95), EADDRINUSE(98),
    EADDRNOTAVAIL(99), ENETUNREACH(101), ECONNABORTED(103), ECONNRESET(104), EISCONN(106), ENOTCONN(107),
    ETIMEDOUT(110), ECONNREFUSED(111), EHOSTUNREACH(113), EALREADY(114),
    /** The kernel's internal "operation not supported" that rdma_cm returns for IPv6 groups on RoCEv2. */
    ENOTSUPP(524);

    private final int code;

    Errno(final int code)
    {
        this.code = code;
    }

    /**
     * @return the Linux errno number.
     */
    public int code()
    {
        return code;
    }

    /**
     * @param code a Linux errno number.
     * @return the constant with that number, or null if it is not one of ours.
     */
    public static Errno fromCode(final int code)
    {
        for (final Errno errno : values())
        {
            if (errno.code == code)
            {
                return errno;
            }
        }
        return null;
    }

    /**
     * @param code    a Linux errno number.
     * @param unknown what to answer for a number that is not one of ours.
     * @return the constant with that number, or {@code unknown}.
     */
    public static Errno fromCode(final int code, final Errno unknown)
    {
        final Errno known = fromCode(code);
        return known == null ? unknown : known;
    }
}
