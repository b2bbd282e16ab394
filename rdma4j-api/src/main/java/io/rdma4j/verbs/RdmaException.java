package io.rdma4j.verbs;

/**
 * A verb or connection-manager call refused: an {@link Errno} as the man page names it, and a
 * sentence saying which argument, limit or state was at fault.
 */
public class RdmaException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final Errno errno;

    /**
     * @param errno   the errno the C library would return.
     * @param message what was wrong, naming the argument, limit or state.
     */
    public RdmaException(final Errno errno, final String message)
    {
        super(errno.name() + ": " + message);
        this.errno = errno;
    }

    /**
     * @param errno   the errno the C library would return.
     * @param message what was wrong.
     * @param cause   the underlying failure.
     */
    public RdmaException(final Errno errno, final String message, final Throwable cause)
    {
        super(errno.name() + ": " + message, cause);
        this.errno = errno;
    }

    /**
     * @return the errno of this failure.
     */
    public Errno errno()
    {
        return errno;
    }

    /**
     * @return the Linux errno number of this failure.
     */
    public int errnoCode()
    {
        return errno.code();
    }

    /**
     * Throw when a condition is not met: the common guard of argument checks.
     *
     * @param condition what must hold.
     * @param errno     the errno if it does not.
     * @param message   the sentence if it does not.
     */
    public static void check(final boolean condition, final Errno errno, final String message)
    {
        if (!condition)
        {
            throw new RdmaException(errno, message);
        }
    }
}
