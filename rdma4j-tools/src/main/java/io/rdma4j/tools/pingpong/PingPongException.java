package io.rdma4j.tools.pingpong;

/**
 * A pingpong run that failed: the message is what rdma-core's tool would print on stderr at that
 * point (one or more lines), and the tool exits 1 after printing it.
 */
public final class PingPongException extends Exception
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message the lines for stderr, as rdma-core words them.
     */
    public PingPongException(final String message)
    {
        super(message);
    }

    /**
     * @param message the lines for stderr.
     * @param cause   the failure underneath, kept for debugging.
     */
    public PingPongException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
